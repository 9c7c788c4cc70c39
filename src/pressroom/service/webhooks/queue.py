"""Deliveries as durable jobs, claimed under a lease like media jobs (``media.jobs``).

- First in, first out per (endpoint, resource): a delivery is claimable only when no
  earlier one to the same endpoint about the same resource is still pending, so a
  receiver sees ``post.unknown`` before ``post.resolved``, whatever the retries.
- The claim takes the lease and counts the attempt; on PostgreSQL ``FOR UPDATE SKIP
  LOCKED`` lets senders pass each other's rows, on SQLite the conditional ``UPDATE`` is
  a single claimer. A sender that dies mid-send loses the delivery to another once its
  lease runs out: the receiver may then get it twice, with one ``webhook-id``. A live
  sender never does: its attempt ends by a deadline shorter than the lease.
- An endpoint has at most ``per_endpoint`` deliveries in flight (claimed, lease alive),
  counted in the claim itself while claims for that endpoint take turns on its row, so
  the cap holds across processes; an endpoint at its cap is passed over.
- A failed attempt waits ``base × 2^(attempts-1)`` seconds (at most the maximum, ±20 %
  jitter, never less than the receiver's ``Retry-After``); once the retry period since
  the event has passed, the delivery is given up and its endpoint disabled with a reason.
- Events nothing is left to send for are forgotten after ``PRESSROOM_WEBHOOK_RETENTION_DAYS``
  (``purge``, run hourly by one process), so the outbox and the log stay bounded.
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, delete, exists, func, or_, select, update
from sqlalchemy.orm import Session, aliased, sessionmaker

from pressroom.service.db.base import utcnow
from pressroom.service.db.models import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from pressroom.service.db.session import transaction
from pressroom.service.events.outbox import DELIVERED, FAILED, PENDING

EXCERPT_CHARS = 500


def printable(text: str) -> str:
    """``text`` as it may be stored and shown: control characters (NUL above all, which
    PostgreSQL's text refuses) and lone surrogates (no UTF-8 holds them) become U+FFFD;
    tabs and line breaks stay."""
    return "".join(
        c if c in "\t\n\r" or unicodedata.category(c) not in _UNPRINTABLE else "\ufffd"
        for c in text
    )


_UNPRINTABLE = frozenset({"Cc", "Cs"})


def excerpt_of(raw: bytes) -> str:
    """The start of an answer's raw bytes as text: UTF-8 where it is, U+FFFD elsewhere."""
    return printable(raw.decode("utf-8", errors="replace"))[:EXCERPT_CHARS]


@dataclass(frozen=True)
class Schedule:
    base: timedelta
    max_delay: timedelta
    period: timedelta

    def delay(self, attempts: int, retry_after: float | None) -> timedelta:
        doublings = min(max(attempts - 1, 0), 40)  # past the maximum long before that
        step = self.base * float(2**doublings)
        wait: timedelta = min(step, self.max_delay) * random.uniform(0.8, 1.2)
        if retry_after is not None:  # the receiver's wish wins, within the retry period
            wait = max(wait, min(timedelta(seconds=retry_after), self.period))
        return wait


@dataclass(frozen=True)
class Claimed:
    delivery_id: str
    event: WebhookEvent
    endpoint: WebhookEndpoint


@dataclass(frozen=True)
class Attempt:
    status: int | None
    latency_ms: int
    excerpt: str
    retry_after: float | None = None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def claim(
    sessions: sessionmaker[Session],
    owner: str,
    lease: timedelta,
    *,
    per_endpoint: int | None = None,
) -> Claimed | None:
    """Claim the oldest due delivery whose turn it is; None when there is none.

    ``per_endpoint`` caps the deliveries in flight (claimed under a live lease) to one
    endpoint, across every process: an endpoint at its cap is passed over, so its backlog
    neither waits in a sender nor stands in front of other endpoints' deliveries.
    """
    for _ in range(CLAIM_TRIES):
        now = utcnow()
        with transaction(sessions, write=False) as db:
            # Idle senders only read: on SQLite a write transaction per poll would queue
            # every request's writes behind the senders.
            found = db.execute(
                _due(now, per_endpoint, WebhookDelivery.endpoint_id).limit(1)
            ).first()
        if found is None:
            return None
        claimed = _take(sessions, owner, lease, found.endpoint_id, per_endpoint)
        if claimed is not None:
            return claimed
    return None  # lost every race to other senders: the caller looks again soon


CLAIM_TRIES = 3
"""Candidates one claim tries before giving up to other senders until its next look."""


def _in_flight(endpoint_id: Any, now: datetime) -> Any:
    """How many deliveries to the endpoint are being sent now (claimed, lease alive)."""
    busy = aliased(WebhookDelivery)
    return (
        select(func.count())
        .select_from(busy)
        .where(
            busy.endpoint_id == endpoint_id,
            busy.state == PENDING,
            busy.claimed_by.is_not(None),
            busy.lease_expires_at >= now,
        )
        .scalar_subquery()
    )


def _free(now: datetime) -> Any:
    return or_(WebhookDelivery.claimed_by.is_(None), WebhookDelivery.lease_expires_at < now)


def _due(now: datetime, per_endpoint: int | None, *columns: Any) -> Select[Any]:
    """Due deliveries whose turn it is, oldest first (``columns`` of each)."""
    earlier = aliased(WebhookDelivery)
    waiting_behind = exists().where(
        earlier.endpoint_id == WebhookDelivery.endpoint_id,
        earlier.resource == WebhookDelivery.resource,
        earlier.state == PENDING,
        earlier.seq < WebhookDelivery.seq,
    )
    query = (
        select(*columns)
        .select_from(WebhookDelivery)
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .where(
            WebhookDelivery.state == PENDING,
            WebhookDelivery.next_attempt_at <= now,
            WebhookEndpoint.enabled.is_(True),
            _free(now),
            ~waiting_behind,
        )
        .order_by(WebhookDelivery.seq)
    )
    if per_endpoint is not None:
        query = query.where(_in_flight(WebhookDelivery.endpoint_id, now) < per_endpoint)
    return query


def _take(
    sessions: sessionmaker[Session],
    owner: str,
    lease: timedelta,
    endpoint_id: str,
    per_endpoint: int | None,
) -> Claimed | None:
    """Claim the endpoint's next due delivery if it is under its cap; None if another
    sender took it (or filled the cap) first."""
    now = utcnow()
    with transaction(sessions) as db:
        # Claims for one endpoint take turns on its row (PostgreSQL; SQLite has one writer
        # anyway), so the count below sees every claim committed before: two processes
        # can never both take the last free place. NO KEY UPDATE leaves the key-share
        # locks of transactions queueing new deliveries to it alone.
        locked = db.scalar(
            select(WebhookEndpoint.id)
            .where(WebhookEndpoint.id == endpoint_id, WebhookEndpoint.enabled.is_(True))
            .with_for_update(key_share=True)
        )
        if locked is None:
            return None
        next_one = (
            _due(now, None, WebhookDelivery.seq)
            .where(WebhookDelivery.endpoint_id == endpoint_id)
            .limit(1)
            .with_for_update(skip_locked=True, of=WebhookDelivery)
            .scalar_subquery()
        )
        conditions = [WebhookDelivery.seq == next_one, WebhookDelivery.state == PENDING, _free(now)]
        if per_endpoint is not None:
            conditions.append(_in_flight(endpoint_id, now) < per_endpoint)
        delivery_id = db.execute(
            update(WebhookDelivery)
            .where(*conditions)
            .values(
                claimed_by=owner,
                lease_expires_at=now + lease,
                attempts=WebhookDelivery.attempts + 1,
            )
            .returning(WebhookDelivery.id)
            .execution_options(synchronize_session=False)
        ).scalar_one_or_none()
        if delivery_id is None:
            return None
        delivery = db.scalar(select(WebhookDelivery).where(WebhookDelivery.id == delivery_id))
        assert delivery is not None
        event = db.get(WebhookEvent, delivery.event_id)
        endpoint = db.get(WebhookEndpoint, delivery.endpoint_id)
        assert event is not None and endpoint is not None
        db.expunge_all()
    return Claimed(delivery_id, event, endpoint)


def finish(
    sessions: sessionmaker[Session],
    delivery_id: str,
    owner: str,
    attempt: Attempt,
    schedule: Schedule,
) -> str:
    """Record the attempt and decide what comes next; the delivery's new state."""
    now = utcnow()
    with transaction(sessions) as db:
        delivery = db.scalar(
            select(WebhookDelivery).where(
                WebhookDelivery.id == delivery_id, WebhookDelivery.claimed_by == owner
            )
        )
        if delivery is None:  # our lease ran out and another sender has it now
            return PENDING
        excerpt = printable(attempt.excerpt[:EXCERPT_CHARS])  # errors' texts too
        db.add(
            WebhookAttempt(
                delivery_id=delivery_id,
                attempted_at=now,
                status=attempt.status,
                latency_ms=attempt.latency_ms,
                excerpt=excerpt,
            )
        )
        delivery.claimed_by = None
        delivery.lease_expires_at = None
        delivery.last_status = attempt.status
        if attempt.ok:
            delivery.state = DELIVERED
            delivery.delivered_at = now
            delivery.last_error = None
            return DELIVERED
        delivery.last_error = excerpt or None
        if now - delivery.created_at >= schedule.period:
            delivery.state = FAILED
            reason = reason_for(delivery, attempt.status, excerpt, schedule.period)
            disable(db, delivery.endpoint_id, reason)
            return FAILED
        delivery.next_attempt_at = now + schedule.delay(delivery.attempts, attempt.retry_after)
        return PENDING


def reason_for(
    delivery: WebhookDelivery, status: int | None, excerpt: str, period: timedelta
) -> str:
    answer = f"HTTP {status}" if status is not None else excerpt[:200]
    return (
        f"deliveries kept failing for {_span(period)} ({delivery.attempts} attempts at "
        f"event {delivery.event_id}; last: {answer}); fix the receiver, then enable the "
        "endpoint again"
    )


def _span(period: timedelta) -> str:
    seconds = period.total_seconds()
    if seconds >= 3600:
        return f"{seconds / 3600:g} h"
    return f"{seconds:g} s"


def disable(db: Session, endpoint_id: str, reason: str) -> None:
    db.execute(
        update(WebhookEndpoint)
        .where(WebhookEndpoint.id == endpoint_id, WebhookEndpoint.enabled.is_(True))
        .values(enabled=False, disabled_reason=reason[:500], updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )


def put_back(sessions: sessionmaker[Session], owner: str) -> None:
    """A clean stop: what this process holds is due again at once, for another sender."""
    with transaction(sessions) as db:
        db.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.claimed_by == owner, WebhookDelivery.state == PENDING)
            .values(claimed_by=None, lease_expires_at=None, next_attempt_at=utcnow())
            .execution_options(synchronize_session=False)
        )


def purge(sessions: sessionmaker[Session], older_than: datetime) -> int:
    """Forget events from before ``older_than`` that have nothing left to send, with their
    deliveries and attempts (cascade); how many events went. Pending ones stay."""
    still_to_send = exists().where(
        WebhookDelivery.event_id == WebhookEvent.id, WebhookDelivery.state == PENDING
    )
    with transaction(sessions) as db:
        result = db.execute(
            delete(WebhookEvent)
            .where(WebhookEvent.created_at < older_than, ~still_to_send)
            .execution_options(synchronize_session=False)
        )
    return int(getattr(result, "rowcount", 0))


def pending(sessions: sessionmaker[Session]) -> list[tuple[str, str, int, datetime]]:
    """Undelivered deliveries: (delivery id, event id, attempts, next attempt), in order."""
    with transaction(sessions, write=False) as db:
        return [
            (row.id, row.event_id, row.attempts, row.next_attempt_at)
            for row in db.execute(
                select(
                    WebhookDelivery.id,
                    WebhookDelivery.event_id,
                    WebhookDelivery.attempts,
                    WebhookDelivery.next_attempt_at,
                )
                .where(WebhookDelivery.state == PENDING)
                .order_by(WebhookDelivery.seq)
            )
        ]
