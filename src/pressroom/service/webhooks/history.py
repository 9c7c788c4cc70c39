"""The account's events for the retention period, and sending them again: what an
integrator recovers with after an outage of their receiver (``GET /api/events``,
``POST /api/events/{id}/redeliver``, ``POST /api/webhooks/{id}/redeliver``).

Every event is kept, subscribed to or not (``events.outbox``), until the retention purge
forgets it (``queue.purge``). A redelivery is a new delivery of the same event, so the
receiver sees the same ``webhook-id`` and can dedupe; it goes to the back of the
endpoint's queue. A disabled endpoint is refused (409 ``webhook_disabled``): its
deliveries would wait unseen until it is enabled, so enable it first.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.service.db.models import Account, WebhookDelivery, WebhookEndpoint, WebhookEvent
from pressroom.service.errors import ServiceError
from pressroom.service.events import outbox
from pressroom.service.events.outbox import PENDING
from pressroom.service.media.pagination import Page, Position, decode_cursor, encode_cursor
from pressroom.service.webhooks.service import DeliveryView, get


def list_events(
    db: Session,
    account: Account,
    *,
    event_type: str | None,
    since: datetime | None,
    until: datetime | None,
    limit: int,
    cursor: str | None,
) -> Page[WebhookEvent]:
    """The account's events, newest first; ``since`` inclusive, ``until`` exclusive."""
    query = select(WebhookEvent).where(WebhookEvent.account_id == account.id)
    if event_type is not None:
        query = query.where(WebhookEvent.type == event_type)
    if since is not None:
        query = query.where(WebhookEvent.created_at >= since)
    if until is not None:
        query = query.where(WebhookEvent.created_at < until)
    after = decode_cursor(cursor)
    if after is not None:
        query = query.where(
            or_(
                WebhookEvent.created_at < after.created_at,
                and_(WebhookEvent.created_at == after.created_at, WebhookEvent.id < after.id),
            )
        )
    rows = list(
        db.scalars(
            query.order_by(WebhookEvent.created_at.desc(), WebhookEvent.id.desc()).limit(limit + 1)
        )
    )
    items = rows[:limit]
    last = items[-1] if len(rows) > limit else None
    return Page(items, encode_cursor(Position(last.created_at, last.id)) if last else None)


def _enabled(db: Session, account: Account, webhook_id: str) -> WebhookEndpoint:
    endpoint = get(db, account, webhook_id)
    if not endpoint.enabled:
        raise ServiceError(
            error_codes.WEBHOOK_DISABLED,
            "The endpoint is disabled: enable it (PATCH with enabled: true), then redeliver; "
            "deliveries to a disabled endpoint would wait unseen.",
        )
    return endpoint


def redeliver_event(db: Session, account: Account, event_id: str, webhook_id: str) -> DeliveryView:
    """Queue the event to the endpoint anew, whether or not it subscribes to its type."""
    event = db.get(WebhookEvent, event_id)
    if event is None or event.account_id != account.id:
        raise ServiceError(error_codes.EVENT_NOT_FOUND, f"No event {event_id!r}.")
    endpoint = _enabled(db, account, webhook_id)
    delivery = outbox.delivery_of(event, endpoint.id)
    db.add(delivery)
    db.flush()
    return DeliveryView(delivery, event.type, [])


def redeliver_since(
    db: Session, account: Account, webhook_id: str, *, since: datetime, state: str
) -> int:
    """Queue anew, oldest first, every event with a delivery to the endpoint in ``state``
    made at or after ``since``; each event once, and none already waiting in its queue.
    How many were queued."""
    endpoint = _enabled(db, account, webhook_id)
    to_endpoint = WebhookDelivery.endpoint_id == endpoint.id
    waiting = select(WebhookDelivery.event_id).where(to_endpoint, WebhookDelivery.state == PENDING)
    first = (
        select(WebhookDelivery.event_id, func.min(WebhookDelivery.seq).label("first"))
        .where(
            to_endpoint,
            WebhookDelivery.state == state,
            WebhookDelivery.created_at >= since,
            WebhookDelivery.event_id.not_in(waiting),
        )
        .group_by(WebhookDelivery.event_id)
        .subquery()
    )
    events = db.execute(
        select(WebhookEvent.id, WebhookEvent.resource)
        .join(first, first.c.event_id == WebhookEvent.id)
        .order_by(first.c.first)
    ).all()
    for start in range(0, len(events), BATCH):
        db.add_all(
            outbox.delivery_for(event_id, resource, endpoint.id)
            for event_id, resource in events[start : start + BATCH]
        )
        db.flush()
    return len(events)


BATCH = 1000
"""Deliveries written per flush by a bulk redelivery."""
