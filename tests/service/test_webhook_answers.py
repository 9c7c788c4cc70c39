"""What a receiver answers can never break the sender, on SQLite and PostgreSQL alike: a
binary or gzip body (NUL bytes, which PostgreSQL's text refuses), a ``Retry-After`` of
``1e15``, a compressed answer of many megabytes once inflated. Each attempt is logged, the
schedule stays sane, and an answer is read raw up to 4 KiB.

Every receiver here is a real socket on loopback (``tests.support.answering``); the
sender is driven by hand (``send_one``), so each attempt happens when the test says.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from datetime import timedelta

import pytest

from pressroom.service.db.base import utcnow
from pressroom.service.webhooks import queue
from pressroom.service.webhooks.dispatcher import READ_AT_MOST
from pressroom.settings import Settings
from tests.conftest import Service
from tests.support.answering import answering, gzip_answer, http_answer
from tests.support.webhooks import by_hand, endpoint_of, log_of, rows, running, subscribe, tuned


@pytest.fixture
def quiet(settings: Settings) -> Iterator[Service]:
    """The service with no sender of its own: the test sends by hand."""
    with running(tuned(settings), sender=False) as service:
        yield service


BINARY = bytes(range(256)) + b"\x00\x00after the NULs"


@pytest.mark.parametrize("status", [200, 500])
def test_an_answer_with_nul_bytes_is_logged_and_the_delivery_moves_on(
    quiet: Service, status: int
) -> None:
    account = quiet.account()
    with answering(http_answer(status, BINARY, {"Content-Type": "application/octet-stream"})) as r:
        webhook_id = subscribe(account, r.url)
        account.connect("microblog", "@acme")
        sender = by_hand(quiet)
        assert sender.send_one()
    [delivery] = log_of(account, webhook_id)
    [attempt] = delivery["attempts"]
    assert attempt["status"] == status
    assert delivery["state"] == ("delivered" if status == 200 else "pending")
    excerpt = attempt["excerpt"]
    assert "\x00" not in excerpt and excerpt.endswith("after the NULs")
    assert excerpt == queue.excerpt_of(BINARY)
    assert all(c in "\t\n\r" or c >= " " for c in excerpt)
    deliveries, attempts = rows(quiet)
    if status == 500:  # the error is kept printable too, and the retry is scheduled
        assert deliveries[0].last_error == excerpt and deliveries[0].attempts == 1
        assert deliveries[0].next_attempt_at > attempts[0].attempted_at


def test_a_retry_after_of_1e15_is_logged_and_the_schedule_stays_sane(settings: Settings) -> None:
    answer = http_answer(503, b"come back in 31 million years", {"Retry-After": "1e15"})
    short = tuned(settings, webhook_retry_period_seconds=1.0)
    with running(short, sender=False) as service, answering(answer) as receiver:
        account = service.account()
        webhook_id = subscribe(account, receiver.url)
        account.connect("microblog", "@acme")
        sender = by_hand(service)
        assert sender.send_one()
        deliveries, attempts = rows(service)
        [attempt] = attempts
        assert attempt.status == 503 and attempt.excerpt.startswith("come back")
        # The receiver's wish, capped at a day, waits no longer than the retry period.
        wait = deliveries[0].next_attempt_at - attempt.attempted_at
        assert wait == timedelta(seconds=1.0)
        assert endpoint_of(account, webhook_id)["enabled"]

        # The retry period ends: the next attempt gives the delivery up, and the
        # endpoint is disabled with its reason, as for any other failure.
        time.sleep(max(0.0, (deliveries[0].next_attempt_at - utcnow()).total_seconds()))
        assert sender.send_one()
        [delivery] = log_of(account, webhook_id)
        assert delivery["state"] == "failed" and len(delivery["attempts"]) == 2
        endpoint = endpoint_of(account, webhook_id)
        assert not endpoint["enabled"] and "HTTP 503" in endpoint["disabledReason"]


def test_a_gzip_answer_is_read_raw_and_never_inflated(quiet: Service) -> None:
    """The 20 MB a 20 KB gzip body inflates to never exist in the sender: it asks for no
    compression, reads at most READ_AT_MOST raw bytes and keeps them, made printable."""
    answer, body = gzip_answer(20 * 1024 * 1024)
    assert len(body) < 64 * 1024
    account = quiet.account()
    with answering(answer) as receiver:
        webhook_id = subscribe(account, receiver.url)
        account.connect("microblog", "@acme")
        sender = by_hand(quiet)
        tracemalloc.start()
        try:
            assert sender.send_one()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        [connection] = receiver.connections
    assert b"accept-encoding: identity" in connection.request.lower()
    assert peak < 2 * 1024 * 1024, f"{peak / 1e6:.1f} MB at the peak of one attempt"
    [delivery] = log_of(account, webhook_id)
    [attempt] = delivery["attempts"]
    assert attempt["status"] == 200 and delivery["state"] == "delivered"
    assert attempt["excerpt"] == queue.excerpt_of(body[:READ_AT_MOST])
    assert "pressroom" not in attempt["excerpt"]  # the raw bytes, not the text inside
