"""Writing events: in the caller's transaction, with a delivery per subscribed endpoint.

The change and its event commit together or not at all; the deliveries are jobs from the
moment they commit, so a process killed right after the commit leaves them waiting for
the next dispatcher (``queue``), never lost. Every event is kept, listened to or not,
until the retention purge (``webhooks.queue.purge``) forgets it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from pressroom.service.events.catalog import EventType
from pressroom.service.schemas import iso_utc

PENDING = "pending"
DELIVERED = "delivered"
FAILED = "failed"


def emit(
    db: Session,
    account_id: str,
    event_type: EventType,
    resource: str,
    data: dict[str, Any],
    *,
    only_endpoint: str | None = None,
) -> WebhookEvent:
    """Record ``event_type`` about ``resource``, and a delivery of it for every enabled
    endpoint of the account that subscribed to it (or for ``only_endpoint``).

    The event is kept even when no endpoint listens (none yet, or one disabled while its
    receiver is fixed): ``GET /api/events`` lists it, and it can be delivered later."""
    now = utcnow()
    event = WebhookEvent(
        id=new_id("evt"),
        account_id=account_id,
        type=event_type.value,
        resource=resource,
        data=data,
        created_at=now,
    )
    db.add(event)
    query = select(WebhookEndpoint.id, WebhookEndpoint.events).where(
        WebhookEndpoint.account_id == account_id, WebhookEndpoint.enabled.is_(True)
    )
    if only_endpoint is not None:
        query = query.where(WebhookEndpoint.id == only_endpoint)
    listening = [
        endpoint_id
        for endpoint_id, events in db.execute(query)
        if only_endpoint is not None or event_type.value in events
    ]
    db.flush()  # the event row before the deliveries that point at it
    if listening:
        db.add_all(delivery_of(event, endpoint_id) for endpoint_id in listening)
        db.flush()
    return event


def delivery_of(event: WebhookEvent, endpoint_id: str) -> WebhookDelivery:
    return delivery_for(event.id, event.resource, endpoint_id)


def delivery_for(event_id: str, resource: str, endpoint_id: str) -> WebhookDelivery:
    """A new delivery of an event, due now, at the back of the endpoint's queue."""
    now = utcnow()
    return WebhookDelivery(
        id=new_id("dlv"),
        event_id=event_id,
        endpoint_id=endpoint_id,
        resource=resource,
        state=PENDING,
        attempts=0,
        next_attempt_at=now,
        created_at=now,
    )


def body_of(event: WebhookEvent) -> dict[str, Any]:
    """What a receiver gets: the same for every attempt and every endpoint."""
    return {
        "id": event.id,
        "type": event.type,
        "timestamp": iso_utc(event.created_at),
        "accountId": event.account_id,
        "data": event.data,
    }
