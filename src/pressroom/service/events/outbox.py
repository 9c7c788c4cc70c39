"""Writing events: in the caller's transaction, with a delivery per subscribed endpoint.

The change and its event commit together or not at all; the deliveries are jobs from the
moment they commit, so a process killed right after the commit leaves them waiting for
the next dispatcher (``queue``), never lost. Every event is kept, listened to or not,
until the retention purge (``webhooks.queue.purge``) forgets it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, insert, select
from sqlalchemy.orm import Session

from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from pressroom.service.db.prepared import Link, Prepared
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
) -> str:
    """``emit_in`` inside a session's unit of work (after what it has pending); the
    event's id."""
    db.flush()  # the change before its event
    connection = db.connection()
    link = Link(connection.connection.driver_connection, connection.dialect)
    return emit_in(link, account_id, event_type, resource, data, only_endpoint=only_endpoint)


def emit_in(
    link: Link,
    account_id: str,
    event_type: EventType,
    resource: str,
    data: dict[str, Any],
    *,
    only_endpoint: str | None = None,
) -> str:
    """Record ``event_type`` about ``resource``, and a delivery of it for every enabled
    endpoint of the account that subscribed to it (or for ``only_endpoint``); the
    event's id.

    The event is kept even when no endpoint listens (none yet, or one disabled while its
    receiver is fixed): ``GET /api/events`` lists it, and it can be delivered later."""
    now = utcnow()
    event_id = new_id("evt")
    link.execute(
        _ADD_EVENT,
        id=event_id,
        account_id=account_id,
        type=event_type.value,
        resource=resource,
        data=data,
        created_at=now,
    )
    if only_endpoint is not None:
        listening = [
            row.id for row in link.rows(_ENDPOINT, account_id=account_id, endpoint_id=only_endpoint)
        ]
    else:
        listening = [
            row.id
            for row in link.rows(_LISTENING, account_id=account_id)
            if event_type.value in row.events
        ]
    for endpoint_id in listening:
        link.execute(_ADD_DELIVERY, **_new_delivery(event_id, resource, endpoint_id))
    return event_id


_ENDPOINTS = WebhookEndpoint.__table__
_ADD_EVENT = Prepared(
    insert(WebhookEvent).values(
        {c: bindparam(c) for c in ("id", "account_id", "type", "resource", "data", "created_at")}
    )
)
_ENABLED = (_ENDPOINTS.c.account_id == bindparam("account_id"), _ENDPOINTS.c.enabled.is_(True))
_LISTENING = Prepared(select(_ENDPOINTS.c.id, _ENDPOINTS.c.events).where(*_ENABLED))
_ENDPOINT = Prepared(
    select(_ENDPOINTS.c.id).where(*_ENABLED, _ENDPOINTS.c.id == bindparam("endpoint_id"))
)
_ADD_DELIVERY = Prepared(
    insert(WebhookDelivery).values(
        {
            c: bindparam(c)
            for c in (
                "id",
                "event_id",
                "endpoint_id",
                "resource",
                "state",
                "attempts",
                "next_attempt_at",
                "created_at",
            )
        }
    )
)


def delivery_of(event: WebhookEvent, endpoint_id: str) -> WebhookDelivery:
    return delivery_for(event.id, event.resource, endpoint_id)


def delivery_for(event_id: str, resource: str, endpoint_id: str) -> WebhookDelivery:
    return WebhookDelivery(**_new_delivery(event_id, resource, endpoint_id))


def _new_delivery(event_id: str, resource: str, endpoint_id: str) -> dict[str, Any]:
    """A new delivery of an event, due now, at the back of the endpoint's queue."""
    now = utcnow()
    return {
        "id": new_id("dlv"),
        "event_id": event_id,
        "endpoint_id": endpoint_id,
        "resource": resource,
        "state": PENDING,
        "attempts": 0,
        "next_attempt_at": now,
        "created_at": now,
    }


def body_of(event: WebhookEvent) -> dict[str, Any]:
    """What a receiver gets: the same for every attempt and every endpoint."""
    return {
        "id": event.id,
        "type": event.type,
        "timestamp": iso_utc(event.created_at),
        "accountId": event.account_id,
        "data": event.data,
    }
