"""The embedded default under a burst: publishes and upload requests at the same moment.

A correctness test, not a benchmark: the campaign pipeline sends uploads and publishes
together, so a single ``pressroom api`` on SQLite must take such a burst without a 500,
with back-pressure (``503 database_busy``) at worst, and with nothing lost or doubled.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from pressroom.error_codes import is_transient
from pressroom.plans import Plan
from pressroom.platforms import Platform
from pressroom.service.accounts.service import create_account
from pressroom.service.connections.service import NewConnection, connect
from pressroom.service.db.models import SandboxDelivery, UploadUsage
from pressroom.service.db.session import make_engine, make_session_factory, transaction
from tests.service.test_media_live import live_service

PUBLISHES = 60
PRESIGNS = 30
MAX_ATTEMPTS = 8


@dataclass
class Outcome:
    first_status: int
    statuses: list[int] = field(default_factory=list)
    body: dict[str, Any] = field(default_factory=dict)

    @property
    def final_status(self) -> int:
        return self.statuses[-1]


async def send_with_retries(
    client: httpx.AsyncClient, path: str, body: dict[str, Any], headers: dict[str, str]
) -> Outcome:
    """What a well-behaved client does: retry transient answers after Retry-After."""
    outcome: Outcome | None = None
    for _ in range(MAX_ATTEMPTS):
        response = await client.post(path, json=body, headers=headers)
        if outcome is None:
            outcome = Outcome(response.status_code)
        outcome.statuses.append(response.status_code)
        outcome.body = response.json()
        code = outcome.body.get("error", {}).get("code") if response.status_code >= 400 else None
        if not (response.status_code >= 400 and is_transient(response.status_code, code)):
            break
        await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
    assert outcome is not None
    return outcome


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_burst_of_publishes_and_presigns_on_the_embedded_default(
    database_url: str, tmp_path: Path
) -> None:
    engine = make_engine(database_url)
    sessions = make_session_factory(engine)
    with transaction(sessions) as db:
        account, key = create_account(db, email="burst@example.com", plan=Plan.AGENCY)
        connection_id = connect(
            db, account, NewConnection(platform=Platform.MICROBLOG, name="@burst")
        ).id

    def uploads_counted() -> int:
        with transaction(sessions, write=False) as db:
            used = db.scalar(
                select(func.coalesce(func.sum(UploadUsage.uploads), 0)).where(
                    UploadUsage.account_id == account.id
                )
            )
        return int(used or 0)

    counted_before = uploads_counted()
    with live_service(tmp_path / "data", database_url, PRESSROOM_SANDBOX_LATENCY_MS="200") as live:

        async def burst() -> tuple[list[Outcome], list[Outcome], list[str]]:
            async with httpx.AsyncClient(
                base_url=live.base_url,
                headers={"X-API-Key": key},
                timeout=120,
                limits=httpx.Limits(max_connections=PUBLISHES + PRESIGNS),
            ) as client:
                keys = [str(uuid.uuid4()) for _ in range(PUBLISHES)]
                publishes = [
                    send_with_retries(
                        client,
                        "/api/v2/microblog/publish",
                        {"connectionId": connection_id, "text": f"burst {i}"},
                        {"Idempotency-Key": keys[i]},
                    )
                    for i in range(PUBLISHES)
                ]
                presigns = [
                    send_with_retries(
                        client,
                        "/api/upload/presigned-url",
                        {"filename": f"burst-{i}.png", "contentType": "image/png"},
                        {},
                    )
                    for i in range(PRESIGNS)
                ]
                done = await asyncio.gather(*publishes, *presigns)
                return done[:PUBLISHES], done[PUBLISHES:], keys

        started = time.monotonic()
        published, presigned, keys = asyncio.run(burst())
        elapsed = time.monotonic() - started

        everything = published + presigned
        firsts = Counter(o.first_status for o in everything)
        every_status = Counter(s for o in everything for s in o.statuses)
        report = (
            f"first attempts {dict(firsts)}, all attempts {dict(every_status)}, {elapsed:.1f} s"
        )
        print(report)  # shown with -rP: the figures a reader of the run wants
        assert 500 not in every_status, report
        assert firsts[200] >= 80, report
        assert all(o.final_status == 200 for o in everything), report

        with httpx.Client(base_url=live.base_url, headers={"X-API-Key": key}) as client:
            for outcome, idempotency_key in zip(published, keys, strict=True):
                record = client.get(f"/api/posts/{outcome.body['recordId']}")
                assert record.status_code == 200, record.text
                post = record.json()["post"]
                assert post["status"] == "published"
                assert post["idempotencyKey"] == idempotency_key
                assert post["platformPostId"] == outcome.body["microblogPostId"]

    with transaction(sessions, write=False) as db:
        deliveries = db.scalar(
            select(func.count())
            .select_from(SandboxDelivery)
            .where(SandboxDelivery.connection_id == connection_id)
        )
    engine.dispose()
    assert deliveries == PUBLISHES
    assert uploads_counted() - counted_before == PRESIGNS
    assert len({o.body["fileId"] for o in presigned}) == PRESIGNS
