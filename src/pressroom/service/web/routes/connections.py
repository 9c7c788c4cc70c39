"""Connections: list with status and why, Connect (OAuth; for Bluesky from the handle,
by AT Protocol OAuth or with an app password), Reconnect, Disconnect, and the choice of
Facebook Pages after a consent that granted several."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse

from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.platforms import Platform
from pressroom.service.connections import service as connections
from pressroom.service.deps import DbSession
from pressroom.service.drivers import atproto_oauth, describe
from pressroom.service.drivers.open_microblog import BlueskyDriver
from pressroom.service.drivers.page_social import GrantedPage
from pressroom.service.oauth import app_passwords
from pressroom.service.oauth import service as oauth
from pressroom.service.web.security import Actor, Viewer, Visitor, WebRoute
from pressroom.service.web.templating import flash, render_page

router = APIRouter(route_class=WebRoute, include_in_schema=False)

CONNECTABLE = [p for p in Platform if p != Platform.TEXT_THREAD]


def _page(request: Request, visitor: Visitor, db: DbSession, error: str | None = None) -> Response:
    rows = [
        {
            "connection": c,
            "status": status,
            "reason": connections.inactive_reason(db, c),
        }
        for c, status in connections.list_connections(db, visitor.account)
    ]
    return render_page(
        request,
        "connections.html",
        {
            "title": "Connections",
            "visitor": visitor,
            "active": "/connections",
            "rows": rows,
            "platforms": CONNECTABLE,
            "drivers": {c.platform: c.driver for c in describe(request.app.state.settings)},
            "cap": PLAN_LIMITS[Plan(visitor.account.plan)].profiles_per_platform,
            "errors": {"connect": error} if error else {},
        },
        status=400 if error else 200,
    )


@router.get("/connections")
def connections_page(request: Request, visitor: Viewer, db: DbSession) -> Response:
    oauth.refresh_due(oauth.flow_of(request.app), visitor.account.id)
    return _page(request, visitor, db)


@router.post("/connections/connect/{platform}")
def connect(request: Request, visitor: Actor, db: DbSession, platform: str) -> Response:
    try:
        chosen = Platform(platform)
    except ValueError:
        return _page(request, visitor, db, "No platform has this name.")
    flow = oauth.flow_of(request.app)
    if app_passwords.signs_in_with_password(flow, chosen):
        return RedirectResponse(f"/connections/{chosen.value}/sign-in", status_code=303)
    try:
        url = oauth.start(flow, visitor.account.id, chosen)
    except connections.ConnectionRuleError as exc:
        return _page(request, visitor, db, _sentence(str(exc)))
    return RedirectResponse(url, status_code=303)


@router.post("/connections/{connection_id}/reconnect")
def reconnect(request: Request, visitor: Actor, db: DbSession, connection_id: str) -> Response:
    flow = oauth.flow_of(request.app)
    label = app_passwords.platform_of(flow, visitor.account.id, connection_id)
    if label is not None and app_passwords.signs_in_with_password(flow, label):
        return RedirectResponse(
            f"/connections/{label.value}/sign-in?reconnect={connection_id}", status_code=303
        )
    try:
        url = oauth.start(
            oauth.flow_of(request.app),
            visitor.account.id,
            Platform.MICROBLOG,  # replaced by the connection's own platform
            reconnect_id=connection_id,
        )
    except connections.ConnectionRuleError as exc:
        return _page(request, visitor, db, _sentence(str(exc)))
    return RedirectResponse(url, status_code=303)


@router.get("/connections/{platform}/sign-in")
def sign_in_form(request: Request, visitor: Viewer, platform: str, reconnect: str = "") -> Response:
    """Bluesky's Connect: the handle (AT Protocol OAuth), or the handle and an app
    password where the account's server offers no OAuth."""
    chosen = _password_platform(request, platform)
    if chosen is None:
        return RedirectResponse("/connections", status_code=303)
    return _sign_in_page(request, visitor, chosen, reconnect_id=reconnect or None)


