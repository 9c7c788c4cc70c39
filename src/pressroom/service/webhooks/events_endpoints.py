"""Routes of the account's events: ``/api/events`` (our extension; the spec has none)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from pressroom import error_codes
from pressroom.service.deps import CurrentAccount, DbSession
from pressroom.service.errors import responses
from pressroom.service.events.catalog import EventType
from pressroom.service.media.pagination import DEFAULT_LIMIT, Cursor, Limit
from pressroom.service.routing import UnitOfWorkRoute
from pressroom.service.schemas import Instant
from pressroom.service.webhooks import history
from pressroom.service.webhooks.endpoints import delivery_out
from pressroom.service.webhooks.schemas import (
    DeliveryResponse,
    EventList,
    EventOut,
    RedeliverEvent,
)

router = APIRouter(prefix="/api/events", tags=["events"], route_class=UnitOfWorkRoute)

TypeFilter = Annotated[EventType | None, Query(alias="type", description="Only this type.")]
Since = Annotated[
    Instant | None,
    Query(description="Events at or after this moment (ISO 8601 with its offset)."),
]
Until = Annotated[
    Instant | None, Query(description="Events before this moment (ISO 8601 with its offset).")
]


@router.get("", response_model=EventList, responses=responses(error_codes.VALIDATION_ERROR))
def list_events(
    account: CurrentAccount,
    db: DbSession,
    event_type: TypeFilter = None,
    since: Since = None,
    until: Until = None,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> EventList:
    """Every event of the account for the retention period, newest first, whether an
    endpoint listened or not: what to recover from after a receiver's outage."""
    page = history.list_events(
        db,
        account,
        event_type=event_type.value if event_type is not None else None,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )
    return EventList(events=[EventOut.of(e) for e in page.items], next_cursor=page.next_cursor)


@router.post(
    "/{event_id}/redeliver",
    status_code=202,
    response_model=DeliveryResponse,
    responses=responses(
        error_codes.EVENT_NOT_FOUND,
        error_codes.WEBHOOK_NOT_FOUND,
        error_codes.WEBHOOK_DISABLED,
        error_codes.VALIDATION_ERROR,
    ),
)
def redeliver_event(
    event_id: str, body: RedeliverEvent, account: CurrentAccount, db: DbSession
) -> DeliveryResponse:
    """Queue the event to the endpoint anew (202), with the same `webhook-id`, whether or
    not the endpoint subscribes to its type; a disabled endpoint is refused (409)."""
    view = history.redeliver_event(db, account, event_id, body.webhook_id)
    return DeliveryResponse(delivery=delivery_out(view))
