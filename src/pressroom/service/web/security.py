"""Sessions, CSRF and security headers, for dashboard routes only.

``WebRoute`` is the dashboard's route class: the JSON API never runs any of this.
A signed-in page depends on ``Viewer`` (reads) or ``Actor`` (state changes: the form's
``csrf_token`` must match the session's). Forms shown before sign-in use a
double-submit token: a random cookie echoed in the form.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import quote, urlsplit

from fastapi import Depends, Form, Request, Response
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.auth import service as auth
from pressroom.service.db.models import Account, WebSession
from pressroom.service.db.session import transaction
from pressroom.service.errors import ServiceError, error_response
from pressroom.service.routing import UnitOfWorkRoute
from pressroom.settings import Settings

SESSION_COOKIE = "pressroom_session"
CSRF_COOKIE = "pressroom_csrf"

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "media-src 'self' blob:; connect-src {connect}; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def content_security_policy(settings: Settings) -> str:
    """The policy for dashboard pages. The browser uploads straight to the presigned
    URL, so an S3 store's origin joins ``connect-src``."""
    connect = ["'self'"]
    if settings.store.storage == "s3":
        endpoint = settings.store.s3_endpoint_url
        if endpoint:
            parts = urlsplit(endpoint)
            connect.append(f"{parts.scheme}://{parts.netloc}")
        else:
            connect.append("https://*.amazonaws.com")
    return CSP.format(connect=" ".join(connect))


class SignInRequired(Exception):
    pass


class CsrfRefused(Exception):
    pass


def is_https(request: Request) -> bool:
    base: str = request.app.state.settings.public_base_url
    return request.url.scheme == "https" or base.startswith("https://")


def set_cookie(request: Request, response: Response, name: str, value: str, **kw: Any) -> None:
    response.set_cookie(
        name, value, httponly=True, samesite="lax", secure=is_https(request), path="/", **kw
    )


@dataclass
class Visitor:
    """The signed-in user of a dashboard request."""

    account: Account
    session: WebSession
    token: str

    @property
    def csrf_token(self) -> str:
        return self.session.csrf_token


def _visitor(request: Request) -> Visitor:
    """The signed-in visitor, read in a short unit of work of its own (as the API's key
    is): the route's own ``DbSession`` stays unconnected until the route uses it, so a
    route may first call a platform through units of work of its own."""
    token = request.cookies.get(SESSION_COOKIE)
    factory: sessionmaker[Session] = request.app.state.session_factory
    with transaction(factory, write=False) as db:
        found = auth.current_session(db, token)
    if found is None or token is None:
        raise SignInRequired()
    session, account = found
    return Visitor(account, session, token)


def viewer(request: Request) -> Visitor:
    return _visitor(request)


def visitor_if_signed_in(request: Request) -> Visitor | None:
    """For pages anyone may see (an error page): the layout shows the menu when known."""
    try:
        return _visitor(request)
    except SignInRequired:
        return None


def actor(request: Request, csrf_token: Annotated[str, Form()] = "") -> Visitor:
    visitor = _visitor(request)
    if not hmac.compare_digest(csrf_token.encode(), visitor.csrf_token.encode()):
        raise CsrfRefused()
    return visitor


Viewer = Annotated[Visitor, Depends(viewer)]
Actor = Annotated[Visitor, Depends(actor)]


def anonymous_csrf(request: Request, csrf_token: Annotated[str, Form()] = "") -> None:
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not cookie or not hmac.compare_digest(csrf_token.encode(), cookie.encode()):
        raise CsrfRefused()


AnonymousCsrf = Depends(anonymous_csrf)


def anonymous_token(request: Request) -> str:
    """The double-submit token for a form shown before sign-in (kept if already set)."""
    existing: str | None = request.cookies.get(CSRF_COOKIE)
    if existing:
        return existing
    token = secrets.token_urlsafe(32)
    request.state.new_csrf_cookie = token
    return token


class WebRoute(UnitOfWorkRoute):
    """A dashboard route: security headers, sign-in redirects and CSRF refusals."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                response = await handler(request)
            except SignInRequired:
                target = request.url.path
                if request.url.query:
                    target += "?" + request.url.query
                response = RedirectResponse(f"/sign-in?next={quote(target)}", status_code=303)
            except ServiceError as exc:
                from pressroom.service.web.templating import render_page

                if "application/json" in request.headers.get("accept", ""):
                    # The page's own scripts ask for JSON: the API's error body.
                    return error_response(exc)
                response = render_page(
                    request,
                    "refused.html",
                    {"title": "There is a problem", "message": exc.message, "back": "/"},
                    status=exc.status,
                )
            except CsrfRefused:
                from pressroom.service.web.templating import render_page

                response = render_page(
                    request,
                    "refused.html",
                    {
                        "title": "This form has expired",
                        "message": "The page you sent the form from had expired or came "
                        "from another site, so nothing was changed. Go back, reload the "
                        "page and try again.",
                    },
                    status=403,
                )
            return protect(request, response)

        return run


def protect(request: Request, response: Response) -> Response:
    """What every dashboard answer carries: its security headers, and the anonymous CSRF
    cookie when the page made one."""
    new_cookie = getattr(request.state, "new_csrf_cookie", None)
    if new_cookie:
        set_cookie(request, response, CSRF_COOKIE, new_cookie)
    response.headers.update(SECURITY_HEADERS)
    response.headers["Content-Security-Policy"] = content_security_policy(
        request.app.state.settings
    )
    return response
