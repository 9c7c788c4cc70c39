"""Sign up, sign in (password or one-time link), sign out, sign out everywhere."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import RedirectResponse

from pressroom.plans import Plan
from pressroom.service.auth import service as auth
from pressroom.service.auth.schemas import FormError, SignedIn
from pressroom.service.deps import AppSettings, DbSession
from pressroom.service.oauth.vault import Vault
from pressroom.service.web.security import (
    SESSION_COOKIE,
    Actor,
    AnonymousCsrf,
    WebRoute,
    anonymous_token,
    set_cookie,
)
from pressroom.service.web.templating import flash, render_page

router = APIRouter(route_class=WebRoute, include_in_schema=False)

PLAN_NOTES = {
    "business": "API access, 15 profiles per platform, 250 uploads a month",
    "agency": "API access with priority support, 30 profiles per platform, 550 uploads a month",
    "blogger": "no API access",
}


def _safe_next(target: str) -> str:
    """Only a path on this site: never an open redirect."""
    return target if target.startswith("/") and not target.startswith("//") else "/"


def _signed_in(request: Request, signed: SignedIn, target: str, settings_days: int) -> Response:
    response = RedirectResponse(_safe_next(target), status_code=303)
    set_cookie(request, response, SESSION_COOKIE, signed.token, max_age=settings_days * 86400)
    return response


@router.get("/sign-in")
def sign_in_page(request: Request, settings: AppSettings, next: str = "/") -> Response:
    return render_page(
        request,
        "sign_in.html",
        {
            "title": "Sign in",
            "csrf_token": anonymous_token(request),
            "next": _safe_next(next),
            "email": "",
            "errors": {},
            "signup_open": settings.signup == "open",
        },
    )


@router.post("/sign-in", dependencies=[AnonymousCsrf])
def sign_in(
    request: Request,
    db: DbSession,
    settings: AppSettings,
    email: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/",
) -> Response:
    address = request.client.host if request.client else "unknown"
    try:
        signed = auth.sign_in(
            db, email=email, password=password, address=address, session_days=settings.session_days
        )
    except FormError as exc:
        response = render_page(
            request,
            "sign_in.html",
            {
                "title": "Too many sign-in attempts" if exc.status == 429 else "Sign in",
                "csrf_token": anonymous_token(request),
                "next": _safe_next(next),
                "email": email,
                "errors": exc.errors,
                "signup_open": settings.signup == "open",
            },
            status=exc.status,
        )
        if exc.retry_after:
            response.headers["Retry-After"] = str(exc.retry_after)
        return response
    return _signed_in(request, signed, next, settings.session_days)


def _sign_up_page(
    request: Request, *, email: str = "", plan: str = "business", errors: dict[str, str]
) -> dict[str, object]:
    return {
        "title": "Create an account",
        "csrf_token": anonymous_token(request),
        "email": email,
        "plan": plan,
        "plans": list(Plan),
        "plan_notes": PLAN_NOTES,
        "errors": errors,
    }


def _signup_closed(request: Request) -> Response:
    return render_page(
        request,
        "refused.html",
        {
            "title": "Sign-up is closed",
            "message": "This server creates accounts through its operator. Ask them for an "
            "account: they can give you a one-time sign-in link.",
            "back": "/sign-in",
            "back_label": "Sign in",
        },
        status=403,
    )


@router.get("/sign-up")
def sign_up_page(request: Request, settings: AppSettings) -> Response:
    if settings.signup != "open":
        return _signup_closed(request)
    return render_page(request, "sign_up.html", _sign_up_page(request, errors={}))


@router.post("/sign-up", dependencies=[AnonymousCsrf])
def sign_up(
    request: Request,
    db: DbSession,
    settings: AppSettings,
    email: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    plan: Annotated[str, Form()] = "",
) -> Response:
    if settings.signup != "open":
        return _signup_closed(request)
    try:
        account, key, signed = auth.sign_up(
            db, email=email, password=password, plan=plan, session_days=settings.session_days
        )
    except FormError as exc:
        return render_page(
            request,
            "sign_up.html",
            _sign_up_page(request, email=email, plan=plan, errors=exc.errors),
            status=exc.status,
        )
    del account
    auth.reveal_key(db, signed.token, Vault.from_settings(settings).encrypt(key))
    response = _signed_in(request, signed, "/settings/api-keys", settings.session_days)
    return flash(response, "Your account is ready.")


@router.post("/sign-out")
def sign_out(visitor: Actor, db: DbSession) -> Response:
    auth.sign_out(db, visitor.token)
    response = RedirectResponse("/sign-in", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return flash(response, "You are signed out.")


@router.post("/sign-out/everywhere")
def sign_out_everywhere(visitor: Actor, db: DbSession) -> Response:
    count = auth.sign_out_everywhere(db, visitor.account)
    response = RedirectResponse("/sign-in", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return flash(response, f"Signed out of {count} browser{'s' if count != 1 else ''}.")


@router.get("/sign-in/link/{token}")
def sign_in_link_page(request: Request, token: str) -> Response:
    """Shows a button: following a link never signs in by itself (mail scanners open links)."""
    return render_page(
        request,
        "sign_in_link.html",
        {"title": "Sign in", "token": token, "csrf_token": anonymous_token(request)},
    )


@router.post("/sign-in/link", dependencies=[AnonymousCsrf])
def sign_in_with_link(
    request: Request, db: DbSession, settings: AppSettings, token: Annotated[str, Form()] = ""
) -> Response:
    try:
        signed = auth.use_sign_in_link(db, token, settings.session_days)
    except FormError as exc:
        return render_page(
            request,
            "refused.html",
            {
                "title": "This link cannot be used",
                "message": exc.errors["link"],
                "back": "/sign-in",
                "back_label": "Sign in",
            },
            status=exc.status,
        )
    response = _signed_in(request, signed, "/settings/account", settings.session_days)
    return flash(response, "You are signed in. Set a password below to sign in next time.")
