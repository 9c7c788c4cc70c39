"""Routes of webhook management: ``/api/webhooks`` (our extension; the spec has none)."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Query

from pressroom import error_codes
from pressroom.service.db.models import WebhookEndpoint
from pressroom.service.deps import AppSettings, CurrentAccount, DbSession
from pressroom.service.errors import responses
from pressroom.service.events.outbox import PENDING
from pressroom.service.oauth.vault import Vault
from pressroom.service.routing import UnitOfWorkRoute
from pressroom.service.webhooks import history, service
from pressroom.service.webhooks.dispatcher import policy_of
from pressroom.service.webhooks.schemas import (
    AttemptOut,
    Deleted,
    DeliveryList,
    DeliveryOut,
    DeliveryResponse,
    Redelivered,
    RedeliverSince,
    RotateSecret,
    WebhookCreate,
    WebhookList,
    WebhookOut,
    WebhookResponse,
    WebhookUpdate,
    WebhookWithSecret,
)

router = APIRouter(prefix="/api/webhooks", tags=["webhooks"], route_class=UnitOfWorkRoute)

NOT_FOUND = responses(error_codes.WEBHOOK_NOT_FOUND, error_codes.VALIDATION_ERROR)
DeliveryLimit = Annotated[int, Query(ge=1, le=200, description="Page size, 1 to 200.")]
DeliveryCursor = Annotated[
    str | None,
    Query(
        description="`nextCursor` of the previous page, unchanged; omit for the first.",
        pattern=r"^[0-9]{1,18}$",
    ),
]


def _out(endpoint: WebhookEndpoint) -> WebhookOut:
    return WebhookOut.of(endpoint, previous_secret_expires=service.previous_secret_signs(endpoint))


def delivery_out(view: service.DeliveryView) -> DeliveryOut:
    d = view.delivery
    return DeliveryOut(
        id=d.id,
        event_id=d.event_id,
        event_type=view.event_type,
        state=d.state,
        attempts=[
            AttemptOut(
                attempted_at=a.attempted_at,
                status=a.status,
                latency_ms=a.latency_ms,
                excerpt=a.excerpt,
            )
            for a in view.attempts
        ],
        next_attempt_at=d.next_attempt_at if d.state == PENDING else None,
        created_at=d.created_at,
        delivered_at=d.delivered_at,
    )


@router.get("", response_model=WebhookList, responses=responses())
def list_webhooks(account: CurrentAccount, db: DbSession) -> WebhookList:
    """The account's endpoints, newest first (at most 20, so one page)."""
    return WebhookList(webhooks=[_out(e) for e in service.list_endpoints(db, account)])


@router.post(
    "",
    status_code=201,
    response_model=WebhookWithSecret,
    responses=responses(error_codes.VALIDATION_ERROR, error_codes.WEBHOOK_LIMIT),
)
def create_webhook(
    body: WebhookCreate, account: CurrentAccount, db: DbSession, settings: AppSettings
) -> WebhookWithSecret:
    """A new endpoint (201), with its signing secret: shown now and never again."""
    made = service.create(
        db,
        account,
        Vault.from_settings(settings),
        policy_of(settings),
        url=body.url,
        events=body.events,
        description=body.description,
    )
    return WebhookWithSecret(webhook=_out(made.endpoint), secret=made.secret)


@router.get("/{webhook_id}", response_model=WebhookResponse, responses=NOT_FOUND)
def get_webhook(webhook_id: str, account: CurrentAccount, db: DbSession) -> WebhookResponse:
    return WebhookResponse(webhook=_out(service.get(db, account, webhook_id)))


@router.patch("/{webhook_id}", response_model=WebhookResponse, responses=NOT_FOUND)
def update_webhook(
    webhook_id: str,
    body: WebhookUpdate,
    account: CurrentAccount,
    db: DbSession,
    settings: AppSettings,
) -> WebhookResponse:
    """Change the URL, the events or the note; `enabled: true` enables a disabled endpoint."""
    endpoint = service.update(
        db,
        account,
        policy_of(settings),
        webhook_id,
        url=body.url,
        events=body.events,
        description=body.description,
        enabled=body.enabled,
    )
    return WebhookResponse(webhook=_out(endpoint))


