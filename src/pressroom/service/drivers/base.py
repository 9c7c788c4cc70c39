"""The interface every platform driver implements, and what crosses it.

A driver speaks to one platform. Connect: ``authorization_url`` sends the browser to the
platform's consent page (OAuth 2.0 authorization code with PKCE and ``state``),
``exchange_code`` trades the code for tokens at its token endpoint, ``fetch_profile``
reads the account the tokens belong to, ``refresh`` renews an expired access token
(``TokenRefused`` when the platform will not: the connection turns inactive).
Publish: ``publish`` sends a post, ``set_thumbnail`` replaces a
video's thumbnail. Both are plain blocking calls: the publish routes run in FastAPI's
threadpool, so a slow platform holds one worker thread and never the event loop.

A transient failure is ``PlatformUnavailable``; ``sent`` says whether the request may
already have reached the platform, which decides whether a resend could post twice.
What a network refuses for good is one of the other exceptions below, each answered
with the service's own code: ``PlatformRateLimited`` (429 ``rate_limited``),
``AccessRevoked`` (the connection turns inactive; 409 ``connection_inactive``),
``PermissionMissing`` (the spec's 403 codes), ``PlatformRefused`` (400, the field
named) and ``NetworkMisconfigured`` (the operator's setting, not the post, is refused).
None of them is raised once the network may have published the post.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NoReturn, Protocol, runtime_checkable

from pydantic.alias_generators import to_camel

from pressroom.error_codes import ErrorCode
from pressroom.platforms import RULES, MediaKind, Platform
from pressroom.rules import MediaFacts, Rule, Subject, Violation, check_media, check_text


@dataclass(frozen=True)
class Account:
    """The social account a post goes to, as the platform knows it."""

    connection_id: str
    name: str


@dataclass(frozen=True)
class Media:
    file_id: str
    kind: MediaKind
    content_type: str
    storage_key: str
    duration_seconds: float | None = None
    size: int | None = None
    """Bytes; every ready file has it."""
    width: int | None = None
    height: int | None = None
    video_codec: str | None = None
    audio_codec: str | None = None
    frame_rate: float | None = None

    def facts(self) -> MediaFacts:
        """What the network's media rules are judged on."""
        return MediaFacts(
            kind=self.kind,
            content_type=self.content_type,
            size=self.size,
            width=self.width,
            height=self.height,
            duration_seconds=self.duration_seconds,
            video_codec=self.video_codec,
            audio_codec=self.audio_codec,
            frame_rate=self.frame_rate,
        )


@dataclass(frozen=True)
class Delivery:
    """One post as a platform receives it."""

    platform: Platform
    account: Account
    fields: dict[str, Any]
    """The post's own fields, named as in the publish body (``text``, ``title``, ``boardId``)."""
    media: Media | None
    reference: str
    """Our post record id: kept by the platform's record where it has room for one."""
    platform_reference: str | None = None
    """The network's own handle for an earlier attempt whose outcome is unknown (TikTok's
    ``publish_id``), kept from its ``PlatformUnavailable.reference`` for the look-up."""
    dedup_key: str | None = None
    """Passed through from the caller's Idempotency-Key, for platforms that accept a
    client token. Never relied on: most networks take none, so an unknown outcome is
    settled by ``find_delivery``, not by resending with the token."""
    created_at: datetime | None = None
    """When our post record was made: the same for every attempt at it, so a network
    that takes the client's own record key (Bluesky) gets the same key each time."""


@dataclass(frozen=True)
class Published:
    platform_post_id: str
    url: str
    published_at: datetime
    extra: dict[str, Any] = field(default_factory=dict)
    """What the network says it did beyond the id and the URL, under the names of the
    publish result's extension fields (``privacyLevel``, ``appliedPrivacyStatus``)."""


@dataclass(frozen=True)
class ThumbnailChange:
    account: Account
    video_id: str
    image: Media


@dataclass(frozen=True)
class ThumbnailSet:
    video_id: str
    thumbnail_url: str
    updated_at: datetime


