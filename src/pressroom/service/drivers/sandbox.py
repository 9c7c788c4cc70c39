"""The default driver: a faithful stand-in for the eight platforms.

It answers with ids and URLs shaped like each platform's (``shapes``), records every
delivery in ``sandbox_deliveries`` (the platform's side of the story), and has knobs to
rehearse bad days (``PRESSROOM_SANDBOX_*``):

- ``LATENCY_MS``: every call takes this long (a publish through the API sleeps on the
  event loop, ``publish_async``: the sandbox has no network to block on; other calls
  sleep on their worker thread).
- ``FAILURE_RATE``: the share of calls that fail transiently, drawn from a random
  generator seeded by ``SEED`` when given, so a run can be repeated.
- ``FAILURE_MODE``: ``before`` fails before anything is recorded (a resend is safe);
  ``after`` records the delivery, then fails: the post exists but the caller hears 503,
  the unknown outcome a careful client must resolve without resending blindly.
- ``DEDUPE`` (on by default): a delivery that carries a client token (the caller's
  Idempotency-Key) is recorded once per token within ``TOKEN_WINDOW``, as platforms
  that accept such tokens do. Most real networks take none, so every exactly-once test
  turns it off: otherwise a double send would hide behind it.
- ``find_delivery`` searches the account's posts by content (and, for a thread's
  reply, the post it replies to) since the send, as a real driver searches a network's
  recent posts.
- What the real network behind a label refuses by its rules (``pressroom.rules``: X's
  weighted length, YouTube's bytes and angle brackets, a video too long for Instagram),
  the sandbox refuses too, before recording anything, naming the field and the rule.
- What the network refuses beyond its rules, it refuses too, with the network's own
  answer read as the real driver reads it (``sandbox_network``): a post on a connection
  whose grant lacks a scope the network requires for it (the consent page lets a scope
  be withheld); on short_video a post without the owner's ``privacyLevel``, and, when
  ``SHORT_VIDEO_AUDITED`` is off, any level but ``SELF_ONLY``; a post over the
  account's daily quota (the rule table's ``posts_per_day``: Instagram 100, Threads 250
  in a moving 24 hours, counted from this sandbox's own records of the connection;
  ``SANDBOX_DAILY_QUOTAS`` off lifts it, for load rehearsals).
- photo_sharing and text_thread posts go through a media container that is ready
  ``CONTAINER_READY_MS`` after it is made (at once by default); the driver waits for it
  as the real ones do (``meta.poll_delays``, up to ``META_CONTAINER_WAIT_SECONDS``), and
  a container still not ready then is never published (503, nothing sent).

The knobs are read on every call, so a test can turn them while the service runs.

Connect runs OAuth 2.0 (authorization code, PKCE, ``state``) with authlib's httpx
client, as a real network's driver does. The sandbox's authorization server lives in
this service (``sandbox_oauth``; its pages under ``/sandbox/<platform>/oauth/``); the
driver reaches its token and userinfo endpoints through an in-process httpx transport
that calls the same functions as those HTTP routes, so the CLI connects without a
running server and a request never waits on a call back into its own server.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import authlib.deprecate
import httpx
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from pressroom.platforms import Platform, PostFormat
from pressroom.rules import CAROUSELS, rules_of
from pressroom.rules.model import PostsPerDay
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Connection
from pressroom.service.db.prepared import Link
from pressroom.service.db.session import transaction
from pressroom.service.db.writer import Tx, Unit, Writes, writes_for
from pressroom.service.drivers import grants, meta, sandbox_network, sandbox_oauth, shapes
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    Media,
    MetricsUnsupported,
    PlatformUnavailable,
    PostMetrics,
    Profile,
    Published,
    ThumbnailChange,
    ThumbnailSet,
    TokenRefused,
    TokenSet,
    check_before_sending,
    check_thumbnail_before_sending,
)
from pressroom.service.drivers.deliveries import DeliveryRepository, add_delivery, earlier_post
from pressroom.service.drivers.inspection import (
    Finding,
    Inspection,
    QuotaLeft,
    Standing,
    quota_finding,
    scope_finding,
    scope_states,
)
from pressroom.service.drivers.sandbox_metrics import REPORTED, sandbox_metrics
from pressroom.service.drivers.short_video import post_info_of
from pressroom.service.drivers.tokens import ConnectionTokens, TokenSource
from pressroom.settings import SandboxSettings
from pressroom.statuses import ConnectionStatus

with warnings.catch_warnings():
    # authlib announces a future move of its httpx integration to "httpx2"; the
    # integration works with httpx today, and the notice would reach every CLI user.
    warnings.simplefilter("ignore", authlib.deprecate.AuthlibDeprecationWarning)
    from authlib.integrations.base_client.errors import OAuthError
    from authlib.integrations.httpx_client import OAuth2Client

RETRY_AFTER_SECONDS = 2

POST = "post"
COMMENT = "comment"
"""The kinds of delivery a publish records: a post (or a thread's reply), or a first
comment on a post (``Delivery.comment_on``), which no daily post quota counts."""
CLOCK_SLACK = timedelta(seconds=5)
"""A platform's clock and ours disagree a little: search from a little before the send."""

TOKEN_WINDOW = timedelta(days=7)
"""How long a client token is remembered: as long as the service keeps keys (7 days)."""

CONTAINERS = frozenset({Platform.PHOTO_SHARING, Platform.TEXT_THREAD})
"""Where a post goes through a media container that must be ready before it is published."""

CREATOR: dict[str, Any] = {
    "privacy_level_options": [
        "PUBLIC_TO_EVERYONE",
        "MUTUAL_FOLLOW_FRIENDS",
        "FOLLOWER_OF_CREATOR",
        "SELF_ONLY",
    ],
    "comment_disabled": False,
    "duet_disabled": False,
    "stitch_disabled": False,
}
"""The sandbox's TikTok creator settings (``creator_info``): every level TikTok has,
where a real account offers three (a public account PUBLIC_TO_EVERYONE, a private one
FOLLOWER_OF_CREATOR, both MUTUAL_FOLLOW_FRIENDS and SELF_ONLY), and no interaction
turned off."""


def _media_payload(media: Media) -> dict[str, Any]:
    return {
        "fileId": media.file_id,
        "kind": media.kind.value,
        "contentType": media.content_type,
        "durationSeconds": media.duration_seconds,
        # What the network got: the file fitted for it, when one was made.
        "storageKey": media.storage_key,
        "size": media.size,
    } | ({"altText": media.alt_text} if media.alt_text is not None else {})


def _format_of(delivery: Delivery) -> PostFormat:
    """The format the post was sent in (checked by ``check_before_sending``)."""
    return PostFormat(delivery.fields.get("format") or PostFormat.POST)


def _items_of(payload: Any, at: datetime) -> tuple[Published, ...]:
    """A carousel's items as recorded with it, where the network names them."""
    items = payload.get("items") if isinstance(payload, dict) else None
    return tuple(
        Published(item["platformPostId"], item["url"], at)
        for item in items or ()
        if item.get("platformPostId")
    )


def _same_items(recorded: Any, delivery: Delivery) -> bool:
    files = [item.get("fileId") for item in recorded] if isinstance(recorded, list) else []
    return files == [item.file_id for item in delivery.items]


def _same_media(recorded: Any, delivery: Delivery) -> bool:
    recorded_id = recorded.get("fileId") if isinstance(recorded, dict) else None
    return recorded_id == (delivery.media.file_id if delivery.media else None)


class SandboxRandom:
    """One generator for every sandbox platform, safe to share between threads."""

    def __init__(self, seed: int | None) -> None:
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def fails(self, rate: float) -> bool:
        if rate <= 0:
            return False  # no draw: ids stay the same whatever the rate was
        with self._lock:
            return self._rng.random() < rate

    def create(self, shape: shapes.Shape, name: str, connection_id: str) -> shapes.Created:
        with self._lock:
            return shape(self._rng, name, connection_id)

    def version(self) -> int:
        with self._lock:
            return self._rng.randint(100000, 999999)


class SandboxDriver:
    refresh_ahead = timedelta(minutes=10)

    def __init__(
        self,
        platform: Platform,
        knobs: SandboxSettings,
        sessions: sessionmaker[Session],
        rng: SandboxRandom,
        *,
        base_url: str = "http://127.0.0.1:8000",
        secret: bytes = b"",
        tokens: TokenSource | None = None,
        container_wait_seconds: float = 300.0,
    ) -> None:
        self.platform = platform
        self.knobs = knobs
        self.sessions = sessions
        self.rng = rng
        self.base_url = base_url.rstrip("/")
        self.secret = secret
        self.tokens = tokens
        """The connections' tokens, to find the grant each was given (None: every scope)."""
        self.container_wait_seconds = container_wait_seconds
        self.clock: Callable[[], datetime] = utcnow
        """The network's clock: when posts are recorded, quotas counted, containers
        ready. A test sets its own, with ``sleep`` moving it on."""
        self.sleep: Callable[[float], None] = time.sleep

    # Connect: OAuth 2.0 against the sandbox's authorization server.

    def _endpoint(self, name: str) -> str:
        return f"{self.base_url}/sandbox/{self.platform.value}/oauth/{name}"

    def _client(self, redirect_uri: str | None = None, **kwargs: Any) -> OAuth2Client:
        return OAuth2Client(
            client_id=sandbox_oauth.CLIENT_ID,
            client_secret=sandbox_oauth.client_secret(self.secret),
            token_endpoint_auth_method="client_secret_post",
            code_challenge_method="S256",
            scope=" ".join(sandbox_oauth.SCOPES.get(self.platform, ())),
            redirect_uri=redirect_uri,
            transport=httpx.MockTransport(self._serve),
            timeout=10.0,
            **kwargs,
        )

    def _serve(self, request: httpx.Request) -> httpx.Response:
        """The authorization server's answer, computed in process."""
        path = request.url.path
        with transaction(self.sessions) as db:
            if path.endswith("/oauth/token"):
                form = dict(httpx.QueryParams(request.content.decode()))
                answer = sandbox_oauth.token_endpoint(db, self.platform, form, self.secret)
            elif path.endswith("/oauth/userinfo"):
                bearer = request.headers.get("Authorization", "").removeprefix("Bearer ")
                answer = sandbox_oauth.userinfo(db, self.platform, bearer)
            else:
                return httpx.Response(404, json={"error": "not_found"})
        return httpx.Response(answer.status, json=answer.body)

    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        with self._client(redirect_uri) as client:
            url, _ = client.create_authorization_url(
                self._endpoint("authorize"), state=state, code_verifier=code_verifier
            )
        return str(url)

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        with self._client(redirect_uri) as client:
            try:
                token = client.fetch_token(
                    self._endpoint("token"), code=code, code_verifier=code_verifier
                )
            except OAuthError as exc:
                raise TokenRefused(exc.error or "invalid_grant") from None
        return _token_set(token)

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        with self._client(
            token={"access_token": tokens.access_token, "token_type": "Bearer"}
        ) as client:
            response = client.get(self._endpoint("userinfo"))
        if response.status_code != 200:
            raise TokenRefused(str(response.json().get("error", "invalid_token")))
        data = response.json()
        return Profile(
            name=str(data["name"]),
            display_name=str(data.get("displayName") or data["name"]),
            account_type=data.get("accountType"),
            page_kind=data.get("pageKind"),
            pages_permission=bool(data.get("pagesPermission", True)),
            verified=bool(data.get("verified", False)),
        )

    def refresh(self, refresh_token: str) -> TokenSet:
        with self._client() as client:
            try:
                token = client.refresh_token(self._endpoint("token"), refresh_token=refresh_token)
            except OAuthError as exc:
                raise TokenRefused(exc.error or "invalid_grant") from None
        return _token_set(token)

    def publish(self, delivery: Delivery) -> Published:
        # The network's own rules, as it would answer them: a refusal naming the field
        # and the rule, before anything is recorded.
        check_before_sending(delivery)
        failing = self._begin("publishing")
        if self.platform in CONTAINERS and delivery.comment_on is None:
            self._await_container(self.clock())
        published, before = self._writes().run(self._delivered(delivery))
        if failing and not before:
            self._fail("publishing", sent=True)
        return published

    async def publish_async(self, delivery: Delivery) -> Published:
        """``publish`` on the event loop: the sandbox sends nothing over a network, so
        it needs no worker thread; its latency is an ``asyncio.sleep``, and only the
        wait for a media container (photo_sharing, text_thread), which sleeps as the
        real drivers poll, takes a thread."""
        check_before_sending(delivery)
        if self.knobs.sandbox_latency_ms > 0:
            await asyncio.sleep(self.knobs.sandbox_latency_ms / 1000)
        failing = self._roll("publishing")
        if self.platform in CONTAINERS and delivery.comment_on is None:
            await run_in_threadpool(self._await_container, self.clock())
        published, before = await self._writes().run_async(self._delivered(delivery))
        if failing and not before:
            self._fail("publishing", sent=True)
        return published

    def _writes(self) -> Writes:
        """The platform's side of the story is written where the service's own writes
        go (on SQLite, the group writer)."""
        return writes_for(self.sessions.kw["bind"])

    def _delivered(self, delivery: Delivery) -> Unit[tuple[Published, bool]]:
        """The unit that finds the post this token delivered before (True), or checks
        what the network refuses beyond its rules and records the post, at once."""
        dedupe = delivery.dedup_key is not None and self.knobs.sandbox_dedupe
        connection_id = delivery.account.connection_id
        kind = POST if delivery.comment_on is None else COMMENT
        payload: dict[str, Any] = {
            "fields": delivery.fields,
            "reference": delivery.reference,
            "replyTo": delivery.reply_to,
            "commentOn": delivery.comment_on,
            "media": None if delivery.media is None else _media_payload(delivery.media),
        }
        if delivery.items:
            payload["items"] = [_media_payload(item) for item in delivery.items]

        def deliver(tx: Tx) -> tuple[Published, bool]:
            now = self.clock()
            if dedupe:
                assert delivery.dedup_key is not None
                earlier = earlier_post(
                    tx.link, self.platform.value, delivery.dedup_key, now - TOKEN_WINDOW
                )
                if earlier is not None:
                    return Published(
                        earlier.platform_post_id,
                        earlier.url,
                        earlier.created_at,
                        items=_items_of(earlier.payload, earlier.created_at),
                    ), True
            self._refuse_without_scopes(connection_id, comment=kind == COMMENT, link=tx.link)
            if kind == COMMENT:
                assert delivery.comment_on is not None
                created = self.rng.create(
                    shapes.comment_shape(self.platform, delivery.comment_on),
                    delivery.account.name,
                    connection_id,
                )
                extra: dict[str, Any] = {}
            else:
                self._refuse_over_quota(connection_id)
                extra = self._short_video_choices(delivery.fields)
                created = self.rng.create(
                    shapes.shape_of(self.platform, _format_of(delivery)),
                    delivery.account.name,
                    connection_id,
                )
            items: tuple[Published, ...] = ()
            carousel = CAROUSELS.get(self.platform)
            if delivery.items and carousel is not None and carousel.item_ids:
                for index, item in enumerate(payload["items"], start=1):
                    made = self.rng.create(
                        shapes.item_shape(self.platform, created, index),
                        delivery.account.name,
                        connection_id,
                    )
                    item["platformPostId"], item["url"] = made.post_id, made.url
                items = _items_of(payload, now)
            add_delivery(
                tx.link,
                platform=self.platform.value,
                kind=kind,
                connection_id=connection_id,
                platform_post_id=created.post_id,
                url=created.url,
                payload=payload,
                created_at=now,
                dedup_key=delivery.dedup_key,
            )
            return Published(created.post_id, created.url, now, extra=extra, items=items), False

        return deliver

    # What the network refuses beyond its rules (``sandbox_network``).

    def _refuse_without_scopes(
        self, connection_id: str, *, comment: bool = False, link: Link | None = None
    ) -> None:
        """The network's refusal of a token without a scope publishing (or, with
        ``comment``, a first comment) needs; ``link``: the caller's unit of work, where
        the token is read."""
        granted = self._granted(connection_id, link)
        if granted is not None and grants.missing_for_publishing(
            self.platform, granted, comment=comment
        ):
            raise sandbox_network.scope_refusal(self.platform)

    def _granted(self, connection_id: str, link: Link | None = None) -> tuple[str, ...] | None:
        """The scopes the connection's consent granted; None where it went through no
        consent here (seeded by the demo, made in tests): everything asked."""
        if self.tokens is None:
            return None
        try:
            if link is not None and isinstance(self.tokens, ConnectionTokens):
                token = self.tokens.access_token_on(link, connection_id)
            else:
                token = self.tokens.access_token(connection_id)
        except AccessRevoked:
            return None
        with transaction(self.sessions, write=False) as db:
            return sandbox_oauth.granted_scopes(db, token)

    def _refuse_over_quota(self, connection_id: str) -> None:
        """The account's posts in the network's moving window (``posts_per_day``),
        counted from this sandbox's own records, as the network counts its own. Two
        posts sent at the very same moment may both pass the last free slot."""
        if not self.knobs.sandbox_daily_quotas:
            return
        for rule in rules_of(self.platform):
            if not isinstance(rule, PostsPerDay):
                continue
            now = self.clock()
            since = now - timedelta(seconds=rule.window_seconds)
            with transaction(self.sessions, write=False) as db:
                used, oldest = DeliveryRepository(db).count_posts_since(
                    self.platform.value, connection_id, since
                )
            if used >= rule.limit:
                raise sandbox_network.quota_refusal(self.platform, rule, used, oldest, now)

    def _short_video_choices(self, fields: dict[str, Any]) -> dict[str, Any]:
        """TikTok's: the owner's privacy level and interactions, checked as the real
        driver checks them (``short_video.post_info_of``), and the level an app TikTok
        has not audited may use; the level accepted, for the answer."""
        if self.platform is not Platform.SHORT_VIDEO:
            return {}
        post_info = post_info_of(fields, CREATOR)
        level = post_info["privacy_level"]
        if not self.knobs.sandbox_short_video_audited and level != sandbox_network.UNAUDITED_LEVEL:
            raise sandbox_network.UNAUDITED_CLIENT.as_heard(self.platform)
        return {"privacyLevel": level}

    def _await_container(self, made: datetime) -> None:
        """Wait for the media container made at ``made`` as the real drivers do: its
        status read at once, then after each of ``meta.poll_delays``; one still not
        ready after the wait is never published."""
        ready_at = made + timedelta(milliseconds=self.knobs.sandbox_container_ready_ms)
        if self.clock() >= ready_at:
            return
        for delay in meta.poll_delays(self.container_wait_seconds):
            self.sleep(delay)
            if self.clock() >= ready_at:
                return
        raise PlatformUnavailable(
            f"{self.platform.value} is still processing the media container; nothing was "
            "published yet",
            retry_after=60,
            sent=False,
        )

    def inspect(self, account: Account) -> Inspection:
        """What the sandbox network knows of the connection: the scopes its consent
        granted, the audit setting (short_video) and the daily quota left."""
        granted = self._granted(account.connection_id)
        asked = grants.CONSENT[self.platform]
        scopes = scope_states(asked, granted=asked if granted is None else granted, missing=asked)
        source = "the sandbox's own grant"
        quota: QuotaLeft | None = None
        for rule in rules_of(self.platform):
            if isinstance(rule, PostsPerDay):
                since = self.clock() - timedelta(seconds=rule.window_seconds)
                with transaction(self.sessions, write=False) as db:
                    used, _ = DeliveryRepository(db).count_posts_since(
                        self.platform.value, account.connection_id, since
                    )
                quota = QuotaLeft(used, rule.limit, rule.window_seconds)
        findings = [scope_finding(scopes, grants.PUBLISHING[self.platform], source)]
        audit = None
        if self.platform is Platform.SHORT_VIDEO:
            audited = self.knobs.sandbox_short_video_audited
            audit = "audited" if audited else "not audited"
            findings.append(
                Finding(
                    "audit",
                    f"{audit} (PRESSROOM_SANDBOX_SHORT_VIDEO_AUDITED)",
                    "any privacy level" if audited else "SELF_ONLY posts only",
                    Standing.OK if audited else Standing.WARNING,
                )
            )
        findings.append(quota_finding(f"sandbox {self.platform.value}", quota))
        return Inspection(
            network=f"sandbox {self.platform.value}",
            account=account.name,
            scopes=scopes,
            scopes_source=source,
            audit=audit,
            quota=quota,
            findings=tuple(findings),
        )

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        if self.knobs.sandbox_latency_ms > 0:
            time.sleep(self.knobs.sandbox_latency_ms / 1000)
        with transaction(self.sessions, write=False) as db:
            candidates = DeliveryRepository(db).posts_since(
                self.platform.value,
                delivery.account.connection_id,
                sent_at - CLOCK_SLACK,
                kind=POST if delivery.comment_on is None else COMMENT,
            )
        for candidate in candidates:  # oldest first: the first post with these words
            if (
                candidate.payload.get("fields") == delivery.fields
                and candidate.payload.get("replyTo") == delivery.reply_to
                and candidate.payload.get("commentOn") == delivery.comment_on
                and _same_media(candidate.payload.get("media"), delivery)
                and _same_items(candidate.payload.get("items"), delivery)
            ):
                return Published(
                    candidate.platform_post_id,
                    candidate.url,
                    candidate.created_at,
                    items=_items_of(candidate.payload, candidate.created_at),
                )
        return None

    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """The post's figures now (``sandbox_metrics``: a function of its id and its
        age, growing with time). A connection made inactive (``admin expire-token``)
        or removed is refused as the network refuses a revoked token; the failure
        knobs apply as to any call, before anything is read. A grant whose consent
        withheld a scope some figures need (``grants.METRICS``: the insights scopes,
        TikTok's ``video.list``) leaves those figures None, as the real driver reads
        the network; one withholding what every figure needs gets the network's
        refusal, read as the driver reads it (no figures, not a revoked token)."""
        if self._begin("reading the post's metrics"):  # nothing is written: fail now
            self._fail("reading the post's metrics", sent=False)
        with transaction(self.sessions, write=False) as db:
            connection = db.get(Connection, account.connection_id)
            if (
                connection is None
                or connection.removed_at is not None
                or (connection.status != ConnectionStatus.ACTIVE)
            ):
                raise AccessRevoked(
                    f"{self.platform.value} refused the connection's token: reconnect it"
                )
            post = DeliveryRepository(db).find_post(self.platform.value, platform_post_id)
        if post is None:
            raise MetricsUnsupported(f"{self.platform.value} has no post {platform_post_id!r}")
        figures = sandbox_metrics(self.platform, platform_post_id, post.created_at, self.clock())
        granted = self._granted(account.connection_id)
        withheld = frozenset() if granted is None else grants.uncounted(self.platform, granted)
        if withheld and REPORTED[self.platform] <= withheld:
            raise sandbox_network.metrics_refusal(self.platform)
        return replace(figures, **dict.fromkeys(withheld))

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        check_thumbnail_before_sending(self.platform, change)
        failing = self._begin("setting the thumbnail")
        self._refuse_without_scopes(change.account.connection_id)
        url = shapes.thumbnail_url(change.video_id, self.rng.version())
        created = shapes.Created(change.video_id, url)
        payload = {
            "imageFileId": change.image.file_id,
            "contentType": change.image.content_type,
            "storageKey": change.image.storage_key,
        }
        now = self._record("thumbnail", change.account.connection_id, created, payload)
        if failing:
            self._fail("setting the thumbnail", sent=True)
        return ThumbnailSet(change.video_id, url, now)

    def _begin(self, action: str) -> bool:
        """Wait out the latency, then ``_roll``."""
        if self.knobs.sandbox_latency_ms > 0:
            time.sleep(self.knobs.sandbox_latency_ms / 1000)
        return self._roll(action)

    def _roll(self, action: str) -> bool:
        """Fail now (mode ``before``) or say to fail after recording."""
        failing = self.rng.fails(self.knobs.sandbox_failure_rate)
        if failing and self.knobs.sandbox_failure_mode == "before":
            self._fail(action, sent=False)
        return failing

    def _fail(self, action: str, *, sent: bool) -> None:
        raise PlatformUnavailable(
            f"{self.platform.value} answered 503 while {action}",
            retry_after=RETRY_AFTER_SECONDS,
            sent=sent,
        )

    def _record(
        self,
        kind: str,
        connection_id: str,
        created: shapes.Created,
        payload: dict[str, Any],
        dedup_key: str | None = None,
    ) -> Any:
        now = self.clock()
        with transaction(self.sessions) as db:
            DeliveryRepository(db).add(
                platform=self.platform.value,
                kind=kind,
                connection_id=connection_id,
                platform_post_id=created.post_id,
                url=created.url,
                payload=payload,
                created_at=now,
                dedup_key=dedup_key,
            )
        return now


def _token_set(token: Any) -> TokenSet:
    expires_at = token.get("expires_at")
    return TokenSet(
        access_token=str(token["access_token"]),
        refresh_token=token.get("refresh_token"),
        expires_at=datetime.fromtimestamp(float(expires_at), UTC) if expires_at else None,
    )
