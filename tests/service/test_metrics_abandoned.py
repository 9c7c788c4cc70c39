"""A metrics round whose process dies is found abandoned once its lease runs out: a
reader of the round or the next refresh marks it ``failed`` and a new round starts.

The kill test runs a real ``pressroom api`` process (``kill -9`` does not exist inside
a test client) and reads the round through a second one on the same database.
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from pressroom.platforms import Platform
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import MetricRound, PeriodicLease
from pressroom.service.db.session import make_engine, make_session_factory, transaction
from pressroom.service.metrics.rounds import lease_name, round_lease, runner_of
from tests.conftest import Service
from tests.service.test_media_live import live_service
from tests.service.test_metrics_api import finished, published, refresh
from tests.service.test_threads_live import account_with_connection

LEASE_SECONDS = 2
LIVE = {"PRESSROOM_JOB_LEASE_SECONDS": str(LEASE_SECONDS)}


def dead_round(service: Service, account_id: str) -> str:
    """A running round as a process killed mid-round leaves it: its row, its own lease
    and its first network's lease, all run out."""
    round_id = new_id("mrnd")
    gone = utcnow() - timedelta(seconds=1)
    with transaction(service.sessions) as db:
        db.add(
            MetricRound(
                id=round_id,
                account_id=account_id,
                status="running",
                filters={},
                networks={},
                started_at=gone - timedelta(minutes=1),
            )
        )
        db.add(PeriodicLease(name=round_lease(round_id), owner=round_id, expires_at=gone))
        db.add(
            PeriodicLease(
                name=lease_name(account_id, Platform.MICROBLOG), owner=round_id, expires_at=gone
            )
        )
    return round_id


def test_a_reader_finds_a_round_whose_lease_ran_out_failed(service: Service) -> None:
    account = service.account()
    round_id = dead_round(service, account.id)
    found = account.get(f"/api/posts/metrics/rounds/{round_id}").json()["round"]  # type: ignore[attr-defined]
    assert found["status"] == "failed" and found["finishedAt"] is not None, found
    with transaction(service.sessions, write=False) as db:
        held = list(db.scalars(select(PeriodicLease.name).where(PeriodicLease.owner == round_id)))
    assert held == [], "its leases are freed with it"


def test_the_next_refresh_fails_an_abandoned_round_and_starts_a_new_one(service: Service) -> None:
    account = service.account()
    record_id = published(account, Platform.MICROBLOG)
    dead = dead_round(service, account.id)
    started = refresh(account)
    assert started["roundId"] != dead and started["runningAlready"] is False
    assert finished(account, started["roundId"])["status"] == "done"
    with transaction(service.sessions, write=False) as db:
        old = db.get(MetricRound, dead)
        assert old is not None and old.status == "failed" and old.finished_at is not None
    assert account.get(f"/api/posts/{record_id}/metrics").json()["series"]  # type: ignore[attr-defined]


def test_a_live_round_is_renewed_and_never_taken_for_abandoned(service: Service) -> None:
    """Its heartbeat keeps the lease ahead of the clock, however long the round runs."""
    account = service.account()
    published(account, Platform.MICROBLOG)
    runner = runner_of(service.client.app)
    service.settings.sandbox.sandbox_latency_ms = 1500
    started = refresh(account)
    with transaction(service.sessions) as db:  # as if its last beat were long ago
        lease = db.get(PeriodicLease, round_lease(started["roundId"]))
        assert lease is not None
        lease.expires_at = utcnow() + timedelta(milliseconds=200)
    runner.renew()
    time.sleep(0.3)
    assert refresh(account)["roundId"] == started["roundId"], "still its process's"
    service.settings.sandbox.sandbox_latency_ms = 0
    assert finished(account, started["roundId"])["status"] == "done"


def test_a_stalled_round_found_abandoned_stops_and_stays_failed(service: Service) -> None:
    account = service.account()
    connection = account.connect(Platform.MICROBLOG.value)
    for n in range(3):
        published(account, Platform.MICROBLOG, connection_id=connection, text=f"post {n}")
    runner = runner_of(service.client.app)
    service.settings.sandbox.sandbox_latency_ms = 2000
    started = refresh(account)
    round_id = started["roundId"]
    time.sleep(0.5)  # in its first read, its lease renewed as it began it
    with transaction(service.sessions) as db:  # its process stalled past its lease
        lease = db.get(PeriodicLease, round_lease(round_id))
        assert lease is not None
        lease.expires_at = utcnow() - timedelta(seconds=1)
    again = refresh(account)
    assert again["roundId"] != round_id and again["runningAlready"] is False
    runner.renew()  # its next beat finds its lease gone
    service.settings.sandbox.sandbox_latency_ms = 0
    assert finished(account, again["roundId"])["status"] == "done"
    deadline = time.monotonic() + 30
    while round_id in runner.held:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    found = account.get(f"/api/posts/metrics/rounds/{round_id}").json()["round"]  # type: ignore[attr-defined]
    assert found["status"] == "failed", found
    assert found["networks"] == {}, "stopped before it could count a network"


def round_of(base_url: str, key: str, round_id: str) -> dict[str, Any]:
    answer = httpx.get(
        f"{base_url}/api/posts/metrics/rounds/{round_id}", headers={"X-API-Key": key}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()["round"]
    return found


def test_a_round_whose_process_is_killed_is_failed_and_a_new_one_runs(
    database_url: str, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    key, connection_id = account_with_connection(database_url)
    headers = {"X-API-Key": key}
    with live_service(
        data_dir, database_url, PRESSROOM_SANDBOX_LATENCY_MS="1500", **LIVE
    ) as service:
        path = "/api/v2/microblog/publish"
        for n in range(2):
            response = httpx.post(
                f"{service.base_url}{path}",
                json={"connectionId": connection_id, "text": f"measured {n}"},
                headers=headers,
                timeout=60,
            )
            assert response.status_code == 200, response.text
        started = httpx.post(
            f"{service.base_url}/api/posts/metrics/refresh", headers=headers, timeout=30
        )
        assert started.status_code == 202, started.text
        round_id = started.json()["round"]["roundId"]
        time.sleep(0.5)  # the round is asking the network (1.5 s a read)
        assert round_of(service.base_url, key, round_id)["status"] == "running"
        service.kill()

    engine = make_engine(database_url)
    try:
        with transaction(make_session_factory(engine), write=False) as db:
            left = db.get(MetricRound, round_id)
            assert left is not None and left.status == "running", "killed mid-round"
    finally:
        engine.dispose()

    with live_service(data_dir, database_url, **LIVE) as service:
        deadline = time.monotonic() + 10 * LEASE_SECONDS
        while (found := round_of(service.base_url, key, round_id))["status"] == "running":
            assert time.monotonic() < deadline, "the dead process's round stayed running"
            time.sleep(0.2)
        assert found["status"] == "failed" and found["finishedAt"] is not None, found
        again = httpx.post(
            f"{service.base_url}/api/posts/metrics/refresh", headers=headers, timeout=30
        )
        assert again.status_code == 202, again.text
        new = again.json()["round"]
        assert new["roundId"] != round_id and new["runningAlready"] is False
        deadline = time.monotonic() + 30
        while (done := round_of(service.base_url, key, new["roundId"]))["status"] == "running":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert done["status"] == "done"
        assert done["networks"]["microblog"]["refreshed"] == 2, done
