"""The sender's bounds, against receivers that misbehave on real sockets: an attempt ends
at its deadline whatever a receiver trickles (headers or body); a lease always outlasts
the deadline (refused at start otherwise); one endpoint never has more deliveries in
flight than its cap, across processes; and four endpoints trickling to the deadline do
not hold up a healthy one.

Deadlines are short here to keep the tests fast; the figures at the defaults are in the
documentation (docs/service/webhooks.md, Delivery).
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from pressroom.cli.main import app as cli
from pressroom.service.db.session import make_engine, make_session_factory
from pressroom.service.webhooks.dispatcher import Dispatcher
from pressroom.settings import WEBHOOK_LEASE_MARGIN_SECONDS, Settings
from tests.conftest import AccountHandle, Service
from tests.service.test_media_live import api_key, live_service
from tests.support.answering import Answering, Connection, answering, http_answer
from tests.support.receiver import running_receiver
from tests.support.webhooks import (
    by_hand,
    claimers,
    connect_in,
    log_of,
    running,
    subscribe,
    subscribe_verified,
    tuned,
    wait_until,
)

DEADLINE = 1.5
LONG = http_answer(200, b"still coming " * 40)
"""An answer that, one byte every 0.2 s, would take two minutes."""
HEAD = LONG.index(b"\r\n\r\n") + 4


@pytest.fixture
def quiet(settings: Settings) -> Iterator[Service]:
    with running(
        tuned(settings, webhook_attempt_deadline_seconds=DEADLINE), sender=False
    ) as service:
        yield service


@pytest.mark.parametrize("part", ["headers", "body"])
def test_an_attempt_ends_at_its_deadline_whatever_the_receiver_trickles(
    quiet: Service, part: str
) -> None:
    """A byte every 0.25 s keeps every read short of httpx's 10 s read timeout: only the
    deadline of the whole attempt ends it."""
    account = quiet.account()
    trickle_from = 0 if part == "headers" else HEAD
    with answering(LONG, gap=0.25, trickle_from=trickle_from) as receiver:
        webhook_id = subscribe(account, receiver.url)
        account.connect("microblog", "@acme")
        began = time.monotonic()
        assert by_hand(quiet).send_one()
        took = time.monotonic() - began
        [connection] = receiver.connections
        wait_until(lambda: connection.closed is not None, "the receiver to see the hang-up", 5)
    assert DEADLINE - 0.05 <= took <= DEADLINE + 0.75, took
    assert connection.hung_up and connection.sent < len(LONG)
    assert connection.closed is not None and connection.closed - connection.opened < DEADLINE + 0.5
    [delivery] = log_of(account, webhook_id)
    [attempt] = delivery["attempts"]
    assert delivery["state"] == "pending" and attempt["status"] is None
    assert attempt["excerpt"].startswith(f"no answer: the deadline of {DEADLINE:g} s passed")
    if part == "body":
        assert "HTTP 200 came" in attempt["excerpt"]
    assert DEADLINE * 1000 - 50 <= attempt["latencyMs"] <= (DEADLINE + 0.75) * 1000


def test_a_lease_no_longer_than_the_deadline_and_its_margin_is_refused_at_start(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = settings.model_copy(
        update={"webhook_attempt_deadline_seconds": 15.0, "webhook_lease_seconds": 20.0}
    )
    problem = bad.webhook_settings_problem()
    assert problem is not None
    assert "PRESSROOM_WEBHOOK_LEASE_SECONDS (20)" in problem
    assert (
        f"PRESSROOM_WEBHOOK_ATTEMPT_DEADLINE_SECONDS (15) + {WEBHOOK_LEASE_MARGIN_SECONDS:g}"
        in (problem)
    )
    fine = bad.model_copy(update={"webhook_lease_seconds": 15.0 + WEBHOOK_LEASE_MARGIN_SECONDS})
    assert fine.webhook_settings_problem() is None
    with pytest.raises(ValueError, match="PRESSROOM_WEBHOOK_LEASE_SECONDS"):
        Dispatcher(make_session_factory(make_engine("sqlite://")), bad)
    crowded = settings.model_copy(update={"webhook_senders": 2, "webhook_endpoint_concurrency": 2})
    assert "PRESSROOM_WEBHOOK_SENDERS (2)" in (crowded.webhook_settings_problem() or "")

    for name in list(os.environ):
        if name.startswith("PRESSROOM_"):
            monkeypatch.delenv(name)
    env = {
        "PRESSROOM_WEBHOOK_ATTEMPT_DEADLINE_SECONDS": "15",
        "PRESSROOM_WEBHOOK_LEASE_SECONDS": "20",
    }
    for command in (["worker"], ["api", "--port", "0"]):
        done = CliRunner().invoke(cli, [*command, "--data-dir", str(tmp_path)], env=env)
        assert done.exit_code == 2, done.output
        assert "PRESSROOM_WEBHOOK_LEASE_SECONDS (20) must be at least" in done.stderr


def _overlapping(connections: list[Connection]) -> list[str]:
    """webhook-ids whose requests were open at the same time as another of the same id."""
    spans: dict[str, list[tuple[float, float]]] = {}
    for c in connections:
        found = re.search(rb"webhook-id: (\S+)", c.request, re.IGNORECASE)
        assert found and c.closed is not None
        spans.setdefault(found.group(1).decode(), []).append((c.opened, c.closed))
    twice = []
    for webhook_id, times in spans.items():
        times.sort()
        if any(later[0] < earlier[1] for earlier, later in itertools.pairwise(times)):
            twice.append(webhook_id)
    return twice


def _six_events_to_one_endpoint(account: AccountHandle, receiver: Answering) -> None:
    subscribe(account, receiver.url, events=["connection.active"])
    for i in range(6):  # six resources: nothing waits behind an earlier event
        account.connect("microblog", f"@acme{i}")


def test_an_endpoint_never_has_more_deliveries_in_flight_than_its_cap(settings: Settings) -> None:
    """Two senders with their own database connections (as two processes have), 16
    threads each, six deliveries to one endpoint that trickles to the deadline: two at a
    time, never more, and never one delivery twice at once."""
    tuned_settings = tuned(
        settings, webhook_attempt_deadline_seconds=1.0, webhook_endpoint_concurrency=2
    )
    with running(tuned_settings, sender=False) as service, answering(LONG, gap=0.2) as receiver:
        account = service.account()
        _six_events_to_one_endpoint(account, receiver)
        other = make_session_factory(make_engine(settings.database_url))
        senders = [by_hand(service), Dispatcher(other, tuned_settings)]
        for sender in senders:
            sender.start()
        try:
            wait_until(lambda: len(receiver.connections) >= 8, "eight attempts", 15)
        finally:
            for sender in senders:
                sender.stop()
            other.kw["bind"].dispose()
        wait_until(lambda: receiver.open_now() == 0, "every connection closed", 5)
    assert receiver.most_at_once == 2
    assert _overlapping(receiver.connections) == []


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_the_cap_holds_across_service_processes(database_url: str, tmp_path: Path) -> None:
    """The same, with two real ``pressroom api`` processes sending on one PostgreSQL."""

    env = {
        "PRESSROOM_WEBHOOK_DEVELOPMENT": "1",
        "PRESSROOM_WEBHOOK_POLL_SECONDS": "0.05",
        "PRESSROOM_WEBHOOK_RETRY_BASE_SECONDS": "0.05",
        "PRESSROOM_WEBHOOK_RETRY_MAX_DELAY_SECONDS": "0.2",
        "PRESSROOM_WEBHOOK_ATTEMPT_DEADLINE_SECONDS": "1",
        "PRESSROOM_WEBHOOK_ENDPOINT_CONCURRENCY": "2",
    }
    key = api_key(database_url)
    sessions = make_session_factory(make_engine(database_url))
    with (
        answering(LONG, gap=0.2) as receiver,
        live_service(tmp_path / "a", database_url, **env) as first,
        live_service(tmp_path / "b", database_url, **env) as second,
    ):
        made = httpx.post(
            f"{first.base_url}/api/webhooks",
            json={"url": receiver.url, "events": ["connection.active"]},
            headers={"X-API-Key": key},
        )
        assert made.status_code == 201, made.text
        for i in range(6):
            connect_in(sessions, key, f"@acme{i}")
        # A claim is released after each attempt, so who sent is gathered while they send,
        # not read from the rows once they are done. A claimer is ``host:pid:token``, the
        # pid one of a service's server processes, each service in a process group of its own.
        services: set[int] = set()

        def attempts_seen(count: int) -> bool:
            for owner in filter(None, claimers(sessions)):
                with suppress(ProcessLookupError):
                    services.add(os.getpgid(int(owner.split(":")[1])))
            return len(receiver.connections) >= count

        wait_until(lambda: attempts_seen(8), "eight attempts", 20)
        wait_until(lambda: attempts_seen(8) and len(services) >= 2, "both services sending", 20)
        assert receiver.most_at_once == 2
        assert services == {first.process.pid, second.process.pid}
    sessions.kw["bind"].dispose()
    assert _overlapping([c for c in receiver.connections if c.closed is not None]) == []


def test_four_endpoints_trickling_to_the_deadline_do_not_hold_up_a_healthy_one(
    settings: Settings,
) -> None:
    """Every slow endpoint holds its two senders to the deadline, with a third delivery
    waiting; a healthy endpoint's event still arrives at once (measured here; the
    figure at the defaults is on the webhooks page)."""
    slow_deadline = 4.0
    tuned_settings = tuned(settings, webhook_attempt_deadline_seconds=slow_deadline)
    with running(tuned_settings, sender=True) as service, running_receiver() as healthy:
        slow: list[Answering] = []
        try:
            for _ in range(4):
                receiver = Answering(answer=LONG, gap=0.2)
                receiver.start()
                slow.append(receiver)
                account = service.account()
                subscribe(account, receiver.url)
                for i in range(3):
                    account.connect("microblog", f"@slow{i}")
            wait_until(
                lambda: all(r.open_now() == 2 for r in slow), "every slow endpoint at its cap", 10
            )
            fine = service.account()
            subscribe_verified(fine, healthy)
            emitted = time.monotonic()
            fine.connect("microblog", "@healthy")
            healthy.wait_for(1, timeout=slow_deadline)
            delay = time.monotonic() - emitted
            still_held = [r.open_now() for r in slow]
        finally:
            for receiver in slow:
                receiver.stop()
    print(f"\nhealthy endpoint's event arrived {delay * 1000:.0f} ms after it was emitted")
    assert still_held == [2, 2, 2, 2]  # measured while every slow endpoint was at its cap
    assert delay < 2.0
    assert all(r.most_at_once == 2 for r in slow)
