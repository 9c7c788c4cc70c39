"""A thread whose service process is killed mid-thread: the retry with the key, on a
restarted service, sends every part exactly once, each replying to the one before.

A real ``pressroom api`` process (``kill -9`` does not exist inside a test client),
the sandbox's post record read from the database as the network's side of the story.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from pressroom.plans import Plan
from pressroom.platforms import RULES, Platform
from pressroom.service.accounts.service import create_account
from pressroom.service.connections.service import NewConnection, connect
from pressroom.service.db.models import SandboxDelivery
from pressroom.service.db.session import make_engine, make_session_factory, transaction
from tests.service.test_media_live import live_service

PARTS = 5
KILLED_AFTER = 2
"""Parts delivered when the process is killed (counted from 1)."""
LIVE = {
    # Most networks take no client token: a part sent twice must show, not hide.
    "PRESSROOM_SANDBOX_DEDUPE": "0",
    # A killed process's claim is given up after four missed beats: 2 s here.
    "PRESSROOM_PROCESS_HEARTBEAT_SECONDS": "0.5",
}


def account_with_connection(database_url: str) -> tuple[str, str]:
    """An API key and a microblog connection of its account."""
    engine = make_engine(database_url)
    try:
        with transaction(make_session_factory(engine)) as db:
            account, key = create_account(
                db, email=f"thread-{time.time_ns()}@example.com", plan=Plan.AGENCY
            )
            made = connect(
                db, account, NewConnection(platform=Platform.MICROBLOG, name="@killed_mid_thread")
            )
            return key, made.id
    finally:
        engine.dispose()


def delivered(database_url: str) -> list[SandboxDelivery]:
    engine = make_engine(database_url)
    try:
        with transaction(make_session_factory(engine), write=False) as db:
            return list(
                db.scalars(
                    select(SandboxDelivery)
                    .where(SandboxDelivery.kind == "post")
                    .order_by(SandboxDelivery.id)
                )
            )
    finally:
        engine.dispose()


def test_a_thread_killed_after_part_two_resumes_and_sends_each_part_once(
    database_url: str, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    path = RULES[Platform.MICROBLOG].publish_path
    with live_service(
        data_dir, database_url, PRESSROOM_SANDBOX_LATENCY_MS="400", **LIVE
    ) as service:
        key, connection_id = account_with_connection(database_url)
        body = {
            "connectionId": connection_id,
            "text": "part 1",
            "thread": [{"text": f"part {n}"} for n in range(2, PARTS + 1)],
        }
        headers = {"X-API-Key": key, "Idempotency-Key": "killed-thread"}
        cut_off: list[BaseException] = []

        def send() -> None:
            try:
                httpx.post(f"{service.base_url}{path}", json=body, headers=headers, timeout=60)
            except httpx.TransportError as exc:  # the process died under the request
                cut_off.append(exc)

        request = threading.Thread(target=send)
        request.start()
        deadline = time.monotonic() + 60
        while len(delivered(database_url)) < KILLED_AFTER:
            assert request.is_alive(), "the thread was answered before it could be killed"
            assert time.monotonic() < deadline, "the thread never reached part 2"
            time.sleep(0.02)
        service.kill()
        request.join(30)
        assert cut_off, "the request was answered: the kill came too late"
    killed_at = len(delivered(database_url))
    assert killed_at == KILLED_AFTER, killed_at

    with live_service(data_dir, database_url, **LIVE) as service:
        deadline = time.monotonic() + 60
        while True:  # as a client does: retry while the dead process's claim stands
            response = httpx.post(
                f"{service.base_url}{path}", json=body, headers=headers, timeout=60
            )
            in_progress = response.status_code == 409 and (
                response.json()["error"]["code"] == "idempotency_request_in_progress"
            )
            if not in_progress or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()

    sent = delivered(database_url)
    assert [d.payload["fields"]["text"] for d in sent] == [f"part {n}" for n in range(1, PARTS + 1)]
    assert [d.payload["replyTo"] for d in sent] == [None] + [d.platform_post_id for d in sent[:-1]]
    assert [(p["index"], p["platformPostId"], p["status"]) for p in result["parts"]] == [
        (i, d.platform_post_id, "published") for i, d in enumerate(sent)
    ]
