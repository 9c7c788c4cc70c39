"""Managing an account's webhook endpoints: the rules, shared by the API and the dashboard."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import (
    Account,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from pressroom.service.errors import ServiceError
from pressroom.service.events import outbox
from pressroom.service.events.catalog import BY_DEFAULT, SUBSCRIBABLE, EventType
from pressroom.service.oauth.vault import Vault
from pressroom.service.webhooks import signing
from pressroom.service.webhooks.targets import TargetPolicy, TargetRefused

MAX_ENDPOINTS = 20
"""Per account: each event is written once per subscribed endpoint."""


@dataclass(frozen=True)
class Made:
    endpoint: WebhookEndpoint
    secret: str
    """In clear, for the one answer that shows it."""


def check_url(policy: TargetPolicy, url: str) -> str:
    try:
        return policy.check_url(url.strip())
    except TargetRefused as exc:
        raise ServiceError(error_codes.VALIDATION_ERROR, f"url: {exc}.", field="url") from exc


def check_events(events: list[str] | None) -> list[str]:
    if events is None:
        return list(BY_DEFAULT)
    if not events:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "events: name at least one event type, or leave the field out for all those on "
            "by default.",
            field="events",
        )
    unknown = [e for e in events if e not in SUBSCRIBABLE]
    if unknown:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"events: {unknown[0]!r} is not an event type; use any of {', '.join(SUBSCRIBABLE)}.",
            field="events",
        )
    return list(dict.fromkeys(events))


def create(
    db: Session,
    account: Account,
    vault: Vault,
    policy: TargetPolicy,
    *,
    url: str,
    events: list[str] | None,
    description: str,
) -> Made:
    url = check_url(policy, url)
    chosen = check_events(events)
    count = db.scalar(
        select(func.count())
        .select_from(WebhookEndpoint)
        .where(WebhookEndpoint.account_id == account.id)
    )
    if (count or 0) >= MAX_ENDPOINTS:
        raise ServiceError(
            error_codes.WEBHOOK_LIMIT,
            f"An account has at most {MAX_ENDPOINTS} webhook endpoints; delete one first.",
        )
    secret = signing.new_secret()
    now = utcnow()
    endpoint = WebhookEndpoint(
        id=new_id("whk"),
        account_id=account.id,
        url=url,
        description=description,
        events=chosen,
        secret=vault.encrypt(secret),
        enabled=True,
        created_at=now,
        updated_at=now,
    )
    db.add(endpoint)
    db.flush()
    return Made(endpoint, secret)


def list_endpoints(db: Session, account: Account) -> list[WebhookEndpoint]:
    return list(
        db.scalars(
            select(WebhookEndpoint)
            .where(WebhookEndpoint.account_id == account.id)
            .order_by(WebhookEndpoint.created_at.desc(), WebhookEndpoint.id)
        )
    )


def get(db: Session, account: Account, endpoint_id: str) -> WebhookEndpoint:
    endpoint = db.get(WebhookEndpoint, endpoint_id)
    if endpoint is None or endpoint.account_id != account.id:
        raise ServiceError(error_codes.WEBHOOK_NOT_FOUND, f"No webhook endpoint {endpoint_id!r}.")
    return endpoint


def update(
    db: Session,
    account: Account,
    policy: TargetPolicy,
    endpoint_id: str,
    *,
    url: str | None = None,
    events: list[str] | None = None,
    description: str | None = None,
    enabled: bool | None = None,
) -> WebhookEndpoint:
    endpoint = get(db, account, endpoint_id)
    if url is not None:
        endpoint.url = check_url(policy, url)
    if events is not None:
        endpoint.events = check_events(events)
    if description is not None:
        endpoint.description = description
    if enabled is not None:
        endpoint.enabled = enabled
        if enabled:
            endpoint.disabled_reason = None
    endpoint.updated_at = utcnow()
    db.flush()
    return endpoint


def rotate_secret(
    db: Session, account: Account, vault: Vault, endpoint_id: str, grace: timedelta
) -> Made:
    """A new secret signs from now on; the old one signs beside it for ``grace``."""
    endpoint = get(db, account, endpoint_id)
    secret = signing.new_secret()
    now = utcnow()
    if grace > timedelta(0):
        endpoint.previous_secret = endpoint.secret
        endpoint.previous_secret_until = now + grace
    else:
        endpoint.previous_secret = None
        endpoint.previous_secret_until = None
    endpoint.secret = vault.encrypt(secret)
    endpoint.updated_at = now
    db.flush()
    return Made(endpoint, secret)


def previous_secret_signs(endpoint: WebhookEndpoint) -> bool:
    until = endpoint.previous_secret_until
    return endpoint.previous_secret is not None and until is not None and until > utcnow()


def delete(db: Session, account: Account, endpoint_id: str) -> None:
    """The endpoint goes, with its queue and log: nothing more is sent to it."""
    db.delete(get(db, account, endpoint_id))
    db.flush()


def send_test(db: Session, account: Account, endpoint_id: str) -> WebhookDelivery:
    endpoint = get(db, account, endpoint_id)
    if not endpoint.enabled:
        raise ServiceError(
            error_codes.WEBHOOK_DISABLED,
            "The endpoint is disabled: enable it (PATCH with enabled: true) before testing it.",
        )
    event_id = outbox.emit(
        db,
        account.id,
        EventType.WEBHOOK_TEST,
        f"webhook:{endpoint.id}",
        {"endpointId": endpoint.id, "message": "A test event from pressroom."},
        only_endpoint=endpoint.id,
    )
    delivery = db.scalar(select(WebhookDelivery).where(WebhookDelivery.event_id == event_id))
    assert delivery is not None
    return delivery


@dataclass(frozen=True)
class DeliveryView:
    delivery: WebhookDelivery
    event_type: str
    attempts: list[WebhookAttempt]


def deliveries(
    db: Session,
    account: Account,
    endpoint_id: str,
    *,
    limit: int,
    before: int | None,
    state: str | None = None,
    event_type: str | None = None,
) -> tuple[list[DeliveryView], int | None]:
    """The endpoint's deliveries, newest first, with their attempts; and the next cursor.
    ``state`` and ``event_type`` keep only the deliveries in that state, of that type."""
    endpoint = get(db, account, endpoint_id)
    query = (
        select(WebhookDelivery, WebhookEvent.type)
        .join(WebhookEvent, WebhookEvent.id == WebhookDelivery.event_id)
        .where(WebhookDelivery.endpoint_id == endpoint.id)
        .order_by(WebhookDelivery.seq.desc())
        .limit(limit + 1)
    )
    if before is not None:
        query = query.where(WebhookDelivery.seq < before)
    if state is not None:
        query = query.where(WebhookDelivery.state == state)
    if event_type is not None:
        query = query.where(WebhookEvent.type == event_type)
    rows = list(db.execute(query).tuples())
    more = len(rows) > limit
    rows = rows[:limit]
    ids = [d.id for d, _ in rows]
    attempts: dict[str, list[WebhookAttempt]] = {i: [] for i in ids}
    if ids:
        for attempt in db.scalars(
            select(WebhookAttempt)
            .where(WebhookAttempt.delivery_id.in_(ids))
            .order_by(WebhookAttempt.id)
        ):
            attempts[attempt.delivery_id].append(attempt)
    views = [DeliveryView(d, kind, attempts[d.id]) for d, kind in rows]
    return views, (rows[-1][0].seq if more else None)


def redeliver(db: Session, account: Account, endpoint_id: str, delivery_id: str) -> DeliveryView:
    """The same event (same ``webhook-id``) once more, at the back of the endpoint's queue."""
    endpoint = get(db, account, endpoint_id)
    earlier = db.scalar(
        select(WebhookDelivery).where(
            WebhookDelivery.id == delivery_id, WebhookDelivery.endpoint_id == endpoint.id
        )
    )
    if earlier is None:
        raise ServiceError(
            error_codes.DELIVERY_NOT_FOUND, f"No delivery {delivery_id!r} to this endpoint."
        )
    event = db.get(WebhookEvent, earlier.event_id)
    assert event is not None
    again = outbox.delivery_of(event, endpoint.id)
    db.add(again)
    db.flush()
    return DeliveryView(again, event.type, [])
