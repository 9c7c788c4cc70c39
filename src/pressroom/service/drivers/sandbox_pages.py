"""The sandbox platforms' authorization server over HTTP: consent page, token, userinfo.

A browser meets the consent page (``/sandbox/<platform>/oauth/authorize``): it names the
app, the account and each permission the real network is asked for, with Allow and Deny
as equals. Each permission has its own box, ticked: unticking one withholds it, as the
consent screens of Google, Facebook, Instagram, TikTok and others let a person do, and a
post that needs it is then refused as the network refuses it. The tester also chooses
what a real network would decide (account type, page or profile, a verified channel);
on page_social, withholding ``pages_manage_posts`` is the spec's missing Pages
permission. The token and userinfo routes answer what ``sandbox_oauth`` answers
in process to the driver.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Header, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse

from pressroom.platforms import Platform
from pressroom.service.deps import AppSettings, DbSession
from pressroom.service.drivers import page_social, sandbox_oauth
from pressroom.service.storage.signing import load_secret
from pressroom.service.web.security import AnonymousCsrf, WebRoute, anonymous_token
from pressroom.service.web.templating import render_page

router = APIRouter(route_class=WebRoute, include_in_schema=False)
api = APIRouter(include_in_schema=False)

PLATFORM_NAMES = {
    Platform.MICROBLOG: "Microblog",
    Platform.VIDEO_SHARING: "VideoSharing",
    Platform.SHORT_VIDEO: "ShortVideo",
    Platform.PHOTO_SHARING: "PhotoSharing",
    Platform.PAGE_SOCIAL: "PageSocial",
    Platform.PIN_BOARD: "PinBoard",
    Platform.PROFESSIONAL_NETWORK: "ProfessionalNetwork",
    Platform.OPEN_MICROBLOG: "OpenMicroblog",
}


def _platform(name: str) -> Platform | None:
    try:
        platform = Platform(name)
    except ValueError:
        return None
    return platform if platform in sandbox_oauth.SCOPES else None


def _problem(platform: Platform | None, settings: Any, params: dict[str, str]) -> str | None:
    """Why this authorization request cannot be shown, or None."""
    if platform is None:
        return "This sandbox platform has no authorization server."
    if params.get("client_id") != sandbox_oauth.CLIENT_ID:
        return "The application asking for access is not registered with this platform."
    if params.get("response_type") != "code":
        return "Only the authorization code flow is supported."
    if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
        return "The request has no PKCE challenge (S256)."
    registered = f"{settings.public_base_url}/oauth/callback/{platform.value}"
    if params.get("redirect_uri") != registered:
        return "The redirect address is not the one registered for this application."
    if not params.get("state"):
        return "The request has no state."
    return None


def _refused(request: Request, message: str) -> Response:
    return render_page(
        request,
        "refused.html",
        {"title": "This authorization request is not valid", "message": message},
        status=400,
    )


PARAMS = (
    "client_id",
    "response_type",
    "redirect_uri",
    "state",
    "code_challenge",
    "code_challenge_method",
    "scope",
)


@router.get("/sandbox/{platform}/oauth/authorize")
def consent_page(request: Request, settings: AppSettings, platform: str) -> Response:
    params = {k: request.query_params.get(k, "") for k in PARAMS}
    chosen = _platform(platform)
    problem = _problem(chosen, settings, params)
    if problem or chosen is None:
        return _refused(request, problem or "")
    everything = {"granted": sandbox_oauth.SCOPES[chosen]}  # shown ticked, as networks do
    return _render_consent(request, chosen, params, everything, {})


def _render_consent(
    request: Request,
    platform: Platform,
    params: dict[str, str],
    values: dict[str, Any],
    errors: dict[str, str],
) -> Response:
    return render_page(
        request,
        "consent.html",
        {
            "title": f"Authorize pressroom on {PLATFORM_NAMES[platform]}",
            "platform": platform.value,
            "platform_name": PLATFORM_NAMES[platform],
            "scopes": [
                (scope, sandbox_oauth.SCOPE_WORDS.get(scope, scope))
                for scope in sandbox_oauth.SCOPES[platform]
            ],
            "granted": values.get("granted", ()),
            "params": params,
            "values": values,
            "errors": errors,
            "csrf_token": anonymous_token(request),
        },
        status=400 if errors else 200,
    )


@router.post("/sandbox/{platform}/oauth/authorize", dependencies=[AnonymousCsrf])
def consent(
    request: Request,
    db: DbSession,
    settings: AppSettings,
    platform: str,
    decision: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    display_name: Annotated[str, Form()] = "",
    account_type: Annotated[str, Form()] = "business",
    page_kind: Annotated[str, Form()] = "page",
    granted: Annotated[list[str] | None, Form()] = None,
    verified: Annotated[str, Form()] = "",
    client_id: Annotated[str, Form()] = "",
    response_type: Annotated[str, Form()] = "",
    redirect_uri: Annotated[str, Form()] = "",
    state: Annotated[str, Form()] = "",
    code_challenge: Annotated[str, Form()] = "",
    code_challenge_method: Annotated[str, Form()] = "",
    scope: Annotated[str, Form()] = "",
) -> Response:
    params = {
        "client_id": client_id,
        "response_type": response_type,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": code_challenge,
        "code_challenge_method": code_challenge_method,
        "scope": scope,
    }
    chosen = _platform(platform)
    problem = _problem(chosen, settings, params)
    if problem or chosen is None:
        return _refused(request, problem or "")
    if decision != "allow":
        query = urlencode({"error": "access_denied", "state": state})
        return RedirectResponse(f"{redirect_uri}?{query}", status_code=303)
    values = {
        "name": name.strip(),
        "display_name": display_name.strip(),
        "account_type": account_type,
        "page_kind": page_kind,
        "verified": bool(verified),
        "granted": tuple(granted or ()),
    }
    if not values["name"]:
        return _render_consent(request, chosen, params, values, {"name": "name is required."})
    code = approve_profile(db, chosen, redirect_uri, code_challenge, values)
    return RedirectResponse(
        f"{redirect_uri}?{urlencode({'code': code, 'state': state})}", status_code=303
    )


def granted_scopes(platform: Platform, values: dict[str, Any]) -> tuple[str, ...]:
    """The scopes a consent grants, in the order asked: the ticked ones (``granted``), or
    when the consent is given in code (``pressroom admin connect``) all of them, but the
    Pages permission where ``pages_permission`` is false."""
    asked = sandbox_oauth.SCOPES[platform]
    ticked = values.get("granted")
    if ticked is not None:
        return tuple(scope for scope in asked if scope in ticked)
    if platform == Platform.PAGE_SOCIAL and values.get("pages_permission") is False:
        return tuple(s for s in asked if s != page_social.PAGES_PERMISSION_SCOPE)
    return asked


def approve_profile(
    db: DbSession, platform: Platform, redirect_uri: str, challenge: str, values: dict[str, Any]
) -> str:
    """What Allow does; ``pressroom admin connect`` calls it too."""
    scopes = granted_scopes(platform, values)
    profile: dict[str, Any] = {
        "name": values["name"],
        "displayName": values.get("display_name") or values["name"],
    }
    if platform == Platform.PHOTO_SHARING:
        profile["accountType"] = values.get("account_type") or "business"
    if platform == Platform.PAGE_SOCIAL:
        profile["pageKind"] = values.get("page_kind") or "page"
        profile["pagesPermission"] = page_social.PAGES_PERMISSION_SCOPE in scopes
    if platform == Platform.VIDEO_SHARING:
        profile["verified"] = bool(values.get("verified"))
    return sandbox_oauth.approve(
        db,
        platform=platform,
        client_id=sandbox_oauth.CLIENT_ID,
        redirect_uri=redirect_uri,
        code_challenge=challenge,
        profile=profile,
        scopes=scopes,
    )


@api.post("/sandbox/{platform}/oauth/token")
async def token(request: Request, settings: AppSettings, platform: str) -> Response:
    chosen = _platform(platform)
    if chosen is None:
        return JSONResponse({"error": "invalid_request"}, status_code=404)
    form = {k: str(v) for k, v in (await request.form()).items()}
    from pressroom.service.db.session import transaction

    with transaction(request.app.state.session_factory) as db:
        answer = sandbox_oauth.token_endpoint(
            db, chosen, form, load_secret(settings.secret_key, settings.data_dir)
        )
    return JSONResponse(
        answer.body, status_code=answer.status, headers={"Cache-Control": "no-store"}
    )


@api.get("/sandbox/{platform}/oauth/userinfo")
def userinfo(
    db: DbSession, platform: str, authorization: Annotated[str, Header()] = ""
) -> Response:
    chosen = _platform(platform)
    if chosen is None:
        return JSONResponse({"error": "invalid_request"}, status_code=404)
    answer = sandbox_oauth.userinfo(db, chosen, authorization.removeprefix("Bearer "))
    return JSONResponse(answer.body, status_code=answer.status)
