"""The sandbox platforms' authorization server: what a network runs on its side.

Authorization codes, access tokens and refresh tokens are rows of ``sandbox_grants``
(hashes only), so they hold across restarts and processes: ``pressroom admin
expire-token`` in another process revokes a grant the running service then fails to
refresh, as a real network's revocation does. The rules are the usual ones:

- a code is single use, lives ``CODE_TTL``, and is bound to its ``redirect_uri`` and its
  PKCE challenge (S256 only): a wrong verifier is ``invalid_grant``;
- access tokens live ``ACCESS_TTL``; refresh tokens rotate on use, and a used or
  revoked one is ``invalid_grant``;
- ``userinfo`` answers the profile granted on the consent page;
- the scopes are the real network's (``consent_scopes``), and the person may untick any
  on the consent page, as several networks' own consent screens allow: the token answer
  says which were granted (``scope``), and ``granted_scopes`` tells the sandbox driver,
  which refuses a post its grant lacks a scope for as the network would, and counts no
  figure of a post that needs a scope withheld (an insights scope: ``grants.METRICS``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session

from pressroom.platforms import Platform
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import SandboxGrant
from pressroom.service.drivers import (
    grants,
    page_social,
    photo_sharing,
    short_video,
    text_thread,
    video_sharing,
)

CLIENT_ID = "pressroom"
GRANTED = "scope"
"""Where a grant's row keeps the scopes granted, beside the profile (RFC 6749's name)."""
CODE_TTL = timedelta(minutes=5)
ACCESS_TTL = timedelta(hours=1)


def consent_scopes(platform: Platform) -> tuple[str, ...]:
    """What the sandbox's consent page for ``platform`` asks for: the real network's own
    scopes (``grants.CONSENT``, each driver's). photo_sharing asks for Threads' too: its
    text_thread twin has no consent of its own in the sandbox and shares its grant."""
    scopes = grants.CONSENT[platform]
    if platform is Platform.PHOTO_SHARING:
        scopes += grants.CONSENT[Platform.TEXT_THREAD]
    return scopes


SCOPES: dict[Platform, tuple[str, ...]] = {
    platform: consent_scopes(platform) for platform in Platform if platform != Platform.TEXT_THREAD
}
"""The sandbox platforms with an authorization server, and what each asks for."""

SCOPE_WORDS: dict[str, str] = {
    # X (https://docs.x.com/fundamentals/authentication/oauth-2-0/authorization-code)
    "tweet.read": "read posts, yours and others'",
    "tweet.write": "publish posts as you",
    "users.read": "read your profile",
    "offline.access": "stay connected while you are away",
    # YouTube (https://developers.google.com/identity/protocols/oauth2/scopes#youtube)
    video_sharing.UPLOAD_SCOPE: "upload videos to your channel and set their thumbnails",
    "https://www.googleapis.com/auth/youtube.readonly": "read your channel and its videos",
    video_sharing.COMMENT_SCOPE: "comment on your videos as your channel",
    # TikTok (https://developers.tiktok.com/doc/tiktok-api-scopes)
    "user.info.basic": "read your profile's name and avatar",
    "video.publish": "publish videos to your account",
    short_video.METRICS_SCOPE: "read your videos' view, like, comment and share counts",
    # Instagram (https://developers.facebook.com/docs/instagram-platform/content-publishing)
    "instagram_business_basic": "read your professional account's profile and media",
    "instagram_business_content_publish": "publish photos and videos to your account",
    photo_sharing.COMMENT_SCOPES[1]: "comment on your account's posts",
    photo_sharing.INSIGHTS_SCOPE: "read your posts' insights (views, shares and saves)",
    # Threads, the text_thread twin's (https://developers.facebook.com/docs/threads/overview)
    "threads_basic": "read your linked text_thread (Threads) profile and posts",
    "threads_content_publish": "publish text posts on your linked text_thread (Threads) profile",
    text_thread.REPLIES_SCOPE: "read the replies under your linked text_thread (Threads) posts",
    text_thread.INSIGHTS_SCOPE: "read your linked text_thread (Threads) posts' insights "
    "(views, likes, replies and reposts)",
    # Facebook (https://developers.facebook.com/docs/permissions)
    "pages_show_list": "list the Pages you manage",
    page_social.PAGES_PERMISSION_SCOPE: "publish posts on the Pages you grant",
    "pages_read_engagement": "read your Pages' posts and their engagement",
    page_social.COMMENT_SCOPES[0]: "comment as the Pages you grant",
    page_social.INSIGHTS_SCOPE: "read your Pages' insights (how often each post was seen)",
    # Pinterest (https://developers.pinterest.com/docs/getting-started/scopes/)
    "boards:read": "read your boards",
    "boards:write": "create and change boards (pinning needs it)",
    "pins:read": "read your pins",
    "pins:write": "create pins",
    "user_accounts:read": "read your account's profile",
    # LinkedIn (https://learn.microsoft.com/en-us/linkedin/shared/authentication/getting-access)
    "openid": "sign you in",
    "profile": "read your name and photo",
    "w_member_social": "post as you",
    # Bluesky (https://atproto.com/specs/oauth#authorization-scopes)
    "atproto": "know your handle and DID",
    "transition:generic": "publish posts and upload images and videos as you",
}
"""Each permission in plain words, as the consent page says it (a scope without words
is shown by its name)."""


def client_secret(secret: bytes) -> str:
    """The service's client secret at the sandbox, derived from the service's secret."""
    return hmac.new(secret, b"sandbox oauth client", hashlib.sha256).hexdigest()


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@dataclass(frozen=True)
class TokenAnswer:
    status: int
    body: dict[str, Any]


def _error(code: str, description: str, status: int = 400) -> TokenAnswer:
    return TokenAnswer(status, {"error": code, "error_description": description})


def approve(
    db: Session,
    *,
    platform: Platform,
    client_id: str,
    redirect_uri: str,
    code_challenge: str,
    profile: dict[str, Any],
    scopes: tuple[str, ...] | None = None,
) -> str:
    """The user pressed Allow: a fresh authorization code bound to this request, for the
    profile and the scopes they granted (None: all asked)."""
    code = secrets.token_urlsafe(32)
    now = utcnow()
    db.add(
        SandboxGrant(
            token_hash=_hash(code),
            kind="code",
            grant_id=new_id("grant"),
            platform=platform.value,
            client_id=client_id,
            profile={
                **profile,
                GRANTED: " ".join(consent_scopes(platform) if scopes is None else scopes),
            },
            redirect_uri=redirect_uri,
            code_challenge=code_challenge,
            created_at=now,
            expires_at=now + CODE_TTL,
        )
    )
    db.flush()
    return code


def _issue(db: Session, grant: SandboxGrant) -> dict[str, Any]:
    access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    now = utcnow()
    for token, kind, expires in (
        (access, "access", now + ACCESS_TTL),
        (refresh, "refresh", None),
    ):
        db.add(
            SandboxGrant(
                token_hash=_hash(token),
                kind=kind,
                grant_id=grant.grant_id,
                platform=grant.platform,
                client_id=grant.client_id,
                profile=grant.profile,
                created_at=now,
                expires_at=expires,
            )
        )
    db.flush()
    return {
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": int(ACCESS_TTL.total_seconds()),
        "refresh_token": refresh,
        "scope": " ".join(_granted(grant) or consent_scopes(Platform(grant.platform))),
    }


def _take(db: Session, token: str, kind: str, platform: Platform) -> SandboxGrant | None:
    """The unused, unrevoked, unexpired row for ``token``, marked used: one winner only."""
    now = utcnow()
    taken = db.execute(
        update(SandboxGrant)
        .where(
            SandboxGrant.token_hash == _hash(token),
            SandboxGrant.kind == kind,
            SandboxGrant.platform == platform.value,
            SandboxGrant.used_at.is_(None),
            SandboxGrant.revoked_at.is_(None),
        )
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    if getattr(taken, "rowcount", 0) != 1:
        return None
    row = db.get(SandboxGrant, _hash(token))
    if row is not None:
        db.refresh(row)
    if row is None or (row.expires_at is not None and row.expires_at <= now):
        return None
    return row


def token_endpoint(
    db: Session, platform: Platform, form: dict[str, str], secret: bytes
) -> TokenAnswer:
    """RFC 6749 section 4.1.3 and 6, with RFC 7636's PKCE check."""
    if form.get("client_id") != CLIENT_ID or not hmac.compare_digest(
        form.get("client_secret", ""), client_secret(secret)
    ):
        return _error("invalid_client", "unknown client or wrong secret", 401)
    grant_type = form.get("grant_type")
    if grant_type == "authorization_code":
        grant = _take(db, form.get("code", ""), "code", platform)
        if grant is None:
            return _error("invalid_grant", "the code is unknown, used or expired")
        if grant.redirect_uri != form.get("redirect_uri"):
            return _error("invalid_grant", "redirect_uri does not match the authorization")
        verifier = form.get("code_verifier", "")
        if not verifier or not hmac.compare_digest(s256(verifier), grant.code_challenge or ""):
            return _error("invalid_grant", "the code verifier does not match the challenge")
        return TokenAnswer(200, _issue(db, grant))
    if grant_type == "refresh_token":
        grant = _take(db, form.get("refresh_token", ""), "refresh", platform)
        if grant is None:
            return _error("invalid_grant", "the refresh token is unknown, used or revoked")
        return TokenAnswer(200, _issue(db, grant))
    return _error("unsupported_grant_type", f"grant_type {grant_type!r} is not supported")


def userinfo(db: Session, platform: Platform, access_token: str) -> TokenAnswer:
    row = db.get(SandboxGrant, _hash(access_token))
    now = utcnow()
    if (
        row is None
        or row.kind != "access"
        or row.platform != platform.value
        or row.revoked_at is not None
        or (row.expires_at is not None and row.expires_at <= now)
    ):
        return _error("invalid_token", "the access token is unknown, expired or revoked", 401)
    return TokenAnswer(200, {k: v for k, v in row.profile.items() if k != GRANTED})


def granted_scopes(db: Session, access_token: str) -> tuple[str, ...] | None:
    """The scopes granted with ``access_token``; None when the sandbox did not issue it
    or issued it before grants recorded their scopes (then everything asked was granted)."""
    row = db.get(SandboxGrant, _hash(access_token))
    return None if row is None else _granted(row)


def _granted(grant: SandboxGrant) -> tuple[str, ...] | None:
    scope = grant.profile.get(GRANTED)
    return tuple(scope.split()) if isinstance(scope, str) else None


def expire_grant(db: Session, access_token: str) -> bool:
    """The operator's knob: the access token lapses now and the refresh tokens of its
    grant are revoked, so the next refresh is refused."""
    row = db.get(SandboxGrant, _hash(access_token))
    if row is None:
        return False
    now = utcnow()
    db.execute(
        update(SandboxGrant)
        .where(SandboxGrant.grant_id == row.grant_id, SandboxGrant.kind == "refresh")
        .values(revoked_at=now)
        .execution_options(synchronize_session=False)
    )
    db.execute(
        update(SandboxGrant)
        .where(SandboxGrant.grant_id == row.grant_id, SandboxGrant.kind == "access")
        .values(expires_at=now)
        .execution_options(synchronize_session=False)
    )
    return True