@router.post("/connections/{platform}/sign-in")
def sign_in(
    request: Request,
    visitor: Actor,
    platform: str,
    handle: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    reconnect_id: Annotated[str | None, Form()] = None,
) -> Response:
    chosen = _password_platform(request, platform)
    if chosen is None:
        return RedirectResponse("/connections", status_code=303)
    try:
        if not password:  # the handle alone: the account's server signs pressroom in
            url = app_passwords.start_oauth(
                oauth.flow_of(request.app),
                visitor.account.id,
                chosen,
                handle=handle,
                reconnect_id=reconnect_id or None,
            )
            return RedirectResponse(url, status_code=303)
        connection = app_passwords.sign_in(
            oauth.flow_of(request.app),
            visitor.account.id,
            chosen,
            handle=handle,
            password=password,
            reconnect_id=reconnect_id or None,
        )
    except app_passwords.SignInError as exc:
        return _sign_in_page(
            request, visitor, chosen, reconnect_id, handle, {exc.field: exc.message}
        )
    except oauth.OAuthFailure as exc:
        return _refused(request, visitor, exc)
    response = RedirectResponse("/connections", status_code=303)
    return flash(response, f"Connected {connection.platform} account {connection.name}.")


def _password_platform(request: Request, name: str) -> Platform | None:
    try:
        chosen = Platform(name)
    except ValueError:
        return None
    flow = oauth.flow_of(request.app)
    return chosen if app_passwords.signs_in_with_password(flow, chosen) else None


def _sign_in_page(
    request: Request,
    visitor: Visitor,
    platform: Platform,
    reconnect_id: str | None,
    handle: str = "",
    errors: dict[str, str] | None = None,
) -> Response:
    return render_page(
        request,
        "app_password.html",
        {
            "title": "Connect a Bluesky account",
            "visitor": visitor,
            "active": "/connections",
            "platform": platform.value,
            "reconnect_id": reconnect_id,
            "handle": handle,
            "errors": errors or {},
        },
        status=400 if errors else 200,
    )


def _bluesky_client(request: Request) -> atproto_oauth.Client | None:
    """The OAuth client pressroom is for Bluesky, where it is one a server fetches (on
    https, with open_microblog on Bluesky); None elsewhere."""
    driver = oauth.flow_of(request.app).drivers.get(Platform.OPEN_MICROBLOG)
    if not isinstance(driver, BlueskyDriver):
        return None
    try:
        client = driver.client(request.app.state.settings.public_base_url)
    except atproto_oauth.OAuthUnavailable:
        return None
    return None if client.loopback else client


_NOT_A_CLIENT = {"error": "not_found", "message": "pressroom is an OAuth client on https only"}


@router.get(atproto_oauth.CLIENT_METADATA_PATH)
def bluesky_client_metadata(request: Request) -> Response:
    """pressroom's client metadata document, read by the Bluesky servers it asks for
    authorization: its URL is the client id, so it is served on https only
    (https://atproto.com/specs/oauth#client-id-metadata-document)."""
    client = _bluesky_client(request)
    if client is None:
        return JSONResponse(_NOT_A_CLIENT, status_code=404)
    return JSONResponse(
        atproto_oauth.client_metadata(client), headers={"Cache-Control": "public, max-age=600"}
    )


@router.get(atproto_oauth.JWKS_PATH)
def bluesky_client_keys(request: Request) -> Response:
    """The public half of pressroom's client keys, which the servers check its client
    assertions with (the metadata's ``jwks_uri``)."""
    client = _bluesky_client(request)
    if client is None:
        return JSONResponse(_NOT_A_CLIENT, status_code=404)
    return JSONResponse(
        atproto_oauth.jwks(client), headers={"Cache-Control": "public, max-age=600"}
    )