class PlatformUnavailable(Exception):
    """The platform failed transiently; retrying later may succeed."""

    def __init__(
        self, message: str, *, retry_after: int, sent: bool, reference: str | None = None
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.sent = sent
        """True when the request reached the platform before it failed: the post may exist."""
        self.reference = reference
        """The network's handle for what it received, when it gave one before failing
        (TikTok's ``publish_id``): kept with the record, so the look-up can ask for it."""


class PlatformRateLimited(PlatformUnavailable):
    """The network refused the call for its rate limit; nothing was published."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message, retry_after=retry_after, sent=False)


class AccessRevoked(Exception):
    """The network no longer accepts the connection's token (revoked, expired, or the
    app's access removed): the connection turns inactive until it is reconnected."""


class PermissionMissing(Exception):
    """The account lacks what the network requires for this post (a page permission,
    a professional account, a verified channel): ``code`` is the spec's 403 code."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


class PlatformRefused(Exception):
    """The network refused the post itself (a duplicate, a text it will not take);
    ``field`` names the publish body's field when the network says which, ``rule`` the
    network's rule in ``pressroom.rules`` when one is known to be broken."""

    def __init__(self, message: str, *, field: str | None = None, rule: Rule | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.rule = rule


class NetworkMisconfigured(Exception):
    """The network refuses how the service is set up, not the post or the account (an
    API version it no longer serves): nothing was sent or published, and nothing can be
    until the operator changes the setting the message names."""


class LookupUnsupported(Exception):
    """The network will not list the account's posts to this app (LinkedIn without its
    restricted read permission): an unknown outcome cannot be settled by asking, so it
    stays unknown and nothing is resent under its Idempotency-Key."""


@dataclass(frozen=True)
class TokenSet:
    """What a token endpoint answered. Clear text: it goes straight into the vault."""

    access_token: str
    refresh_token: str | None
    expires_at: datetime | None


@dataclass(frozen=True)
class Profile:
    """The account the platform says the tokens belong to, and what it granted."""

    name: str
    display_name: str
    account_type: str | None = None
    """photo_sharing: business, creator or personal."""
    page_kind: str | None = None
    """page_social: page or profile."""
    pages_permission: bool = True
    verified: bool = False
    page_token: str | None = field(default=None, repr=False)
    """page_social: the Page's own access token, kept for the connection in place of the
    person's (it outlives theirs and acts as the Page)."""


class TokenRefused(Exception):
    """The platform refused a code or a refresh token (``invalid_grant`` and kin): the
    message is the platform's error code, never a token."""


class MediaSource(Protocol):
    """A post's stored media, as networks take it: a signed, expiring link for those
    that fetch it, byte ranges for those that take uploads."""

    def url(self, file_id: str, storage_key: str, content_type: str) -> str: ...

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]: ...


@runtime_checkable
class DraftingDriver(Protocol):
    """A network with drafts or unpublished posts, where ``pressroom drivers check`` can
    prove posting works without publishing anything."""

    def draft_post(self, account: Account, text: str) -> str:
        """Make a draft (or unpublished) text post; its id on the network."""
        ...


class PlatformDriver(Protocol):
    platform: Platform
    refresh_ahead: timedelta
    """How long before its access token lapses a connection is renewed in the background."""

    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        """Where to send the browser: the platform's consent page, with PKCE (S256)."""
        ...

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        """Trade an authorization code for tokens; ``TokenRefused`` when refused."""
        ...

    def fetch_profile(self, tokens: TokenSet) -> Profile: ...

    def refresh(self, refresh_token: str) -> TokenSet:
        """New tokens for a refresh token; ``TokenRefused`` when it is expired or revoked."""
        ...

    def publish(self, delivery: Delivery) -> Published: ...

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        """The post ``delivery`` became, if the platform has it: how an unknown outcome
        (a timeout, a 5xx after sending) is settled without a blind resend. Networks
        are searched by content among the account's posts since ``sent_at``; None when
        the platform has no such post. Raises ``PlatformUnavailable`` when it cannot
        tell now, ``LookupUnsupported`` when it never can."""
        ...

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet: ...


# The check every driver runs before its first request to the network.


def check_before_sending(delivery: Delivery) -> None:
    """Refuse, before any request, a post the network's rules (``pressroom.rules``) say
    it would refuse: a text over the network's count, a character it forbids, a video
    of a length it does not take. The API checks the same table first; this is the
    drivers' own guard, and what the sandbox answers with as the network would.

    A media rule that conversion can meet is not refused here (the file is fitted for
    the network before it is sent; until fitting exists it goes as it is, as before)."""
    platform = delivery.platform
    texts = {
        rule.name: value
        if isinstance(value := delivery.fields.get(to_camel(rule.name)), str)
        else None
        for rule in RULES[platform].text_fields
    }
    broken = check_text(platform, texts)
    if broken:
        _refuse(broken[0], field=to_camel(broken[0].field or ""))
    if delivery.media is not None:
        _refuse_media(platform, delivery.media, Subject.MEDIA, field="fileId")


def check_thumbnail_before_sending(platform: Platform, change: ThumbnailChange) -> None:
    """As ``check_before_sending``, for an image about to become a video's thumbnail."""
    _refuse_media(platform, change.image, Subject.THUMBNAIL, field="thumbnailFileId")


def _refuse_media(platform: Platform, media: Media, subject: Subject, *, field: str) -> None:
    refused = check_media(platform, media.facts(), subject=subject).refused
    if refused:
        _refuse(refused[0], field=field)


def _refuse(violation: Violation, *, field: str) -> NoReturn:
    raise PlatformRefused(
        f"{violation.rule.network} refuses it: {violation.message}",
        field=field,
        rule=violation.rule,
    )
