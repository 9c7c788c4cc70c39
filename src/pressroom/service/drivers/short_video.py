"""short_video on TikTok: the Content Posting API's direct post, the video sent in chunks.

Set ``PRESSROOM_SHORT_VIDEO_CLIENT_ID`` (TikTok's "client key") and ``_CLIENT_SECRET`` from a
TikTok app with Login Kit and the Content Posting API (direct post on), and
``{PRESSROOM_BASE_URL}/oauth/callback/short_video`` as its redirect URI.

What the driver does, and the pages it follows (read 2026-11-26):

- consent at ``https://www.tiktok.com/v2/auth/authorize/`` with ``user.info.basic,
  video.publish,video.list`` (comma-separated; ``video.list`` for the metrics below); code and refresh at ``POST
  https://open.tiktokapis.com/v2/oauth/token/`` with ``client_key`` and the secret in the
  form (https://developers.tiktok.com/doc/oauth-user-access-token-management). Access
  tokens last a day, refresh tokens a year;
- profile: the creator's handle and nickname from ``/v2/post/publish/creator_info/query/``
  (scope ``video.publish``), not ``/v2/user/info/``, whose ``username`` needs
  ``user.info.profile`` (https://developers.tiktok.com/bulletin/user-info-scope-migration);
- publish, as TikTok requires for direct posts: the creator's settings first
  (``/v2/post/publish/creator_info/query/``). The privacy level and the interactions
  are the owner's choices (the body's ``privacyLevel``, ``allowComments``,
  ``allowDuet``, ``allowStitch``): TikTok's rules say "no default value" for the
  privacy, among the levels the account offers, and interactions off unless turned on
  (https://developers.tiktok.com/doc/content-sharing-guidelines). A post without a
  level, with one the account does not offer, allowing an interaction the account's
  settings turn off, or longer than the creator's ``max_video_post_duration_sec`` is
  refused before anything is sent. Then ``/v2/post/publish/video/init/`` with
  ``FILE_UPLOAD``, then the bytes PUT to the returned ``upload_url`` in chunks read from
  storage: at least 5 MB and at most 64 MB each, the last one taking the trailing
  bytes, a video under 5 MB in one piece
  (https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide,
  https://developers.tiktok.com/doc/content-posting-api-reference-direct-post);
- TikTok then processes the video: ``/v2/post/publish/status/fetch/`` is polled until
  ``PUBLISH_COMPLETE`` or ``FAILED`` (its ``fail_reason`` says what the failure is) for
  up to ``publish_wait_seconds``; still processing after that, the outcome is unknown
  (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status).
  TikTok gives a public post id only for a public post its moderation passed; until
  then, and for good for a private post, the ``publish_id`` is the post's reference and
  the account's profile its URL;
- a photo post (the body's ``format`` ``photo``): ``/v2/post/publish/content/init/``
  with ``media_type`` PHOTO, ``post_mode`` DIRECT_POST, the images (``Delivery.items``,
  or the one file) as signed links TikTok pulls (``PULL_FROM_URL``: the links' domain
  must be verified for the app) and the first as cover, ``post_info`` as for a video
  with the caption as ``description``; then ``status/fetch`` as for a video
  (https://developers.tiktok.com/doc/content-posting-api-reference-photo-post);
- look-up of an unknown outcome: ``status/fetch`` again, with the ``publish_id`` kept on
  the record. The account's video list (``/v2/video/list/``) shows public videos only,
  with titles cut at 150 characters, so a private post would never be found there;
- metrics: ``POST /v2/video/query/?fields=id,like_count,comment_count,share_count,view_count``
  with ``{"filters": {"video_ids": [id]}}``, scope ``video.list``
  (https://developers.tiktok.com/doc/tiktok-api-v2-video-query, the fields from
  https://developers.tiktok.com/doc/tiktok-api-v2-video-object). Only a public post id
  can be asked about: a post still known by its ``publish_id`` (private, or not yet
  through moderation) is ``MetricsUnsupported``, as is a video the answer leaves out
  (deleted on the network, or no longer the account's). A connection made before
  ``video.list`` was asked for is answered 401 ``scope_not_authorized``: when the token
  still answers creator_info, that is ``MetricsUnsupported`` too (reconnecting grants
  it), not a revoked token, so a metrics round never turns a connection that still
  posts inactive.

TikTok answers errors in the body (``error.code`` other than ``ok``), with a 4xx or, from
creator_info, a 200: classed by its own tables (``REFUSALS``, ``FAIL_REASONS``, the rate
and daily-cap codes); ``access_token_invalid`` and ``scope_not_authorized`` are a grant
to renew.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from pressroom.platforms import Platform, PostFormat
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    LookupUnsupported,
    Media,
    MediaSource,
    MetricsUnsupported,
    NetworkMisconfigured,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    PostMetrics,
    Profile,
    Published,
    ThumbnailChange,
    ThumbnailSet,
    TokenSet,
    check_before_sending,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import (
    Finding,
    Inspection,
    Standing,
    quota_finding,
    scope_finding,
    scope_states,
)
from pressroom.service.drivers.oauth2 import consent_url, token_call
from pressroom.service.drivers.tokens import TokenSource

AUTHORIZE_URL = "https://www.tiktok.com/v2/auth/authorize/"
API = "https://open.tiktokapis.com/v2"
TOKEN_URL = f"{API}/oauth/token/"
METRICS_SCOPE = "video.list"
"""What ``/v2/video/query/`` requires (https://developers.tiktok.com/doc/tiktok-api-v2-video-query)."""
SCOPES = ("user.info.basic", "video.publish", METRICS_SCOPE)
"""Login Kit's basic profile, posting (creator_info, init and the post's status all
take ``video.publish``) and reading a post's figures (``video.list``); the account's
video list is not read."""
PUBLISH_SCOPES = ("video.publish",)
"""What a post's calls require (creator_info, init, status: the direct-post reference)."""
METRICS_SCOPES: dict[str, tuple[str, ...]] = {
    METRICS_SCOPE: ("views", "likes", "comments", "shares")
}
"""The figures (``PostMetrics``'s names) read under a scope publishing does not need:
every one comes from the video query, so a grant without ``video.list`` gets no figures
at all (``MetricsUnsupported``, ``fetch_metrics``;
https://developers.tiktok.com/doc/tiktok-api-v2-video-query)."""
BASIC_SCOPE = "user.info.basic"
"""What ``/v2/user/info/`` needs for ``open_id`` and ``display_name`` (Get User Info)."""
UNAUDITED = (
    "until TikTok audits the app, every post must be SELF_ONLY from an account set to "
    "private, and at most 5 people a day can post through it: any other post is refused "
    "(unaudited_client_can_only_post_to_private_accounts, a 400 naming privacyLevel). Ask "
    "for the audit in TikTok's developer portal"
)
"""What an unaudited app may do (https://developers.tiktok.com/doc/content-sharing-guidelines)."""
MIN_CHUNK = 5 * 1024 * 1024
CHUNK_BYTES = 10 * 1024 * 1024
"""Within TikTok's 5-64 MB; the last chunk may run to twice this, under its 128 MB cap."""
PUBLISH_WAIT_SECONDS = 120.0
POLL_SECONDS = 3.0
INTERACTIONS = (
    ("allowComments", "disable_comment", "comment_disabled", "comments"),
    ("allowDuet", "disable_duet", "duet_disabled", "Duets"),
    ("allowStitch", "disable_stitch", "stitch_disabled", "Stitches"),
)
"""(publish body field, TikTok's post_info flag, creator_info's "turned off" flag, name)."""
METRICS_REQUESTS_PER_HOUR = 36000
"""``/v2/video/query/``: 600 requests a minute, over a sliding minute, by default.
Source: https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit"""
METRICS_FIELDS = ("id", "like_count", "comment_count", "share_count", "view_count")
"""The Video Object's counts (https://developers.tiktok.com/doc/tiktok-api-v2-video-object)."""
RATE_CODES = frozenset({"rate_limit_exceeded"})
"""TikTok's per-minute limits per token (https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit)."""
DAILY_CAP_CODES = frozenset({"spam_risk_too_many_posts", "spam_risk_too_many_pending_share"})
"""The account's daily posting cap through the API, over a rolling 24 hours."""
DAILY_CAP_RETRY_SECONDS = 3600
"""TikTok says neither the cap nor when it frees a post: try again in an hour."""
GRANT_CODES = frozenset({"access_token_invalid", "scope_not_authorized"})
REFUSALS: dict[str, str | None] = {
    # The direct-post reference's error table: refusals for good, and the body field
    # each is about (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post).
    "unaudited_client_can_only_post_to_private_accounts": "privacyLevel",
    "privacy_level_option_mismatch": "privacyLevel",
    "reached_active_user_cap": None,
    "url_ownership_unverified": None,
    "spam_risk_user_banned_from_posting": None,
    "invalid_param": None,
}
REFUSAL_HINTS = {
    "unaudited_client_can_only_post_to_private_accounts": (
        "an app TikTok has not audited may post only to an account set to private, with "
        "privacyLevel SELF_ONLY"
    ),
    "reached_active_user_cap": "the app's daily number of posting users is reached",
    "spam_risk_user_banned_from_posting": "TikTok has banned this account from posting",
}
FAIL_REASONS: dict[str, str | None] = {
    # The Get Post Status page's fail_reason table: the post is refused for good, and the
    # field it is about (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status).
    "file_format_check_failed": "fileId",
    "duration_check_failed": "fileId",
    "frame_rate_check_failed": "fileId",
    "picture_size_check_failed": "fileId",
    "spam_risk_text": "caption",
    "spam_risk": None,
    "spam_risk_user_banned_from_posting": None,
    "publish_cancelled": None,
}
RETRYABLE_FAIL_REASONS = frozenset({"internal", "video_pull_failed", "photo_pull_failed"})
"""Failures TikTok calls retryable: nothing was published, so sending again is safe."""


def chunk_plan(size: int, chunk: int = CHUNK_BYTES) -> list[tuple[int, int]]:
    """The byte ranges (start, stop) TikTok's chunk rules allow for a file of ``size``."""
    if size < MIN_CHUNK:
        return [(0, size)]
    chunk = min(chunk, size)
    count = size // chunk
    edges = [i * chunk for i in range(count)] + [size]
    return list(itertools.pairwise(edges))


class TikTokDriver:
    platform = Platform.SHORT_VIDEO
    refresh_ahead = timedelta(minutes=10)

    def __init__(
        self,
        client_key: str,
        client_secret: str,
        tokens: TokenSource,
        http: NetworkClient,
        media: MediaSource,
        *,
        chunk_bytes: int = CHUNK_BYTES,
        publish_wait_seconds: float = PUBLISH_WAIT_SECONDS,
        poll_seconds: float = POLL_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not MIN_CHUNK <= chunk_bytes <= 64 * 1024 * 1024:
            raise ValueError("TikTok takes chunks of 5 to 64 MB")
        self.client_key = client_key
        self._client_secret = client_secret
        self.tokens = tokens
        self.http = http
        self.media = media
        self.chunk_bytes = chunk_bytes
        self.publish_wait_seconds = publish_wait_seconds
        self.poll_seconds = poll_seconds
        self._sleep = sleep

    # --- connect ---------------------------------------------------------------
    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        return consent_url(
            AUTHORIZE_URL,
            {
                "client_key": self.client_key,
                "scope": ",".join(SCOPES),
                "response_type": "code",
                "redirect_uri": redirect_uri,
                "state": state,
            },
        )

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        form = {
            "client_key": self.client_key,
            "client_secret": self._client_secret,
            "code": code,
            "grant_type": "authorization_code",
            "redirect_uri": redirect_uri,
        }
        return token_call(self.http, TOKEN_URL, form)

    def refresh(self, refresh_token: str) -> TokenSet:
        form = {
            "client_key": self.client_key,
            "client_secret": self._client_secret,
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
        }
        return token_call(self.http, TOKEN_URL, form)

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        """The account from the creator's posting settings, which need only
        ``video.publish``: ``/v2/user/info/`` answers ``username`` only with
        ``user.info.profile`` (https://developers.tiktok.com/bulletin/user-info-scope-migration),
        a scope more to ask of every user for one field creator_info already gives."""
        creator = self._creator(tokens.access_token)
        handle = str(creator.get("creator_username") or "")
        if not handle:
            raise PlatformUnavailable(
                "TikTok named no creator for this account", retry_after=30, sent=False
            )
        return Profile(name=handle, display_name=str(creator.get("creator_nickname") or handle))

    def inspect(self, account: Account) -> Inspection:
        """TikTok has no token introspection: each scope shows by the read that needs it
        (``creator_info`` for ``video.publish``, ``/v2/user/info/`` for
        ``user.info.basic``); a 401 from one while the other answers is that scope
        missing. The account's privacy levels, interactions and longest video come from
        creator_info; whether the app is audited TikTok does not say."""
        token = self.tokens.access_token(account.connection_id)
        creator: dict[str, Any] | None = None
        basic = True
        try:
            creator = self._creator(token)
        except AccessRevoked:
            creator = None
        try:
            data_of(
                self.http.request(
                    "GET",
                    f"{API}/user/info/",
                    token=token,
                    params={"fields": "open_id,display_name"},
                ),
                sent=False,
            )
        except AccessRevoked:
            basic = False
        if creator is None and not basic:
            raise AccessRevoked("TikTok refused the connection's token: reconnect it")
        shown = {BASIC_SCOPE: basic, **{s: creator is not None for s in PUBLISH_SCOPES}}
        scopes = scope_states(
            SCOPES,
            granted=[s for s, ok in shown.items() if ok],
            missing=[s for s, ok in shown.items() if not ok],
        )
        source = "which of creator_info and user/info answered"
        findings = [scope_finding(scopes, PUBLISH_SCOPES, source)]
        levels = [str(v) for v in (creator or {}).get("privacy_level_options") or []]
        kind = (
            "public"
            if "PUBLIC_TO_EVERYONE" in levels
            else "private"
            if "FOLLOWER_OF_CREATOR" in levels
            else None
        )
        if creator is not None:
            findings += _creator_findings(creator, levels, kind)
        findings.append(
            Finding(
                "audit",
                "TikTok does not tell an app whether it is audited (no API says)",
                UNAUDITED
                + (
                    "; this account is public, so an unaudited app cannot post to it"
                    if kind == "public"
                    else ""
                ),
                Standing.UNKNOWN,
            )
        )
        findings.append(quota_finding("TikTok", None))
        return Inspection(
            network="TikTok",
            account=str((creator or {}).get("creator_username") or account.name),
            scopes=scopes,
            scopes_source=source,
            account_type=kind,
            audit="not readable: TikTok has no API for an app's audit",
            findings=tuple(findings),
        )

    # --- publish ---------------------------------------------------------------
    def publish(self, delivery: Delivery) -> Published:
        check_before_sending(delivery)
        if delivery.fields.get("format") == PostFormat.PHOTO:
            return self._photo(delivery)
        media = delivery.media
        assert media is not None and media.size is not None  # a ready video
        token = self.tokens.access_token(delivery.account.connection_id)
        creator = self._creator(token)
        post_info = post_info_of(delivery.fields, creator)
        _refuse_if_too_long(media, creator)
        plan = chunk_plan(media.size, self.chunk_bytes)
        init = data_of(
            self._post(
                token,
                "/post/publish/video/init/",
                {
                    "post_info": post_info,
                    "source_info": {
                        "source": "FILE_UPLOAD",
                        "video_size": media.size,
                        "chunk_size": plan[0][1] - plan[0][0],
                        "total_chunk_count": len(plan),
                    },
                },
            ),
            sent=False,
        )
        publish_id = str(init["publish_id"])
        try:
            self._upload(str(init["upload_url"]), media, plan)
            status = self._await_publish(token, publish_id)
        except PlatformUnavailable as exc:
            if exc.sent:  # the look-up asks TikTok about this publish_id, nothing else
                exc.reference = exc.reference or publish_id
            raise
        return _published(status, publish_id, delivery)

    def _photo(self, delivery: Delivery) -> Published:
        """A photo post (https://developers.tiktok.com/doc/content-posting-api-reference-photo-post):
        the creator's settings first, as for a video, then ``POST
        /v2/post/publish/content/init/`` with ``media_type`` PHOTO, ``post_mode``
        DIRECT_POST and the images as signed links TikTok pulls (``PULL_FROM_URL``; TikTok
        pulls only from a domain or URL prefix the app has verified, else
        ``url_ownership_unverified``), then the status polled as for a video. The init
        itself starts the post (there are no bytes to send after it), so once it was
        sent a failure is an unknown outcome, looked up by the ``publish_id`` when TikTok
        gave one."""
        _refuse_photo_interactions(delivery.fields)
        images = delivery.items or ((delivery.media,) if delivery.media is not None else ())
        token = self.tokens.access_token(delivery.account.connection_id)
        creator = self._creator(token)
        post_info = photo_post_info_of(delivery.fields, creator)
        links = [self.media.url(m.file_id, m.storage_key, m.content_type) for m in images]
        response = self._post(
            token,
            "/post/publish/content/init/",
            {
                "media_type": "PHOTO",
                "post_mode": "DIRECT_POST",
                "post_info": post_info,
                "source_info": {
                    "source": "PULL_FROM_URL",
                    "photo_images": links,
                    # The cover is the first image, by its index in photo_images
                    # (counted from 0, as the page's example and every client read
                    # here use it; the page's wording is not explicit).
                    "photo_cover_index": 0,
                },
            },
            creates=True,
        )
        if _error_code(response) == "url_ownership_unverified":
            raise NetworkMisconfigured(
                "TikTok pulls photos only from a domain the app has verified: verify the "
                "domain of PRESSROOM_BASE_URL (or its storage's public URL) for the app in "
                "TikTok's developer portal (url_ownership_unverified)"
            )
        publish_id = str(data_of(response, sent=True)["publish_id"])
        try:
            status = self._await_publish(token, publish_id)
        except PlatformUnavailable as exc:
            if exc.sent:
                exc.reference = exc.reference or publish_id
            raise
        return _published(status, publish_id, delivery)

    def _upload(self, upload_url: str, media: Media, plan: list[tuple[int, int]]) -> None:
        for start, stop in plan:
            response = self.http.request(
                "PUT",
                upload_url,
                headers={
                    "Content-Type": media.content_type,
                    "Content-Range": f"bytes {start}-{stop - 1}/{media.size}",
                },
                content=b"".join(self.media.read(media.storage_key, start, stop)),
                creates=stop == media.size,
            )
            if response.status_code not in (200, 201, 206):
                raise PlatformUnavailable(
                    f"TikTok refused a chunk ({response.status_code})",
                    retry_after=30,
                    sent=stop == media.size,
                )

    def _await_publish(self, token: str, publish_id: str) -> dict[str, Any]:
        """Poll the post's status until TikTok has published it (its status answer) or
        failed it (the failure its reason says)."""
        deadline = time.monotonic() + self.publish_wait_seconds
        while True:
            status = self._status(token, publish_id)
            state = status.get("status")
            if state == "PUBLISH_COMPLETE":
                return status
            if state == "FAILED":
                raise _failed(status)
            if time.monotonic() >= deadline:
                raise PlatformUnavailable(
                    f"TikTok is still processing the video ({state}); its outcome is looked up later",
                    retry_after=60,
                    sent=True,
                    reference=publish_id,
                )
            self._sleep(self.poll_seconds)

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        """Ask TikTok about the ``publish_id`` it gave the attempt. TikTok lists an
        account's public videos only, with titles cut at 150 characters
        (https://developers.tiktok.com/doc/tiktok-api-v2-video-list), so a private post
        or a long caption could never be found there; the post's status can be."""
        publish_id = delivery.platform_reference
        if publish_id is None:
            raise LookupUnsupported(
                "TikTok can be asked about a post only by the publish_id it gave, and "
                "this attempt has none"
            )
        token = self.tokens.access_token(delivery.account.connection_id)
        try:
            status = self._status(token, publish_id)
        except PlatformRefused as exc:  # invalid_publish_id: TikTok no longer knows it
            raise LookupUnsupported(f"TikTok cannot say what became of the post ({exc})") from exc
        state = status.get("status")
        if state == "PUBLISH_COMPLETE":
            return _published(status, publish_id, delivery)
        if state == "FAILED":
            return None  # TikTok failed it: nothing was published
        raise PlatformUnavailable(
            f"TikTok is still processing the video ({state})", retry_after=60, sent=True
        )

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        raise PlatformRefused("short_video posts take no custom thumbnail")

    # --- metrics ---------------------------------------------------------------
    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """The video's counts from ``/v2/video/query/`` (module docstring): views,
        likes, comments, shares; TikTok's Display API counts no impressions, saves or
        clicks, so those stay None."""
        if not platform_post_id.isdigit():
            raise MetricsUnsupported(
                "TikTok gives figures only for a public video, and this post is known by "
                "its publish_id alone (private, or not yet through TikTok's moderation)"
            )
        token = self.tokens.access_token(account.connection_id)
        try:
            response = self.http.request(
                "POST",
                f"{API}/video/query/",
                token=token,
                read=True,
                params={"fields": ",".join(METRICS_FIELDS)},
                headers={"Content-Type": "application/json; charset=UTF-8"},
                json={"filters": {"video_ids": [platform_post_id]}},
            )
            data = data_of(response, sent=False)
        except AccessRevoked as exc:
            # A 401 for a refused token and for a scope not granted look alike here: the
            # token still answering creator_info (video.publish) means only video.list is
            # missing, as inspect tells scopes apart (a refused token raises from there).
            self._creator(token)
            raise metrics_scope_missing(exc) from exc
        except PlatformRefused as exc:
            raise MetricsUnsupported(f"TikTok will not answer for this video ({exc})") from exc
        videos = [v for v in data.get("videos") or [] if str(v.get("id")) == platform_post_id]
        if not videos:
            raise MetricsUnsupported(
                "deleted on the network: TikTok has no such video of this account"
            )
        video = videos[0]
        return PostMetrics(
            views=_count(video, "view_count"),
            likes=_count(video, "like_count"),
            comments=_count(video, "comment_count"),
            shares=_count(video, "share_count"),
        )

    def _creator(self, token: str) -> dict[str, Any]:
        """The creator's posting settings: who they are, the privacy levels and
        interactions their account allows, the longest video they may post
        (https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info)."""
        return data_of(self._post(token, "/post/publish/creator_info/query/", {}), sent=False)

    def _status(self, token: str, publish_id: str) -> dict[str, Any]:
        """The post's status (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status)."""
        response = self._post(token, "/post/publish/status/fetch/", {"publish_id": publish_id})
        return data_of(response, sent=True)

    def _post(
        self, token: str, path: str, body: dict[str, Any], *, creates: bool = False
    ) -> httpx.Response:
        return self.http.request(
            "POST",
            f"{API}{path}",
            token=token,
            creates=creates,
            headers={"Content-Type": "application/json; charset=UTF-8"},
            json=body,
        )


def post_info_of(fields: dict[str, Any], creator: dict[str, Any]) -> dict[str, Any]:
    """TikTok's ``post_info`` from the owner's choices, refused before anything is sent
    where TikTok would refuse it or its rules forbid choosing for the owner.

    TikTok's direct-post rules (https://developers.tiktok.com/doc/content-sharing-guidelines):
    the privacy level is the owner's choice among the account's options, "with no
    default value"; comments, Duets and Stitches are off unless the owner turns them
    on, and cannot be turned on where the account's settings turn them off."""
    offered = [str(level) for level in creator.get("privacy_level_options") or []]
    chosen = fields.get("privacyLevel")
    if chosen is None or chosen not in offered:
        choice = "needs privacyLevel" if chosen is None else f"does not offer {chosen}"
        raise PlatformRefused(
            f"TikTok {choice} for this account: choose one of {', '.join(offered) or 'none'} "
            "(TikTok has the owner choose the privacy of every post, with no default; an "
            "app TikTok has not audited may post SELF_ONLY only).",
            field="privacyLevel",
        )
    post_info: dict[str, Any] = {"privacy_level": chosen}
    if fields.get("caption"):
        post_info["title"] = fields["caption"]
    for field, flag, turned_off, name in INTERACTIONS:
        allowed = fields.get(field) is True
        if allowed and creator.get(turned_off):
            raise PlatformRefused(
                f"This TikTok account's settings turn {name} off for everyone, so the "
                f"post cannot allow them: leave {field} out or false.",
                field=field,
            )
        post_info[flag] = not allowed
    # Marked required in the direct-post reference (its examples leave it out; whether
    # TikTok refuses the omission is not confirmed): sent, as the omission meant, as no
    # paid partnership.
    post_info["brand_content_toggle"] = False
    return post_info


def photo_post_info_of(fields: dict[str, Any], creator: dict[str, Any]) -> dict[str, Any]:
    """``post_info`` of a photo post: the privacy level and comments as the owner chose
    them, checked as for a video (``post_info_of``), and the caption as the post's
    ``description`` (up to 4000 UTF-16 units for a photo post, where its ``title`` takes
    90) (https://developers.tiktok.com/doc/content-posting-api-reference-photo-post)."""
    _refuse_photo_interactions(fields)
    video = post_info_of(fields, creator)
    post_info: dict[str, Any] = {
        "privacy_level": video["privacy_level"],
        "disable_comment": video["disable_comment"],
        "brand_content_toggle": video["brand_content_toggle"],
    }
    if fields.get("caption"):
        post_info["description"] = fields["caption"]
    return post_info


def _refuse_photo_interactions(fields: dict[str, Any]) -> None:
    """A photo post has no Duets or Stitches (its ``post_info`` lists neither): a post
    allowing them is refused, rather than the owner's choice dropped."""
    for field, _, _, name in INTERACTIONS[1:]:
        if fields.get(field) is True:
            raise PlatformRefused(
                f"A TikTok photo post has no {name}: leave {field} out or false.", field=field
            )


def _error_code(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    return str(error.get("code")) if isinstance(error, dict) else None


def _creator_findings(
    creator: dict[str, Any], levels: list[str], kind: str | None
) -> list[Finding]:
    """What creator_info says the account allows: its privacy levels, its interactions,
    its longest video."""
    found = [
        Finding(
            "account type",
            f"{kind or 'unknown'} account",
            f"each post must choose its privacyLevel among {', '.join(levels) or 'none'}",
            Standing.OK if levels else Standing.BLOCKED,
        )
    ]
    off = [name for _, _, flag, name in INTERACTIONS if creator.get(flag)]
    found.append(
        Finding(
            "interactions",
            f"turned off by the account: {', '.join(off)}" if off else "none turned off",
            "a post allowing one of them is refused; leave it out" if off else "any may be allowed",
            Standing.WARNING if off else Standing.OK,
        )
    )
    longest = creator.get("max_video_post_duration_sec")
    if isinstance(longest, int | float):
        found.append(
            Finding(
                "longest video",
                f"{longest:g} s (max_video_post_duration_sec)",
                "a longer video is refused before anything is sent",
                Standing.OK,
            )
        )
    return found


def _refuse_if_too_long(media: Media, creator: dict[str, Any]) -> None:
    """Each creator has their own longest video (creator_info's
    ``max_video_post_duration_sec``: "Developers should use this field to stop video
    posts that are too long"), so this rule is not in the rule table: it is read per
    post, and a longer video refused before its bytes are sent."""
    longest = creator.get("max_video_post_duration_sec")
    length = media.duration_seconds
    if isinstance(longest, int | float) and length is not None and length > longest:
        raise PlatformRefused(
            f"TikTok lets this account post videos of at most {longest:g} s "
            f"(max_video_post_duration_sec, its own limit); this one lasts {length:g} s.",
            field="fileId",
        )


def metrics_scope_missing(refused: Exception) -> MetricsUnsupported:
    """A video query refused for want of ``video.list`` (the token still answering
    creator_info): no figures until the connection is made again with it."""
    return MetricsUnsupported(
        f"the connection was not granted {METRICS_SCOPE}, which TikTok's video "
        f"query needs: reconnect it to grant it ({refused})"
    )


def data_of(response: httpx.Response, *, sent: bool) -> dict[str, Any]:
    """The ``data`` of a TikTok answer, or its error as the service's failure."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {}
    found = body.get("error")
    error: dict[str, Any] = found if isinstance(found, dict) else {}
    code = str(error.get("code") or ("ok" if response.status_code == 200 else "unknown"))
    if code == "ok" and response.status_code == 200:
        data = body.get("data")
        return data if isinstance(data, dict) else {}
    said = str(error.get("message") or f"HTTP {response.status_code}")
    message = f"TikTok answered {code}: {said}"
    if code in RATE_CODES:
        raise PlatformRateLimited(message, retry_after=60)
    if code in DAILY_CAP_CODES:
        raise PlatformRateLimited(
            f"{message} (the account's daily posts through the API are used up)",
            retry_after=DAILY_CAP_RETRY_SECONDS,
        )
    if code in GRANT_CODES:
        raise AccessRevoked(message)
    if code in REFUSALS:
        hint = REFUSAL_HINTS.get(code)
        raise PlatformRefused(f"{message}{f' ({hint})' if hint else ''}", field=REFUSALS[code])
    if response.status_code in (400, 403):  # TikTok's 4xx are refusals of the request
        raise PlatformRefused(message)
    raise PlatformUnavailable(message, retry_after=30, sent=sent)


def _count(video: dict[str, Any], name: str) -> int | None:
    value = video.get(name)
    return int(value) if isinstance(value, int) else None


def _failed(status: dict[str, Any]) -> Exception:
    """What a post TikTok reports ``FAILED`` becomes: nothing was published."""
    reason = str(status.get("fail_reason") or "no reason given")
    message = f"TikTok could not publish the video ({reason})"
    if reason in RETRYABLE_FAIL_REASONS:
        return PlatformUnavailable(message, retry_after=60, sent=False)
    if reason == "auth_removed":
        return AccessRevoked(message)
    if reason in DAILY_CAP_CODES:
        return PlatformRateLimited(message, retry_after=DAILY_CAP_RETRY_SECONDS)
    return PlatformRefused(message, field=FAIL_REASONS.get(reason, "fileId"))


def _published(status: dict[str, Any], publish_id: str, delivery: Delivery) -> Published:
    """A post TikTok reports ``PUBLISH_COMPLETE``. Its public id comes only for a public
    post TikTok's moderation has passed (usually within a minute, sometimes hours); until
    then, and for good for a private post, the publish_id stays the post's reference and
    the account's profile its URL: a ``/video/{publish_id}`` link leads nowhere."""
    public = [str(i) for i in status.get("publicaly_available_post_id") or []]
    handle = delivery.account.name.lstrip("@")
    profile = f"https://www.tiktok.com/@{handle}"
    return Published(
        public[0] if public else publish_id,
        f"{profile}/video/{public[0]}" if public else profile,
        datetime.now(UTC),
        extra={
            "publishId": publish_id,
            "publiclyAvailable": bool(public),
            "privacyLevel": delivery.fields.get("privacyLevel"),
        },
    )
