"""Settings, Webhooks: endpoints, their secrets (shown once), tests and delivery logs.

The same rules as ``/api/webhooks`` (``webhooks.service``); a refused form is shown again
with the rule it broke beside its field.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import RedirectResponse

from pressroom.service.deps import AppSettings, DbSession
from pressroom.service.errors import ServiceError
from pressroom.service.events.catalog import BY_DEFAULT, DESCRIPTIONS, SUBSCRIBABLE, EventType
from pressroom.service.events.outbox import DELIVERED, FAILED, PENDING
from pressroom.service.oauth.vault import Vault
from pressroom.service.web.security import Actor, Viewer, WebRoute
from pressroom.service.web.templating import flash, render_page
from pressroom.service.webhooks import service
from pressroom.service.webhooks.dispatcher import policy_of

router = APIRouter(route_class=WebRoute, include_in_schema=False)
PAGE = "/settings/webhooks"
CATALOGUE = [(t, DESCRIPTIONS[EventType(t)]) for t in SUBSCRIBABLE]
"""The event types an endpoint may choose, with what each means."""


def _list_page(
    request: Request,
    visitor: Viewer,
    db: DbSession,
    *,
    revealed: tuple[str, str] | None = None,
    errors: dict[str, str] | None = None,
    form: dict[str, object] | None = None,
    status: int = 200,
) -> Response:
    return render_page(
        request,
        "webhooks.html",
        {
            "title": "Webhooks",
            "visitor": visitor,
            "active": PAGE,
            "endpoints": service.list_endpoints(db, visitor.account),
            "catalogue": CATALOGUE,
            "revealed": revealed,
            "errors": errors or {},
            "form": form or {"url": "", "events": list(BY_DEFAULT)},
        },
        status=status,
    )


@router.get(PAGE)
def webhooks(request: Request, visitor: Viewer, db: DbSession) -> Response:
    return _list_page(request, visitor, db)


@router.post(PAGE)
def create(
    request: Request,
    visitor: Actor,
    db: DbSession,
    settings: AppSettings,
    url: Annotated[str, Form()] = "",
    events: Annotated[list[str] | None, Form()] = None,
) -> Response:
    try:
        made = service.create(
            db,
            visitor.account,
            Vault.from_settings(settings),
            policy_of(settings),
            url=url,
            events=events or [],
            description="",
        )
    except ServiceError as exc:
        field = exc.field or "url"
        return _list_page(
            request,
            visitor,
            db,
            errors={field: exc.message},
            form={"url": url, "events": events or []},
            status=400,
        )
    # Shown in this answer only: the secret is never readable again.
    return _list_page(request, visitor, db, revealed=(made.endpoint.url, made.secret))


@router.post(PAGE + "/{webhook_id}/rotate")
def rotate(
    request: Request, visitor: Actor, db: DbSession, webhook_id: str, settings: AppSettings
) -> Response:
    made = service.rotate_secret(
        db, visitor.account, Vault.from_settings(settings), webhook_id, timedelta(days=1)
    )
    return _list_page(request, visitor, db, revealed=(made.endpoint.url, made.secret))


@router.post(PAGE + "/{webhook_id}/test")
def send_test(visitor: Actor, db: DbSession, webhook_id: str) -> Response:
    service.send_test(db, visitor.account, webhook_id)
    response = RedirectResponse(f"{PAGE}/{webhook_id}", status_code=303)
    return flash(response, "A test event is on its way; its delivery is listed below.")


@router.post(PAGE + "/{webhook_id}/enable")
def enable(visitor: Actor, db: DbSession, webhook_id: str, settings: AppSettings) -> Response:
    service.update(db, visitor.account, policy_of(settings), webhook_id, enabled=True)
    return flash(RedirectResponse(PAGE, status_code=303), "The endpoint is enabled again.")


@router.post(PAGE + "/{webhook_id}/delete")
def delete(visitor: Actor, db: DbSession, webhook_id: str) -> Response:
    service.delete(db, visitor.account, webhook_id)
    return flash(RedirectResponse(PAGE, status_code=303), "The endpoint was deleted.")


STATES = (PENDING, DELIVERED, FAILED)
TYPES = tuple(t.value for t in EventType)
LOG_PAGE = 100
"""Deliveries shown at once, newest first."""


def _endpoint_page(
    request: Request,
    visitor: Viewer,
    db: DbSession,
    webhook_id: str,
    *,
    errors: dict[str, str] | None = None,
    form: dict[str, object] | None = None,
    status: int = 200,
    chosen: dict[str, str] | None = None,
) -> Response:
    endpoint = service.get(db, visitor.account, webhook_id)
    chosen = chosen or {"state": "", "type": ""}
    views, _ = service.deliveries(
        db,
        visitor.account,
        webhook_id,
        limit=LOG_PAGE,
        before=None,
        state=chosen["state"] or None,
        event_type=chosen["type"] or None,
    )
    return render_page(
        request,
        "webhook_deliveries.html",
        {
            "title": "Webhook endpoint",
            "visitor": visitor,
            "active": PAGE,
            "endpoint": endpoint,
            "deliveries": views,
            "catalogue": CATALOGUE,
            "states": STATES,
            "types": TYPES,
            "chosen": chosen,
            "errors": errors or {},
            "form": form or {"url": endpoint.url, "events": list(endpoint.events)},
        },
        status=status,
    )


@router.get(PAGE + "/{webhook_id}")
def deliveries(
    request: Request,
    visitor: Viewer,
    db: DbSession,
    webhook_id: str,
    state: str = "",
    type: str = "",
) -> Response:
    """The endpoint, and its delivery log filtered by state and event type (a plain GET
    form, so it works without JavaScript; an unknown value shows everything)."""
    chosen = {
        "state": state if state in STATES else "",
        "type": type if type in TYPES else "",
    }
    return _endpoint_page(request, visitor, db, webhook_id, chosen=chosen)


@router.get(PAGE + "/{webhook_id}/delete")
def delete_confirm(request: Request, visitor: Viewer, db: DbSession, webhook_id: str) -> Response:
    endpoint = service.get(db, visitor.account, webhook_id)
    return render_page(
        request,
        "confirm.html",
        {
            "title": f"Delete the webhook endpoint {endpoint.url}?",
            "visitor": visitor,
            "active": PAGE,
            "warning": "Nothing more is sent to it from the moment it is deleted: the "
            "events waiting in its queue are dropped with its delivery log, and its secret "
            "stops signing. The events themselves stay listed (GET /api/events) and can be "
            "sent to another endpoint. This cannot be undone.",
            "action": f"{PAGE}/{endpoint.id}/delete",
            "confirm": "Delete endpoint",
            "cancel": PAGE,
        },
    )


@router.post(PAGE + "/{webhook_id}")
def change(
    request: Request,
    visitor: Actor,
    db: DbSession,
    settings: AppSettings,
    webhook_id: str,
    url: Annotated[str, Form()] = "",
    events: Annotated[list[str] | None, Form()] = None,
) -> Response:
    """The endpoint's URL and events, changed by the same rules as when it was made."""
    try:
        service.update(
            db, visitor.account, policy_of(settings), webhook_id, url=url, events=events or []
        )
    except ServiceError as exc:
        if exc.error.status == 404:
            raise
        form: dict[str, object] = {"url": url, "events": events or []}
        errors = {exc.field or "url": exc.message}
        return _endpoint_page(
            request, visitor, db, webhook_id, errors=errors, form=form, status=400
        )
    response = RedirectResponse(f"{PAGE}/{webhook_id}", status_code=303)
    return flash(response, "The endpoint was saved.")


@router.post(PAGE + "/{webhook_id}/deliveries/{delivery_id}/redeliver")
def redeliver(visitor: Actor, db: DbSession, webhook_id: str, delivery_id: str) -> Response:
    service.redeliver(db, visitor.account, webhook_id, delivery_id)
    response = RedirectResponse(f"{PAGE}/{webhook_id}", status_code=303)
    return flash(response, "The event is queued again, with the same webhook-id.")