@router.delete("/{webhook_id}", response_model=Deleted, responses=NOT_FOUND)
def delete_webhook(webhook_id: str, account: CurrentAccount, db: DbSession) -> Deleted:
    """The endpoint, its queue and its delivery log are gone; nothing more is sent."""
    service.delete(db, account, webhook_id)
    return Deleted(id=webhook_id)


@router.post("/{webhook_id}/rotate-secret", response_model=WebhookWithSecret, responses=NOT_FOUND)
def rotate_webhook_secret(
    webhook_id: str,
    account: CurrentAccount,
    db: DbSession,
    settings: AppSettings,
    body: RotateSecret | None = None,
) -> WebhookWithSecret:
    """A new secret; the old one keeps signing beside it for `graceSeconds` (a day)."""
    grace = timedelta(seconds=(body or RotateSecret()).grace_seconds)
    made = service.rotate_secret(db, account, Vault.from_settings(settings), webhook_id, grace)
    return WebhookWithSecret(webhook=_out(made.endpoint), secret=made.secret)


@router.post(
    "/{webhook_id}/test",
    status_code=202,
    response_model=DeliveryResponse,
    responses=responses(
        error_codes.WEBHOOK_NOT_FOUND, error_codes.WEBHOOK_DISABLED, error_codes.VALIDATION_ERROR
    ),
)
def test_webhook(webhook_id: str, account: CurrentAccount, db: DbSession) -> DeliveryResponse:
    """Queue a `webhook.test` event to this endpoint alone (202); its delivery is returned."""
    delivery = service.send_test(db, account, webhook_id)
    return DeliveryResponse(
        delivery=delivery_out(service.DeliveryView(delivery, "webhook.test", []))
    )


@router.get("/{webhook_id}/deliveries", response_model=DeliveryList, responses=NOT_FOUND)
def list_deliveries(
    webhook_id: str,
    account: CurrentAccount,
    db: DbSession,
    limit: DeliveryLimit = 50,
    cursor: DeliveryCursor = None,
) -> DeliveryList:
    """The delivery log, newest first: each event's state and every attempt's status,
    latency and answer excerpt."""
    views, after = service.deliveries(
        db, account, webhook_id, limit=limit, before=int(cursor) if cursor else None
    )
    return DeliveryList(
        deliveries=[delivery_out(v) for v in views],
        next_cursor=str(after) if after is not None else None,
    )


@router.post(
    "/{webhook_id}/deliveries/{delivery_id}/redeliver",
    status_code=202,
    response_model=DeliveryResponse,
    responses=responses(
        error_codes.WEBHOOK_NOT_FOUND,
        error_codes.DELIVERY_NOT_FOUND,
        error_codes.VALIDATION_ERROR,
    ),
)
def redeliver(
    webhook_id: str, delivery_id: str, account: CurrentAccount, db: DbSession
) -> DeliveryResponse:
    """Send the delivery's event again (same `webhook-id`), after what is queued (202)."""
    return DeliveryResponse(
        delivery=delivery_out(service.redeliver(db, account, webhook_id, delivery_id))
    )


@router.post(
    "/{webhook_id}/redeliver",
    status_code=202,
    response_model=Redelivered,
    responses=responses(
        error_codes.WEBHOOK_NOT_FOUND, error_codes.WEBHOOK_DISABLED, error_codes.VALIDATION_ERROR
    ),
)
def redeliver_since(
    webhook_id: str, body: RedeliverSince, account: CurrentAccount, db: DbSession
) -> Redelivered:
    """Queue anew, in bulk and oldest first, every event whose delivery to this endpoint
    is in `state` (`failed` by default) and was made at or after `since`: each event once,
    none already waiting (202, with how many). A disabled endpoint is refused (409):
    enable it first."""
    queued = history.redeliver_since(db, account, webhook_id, since=body.since, state=body.state)
    return Redelivered(queued=queued)
