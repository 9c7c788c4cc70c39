"""Settings: API Keys (shown once, masked, rotated) and Account (password, sessions)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import RedirectResponse

from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.service.accounts import service as accounts
from pressroom.service.auth import service as auth
from pressroom.service.auth.schemas import FormError
from pressroom.service.deps import AppSettings, DbSession, WritingDbSession
from pressroom.service.oauth.vault import Vault
from pressroom.service.web.security import Actor, Viewer, WebRoute
from pressroom.service.web.templating import flash, render_page

router = APIRouter(route_class=WebRoute, include_in_schema=False)


@router.get("/settings/api-keys")
def api_keys(
    request: Request, visitor: Viewer, db: WritingDbSession, settings: AppSettings
) -> Response:
    account = visitor.account
    waiting = auth.take_revealed_key(db, visitor.token)  # shown once
    revealed = Vault.from_settings(settings).decrypt(waiting) if waiting else None
    return render_page(
        request,
        "api_keys.html",
        {
            "title": "API Keys",
            "visitor": visitor,
            "active": "/settings/api-keys",
            "api_access": PLAN_LIMITS[Plan(account.plan)].api_access,
            "revealed": revealed,
            "masked": accounts.masked_key(account),
            "created_at": account.api_key_created_at,
            "base_url": settings.public_base_url,
        },
    )


@router.get("/settings/api-keys/rotate")
def rotate_confirm(request: Request, visitor: Viewer) -> Response:
    return render_page(
        request,
        "rotate_confirm.html",
        {
            "title": "Rotate your API key?",
            "visitor": visitor,
            "active": "/settings/api-keys",
            "last4": visitor.account.api_key_last4 or "????",
        },
    )


@router.post("/settings/api-keys/rotate")
def rotate(visitor: Actor, db: DbSession, settings: AppSettings) -> Response:
    issued = accounts.rotate_current_key(db, visitor.account)
    auth.reveal_key(db, visitor.token, Vault.from_settings(settings).encrypt(issued.api_key))
    response = RedirectResponse("/settings/api-keys", status_code=303)
    return flash(response, "Your API key was rotated: the old key no longer works.")


def _account_page(
    request: Request, visitor: Viewer, db: DbSession, errors: dict[str, str], status: int = 200
) -> Response:
    return render_page(
        request,
        "account.html",
        {
            "title": "Account",
            "visitor": visitor,
            "active": "/settings/account",
            "errors": errors,
            "sessions": auth.active_sessions(db, visitor.account),
        },
        status=status,
    )


@router.get("/settings/account")
def account_page(request: Request, visitor: Viewer, db: DbSession) -> Response:
    return _account_page(request, visitor, db, {})


@router.post("/settings/account/password")
def change_password(
    request: Request,
    visitor: Actor,
    db: DbSession,
    current_password: Annotated[str, Form()] = "",
    new_password: Annotated[str, Form()] = "",
) -> Response:
    try:
        auth.change_password(
            db,
            visitor.account,
            current=current_password,
            new=new_password,
            keep_session=visitor.token,
        )
    except FormError as exc:
        return _account_page(request, visitor, db, exc.errors, status=exc.status)
    response = RedirectResponse("/settings/account", status_code=303)
    return flash(response, "Your password was changed; other browsers were signed out.")