@router.get("/oauth/callback/{platform}")
def callback(request: Request, visitor: Viewer, db: DbSession, platform: str) -> Response:
    params = {k: request.query_params.get(k, "") for k in ("state", "code", "error", "iss")}
    try:
        connection = oauth.finish(oauth.flow_of(request.app), visitor.account.id, platform, params)
    except oauth.OAuthFailure as exc:
        return _refused(request, visitor, exc)
    if isinstance(connection, oauth.PageChoice):
        return RedirectResponse(f"/connections/pages/{connection.choice}", status_code=303)
    flow = oauth.flow_of(request.app)
    then = oauth.next_consent(flow, visitor.account.id, connection)
    response = RedirectResponse(then or "/connections", status_code=303)
    return flash(response, f"Connected {connection.platform} account {connection.name}.")


@router.get("/connections/pages/{choice}")
def choose_pages(request: Request, visitor: Viewer, choice: str) -> Response:
    """After Facebook's consent granted several Pages: which to connect."""
    try:
        pages = oauth.pages_to_choose(oauth.flow_of(request.app), visitor.account.id, choice)
    except oauth.OAuthFailure as exc:
        return _refused(request, visitor, exc)
    return _choice_page(request, visitor, choice, pages)


@router.post("/connections/pages/{choice}")
def connect_pages(
    request: Request,
    visitor: Actor,
    choice: str,
    page: Annotated[list[str] | None, Form()] = None,
) -> Response:
    flow = oauth.flow_of(request.app)
    try:
        made = oauth.connect_pages(flow, visitor.account.id, choice, page or [])
    except oauth.OAuthFailure as exc:
        return _refused(request, visitor, exc)
    except (oauth.ChoiceError, connections.ConnectionRuleError) as exc:
        try:
            pages = oauth.pages_to_choose(flow, visitor.account.id, choice)
        except oauth.OAuthFailure as gone:
            return _refused(request, visitor, gone)
        return _choice_page(request, visitor, choice, pages, _sentence(str(exc)), page or [])
    names = ", ".join(c.name for c in made)
    response = RedirectResponse("/connections", status_code=303)
    return flash(response, f"Connected page_social {'Pages' if len(made) > 1 else 'Page'} {names}.")


def _choice_page(
    request: Request,
    visitor: Visitor,
    choice: str,
    pages: list[GrantedPage],
    error: str | None = None,
    chosen: list[str] | None = None,
) -> Response:
    return render_page(
        request,
        "choose_pages.html",
        {
            "title": "Choose the Pages to connect",
            "visitor": visitor,
            "active": "/connections",
            "choice": choice,
            "pages": pages,
            "chosen": chosen or [],
            "errors": {"pages": error} if error else {},
        },
        status=400 if error else 200,
    )


def _refused(request: Request, visitor: Visitor, exc: oauth.OAuthFailure) -> Response:
    return render_page(
        request,
        "refused.html",
        {
            "title": exc.title,
            "message": exc.message,
            "visitor": visitor,
            "active": "/connections",
            "back": "/connections",
            "back_label": "Back to Connections",
        },
        status=400,
    )


@router.get("/connections/{connection_id}/disconnect")
def disconnect_confirm(
    request: Request, visitor: Viewer, db: DbSession, connection_id: str
) -> Response:
    try:
        connection = connections.owned(db, visitor.account, connection_id)
    except connections.ConnectionRuleError as exc:
        return _page(request, visitor, db, str(exc))
    return render_page(
        request,
        "disconnect_confirm.html",
        {
            "title": "Disconnect this account?",
            "visitor": visitor,
            "active": "/connections",
            "connection": connection,
        },
    )


@router.post("/connections/{connection_id}/disconnect")
def disconnect(visitor: Actor, db: DbSession, connection_id: str, request: Request) -> Response:
    try:
        connection = connections.owned(db, visitor.account, connection_id)
        connections.disconnect(db, connection.id)
    except connections.ConnectionRuleError as exc:
        return _page(request, visitor, db, str(exc))
    response = RedirectResponse("/connections", status_code=303)
    return flash(response, f"Disconnected {connection.platform} account {connection.name}.")


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text
