"""The interface every platform driver implements, and what crosses it.

A driver speaks to one platform. Connect: ``authorization_url`` sends the browser to the
platform's consent page (OAuth 2.0 authorization code with PKCE and ``state``),
``exchange_code`` trades the code for tokens at its token endpoint, ``fetch_profile``
reads the account the tokens belong to, ``refresh`` renews an expired access token
(``TokenRefused`` when the platform will not: the connection turns inactive).
Publish: ``publish`` sends a post, ``set_thumbnail`` replaces a
video's thumbnail. ``inspect`` reads, without posting, what the network granted the
connection and what that means for publishing (``pressroom drivers check``). Both are plain blocking calls: the publish routes run in FastAPI's
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

from pressroom import error_codes
from pressroom.error_codes import ErrorCode
from pressroom.platforms import RULES, MediaKind, Platform, PostFormat
from pressroom.probe import SentKind
from pressroom.rules import (
    CAROUSELS,
    FIRST_COMMENT,
    MediaFacts,
    Rule,
    Subject,
    Violation,
    alt_text,
    check_carousel,
    check_media,
    check_text,
)
from pressroom.rules.formats import (
    check_format_count,
    check_format_file,
    format_rule,
    offered,
    offered_rule,
    offers,
)
from pressroom.service.drivers.inspection import Inspection


@dataclass(frozen=True)
class Account:
    """The social account a post goes to, as the platform knows it."""

    connection_id: str
    name: str


@dataclass(frozen=True)
class Media:
    file_id: str
    kind: SentKind
    """An image or a video, or a document (a PDF, in a ``document`` post only)."""
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
    derivative_id: str | None = None
    """Set when what is sent is the file fitted for this network (``media.fitting``): the
    content type, storage key and facts above are then the derived file's, ``file_id``
    still the file the post names."""
    alt_text: str | None = None
    """The file's alt text (the body's ``fileAlts``), sent in the network's own field
    where it takes one (``pressroom.rules.alt_text``)."""
    pages: int | None = None
    """A document's page count; None for an image or a video."""

    def facts(self) -> MediaFacts:
        """What the network's media rules are judged on (an image's or a video's: a
        document has none, and raises ``ValueError``)."""
        return MediaFacts(
            kind=MediaKind(self.kind),
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
    dedup_key: str | None = None
    """Passed through from the caller's Idempotency-Key, for platforms that accept a
    client token. Never relied on: most networks take none, so an unknown outcome is
    settled by ``find_delivery``, not by resending with the token."""
    platform_reference: str | None = None
    """The network's own handle for an earlier attempt whose outcome is unknown (TikTok's
    ``publish_id``), kept from its ``PlatformUnavailable.reference`` for the look-up."""
    reply_to: str | None = None
    """A thread's later part: the network's id of the part it replies to (X's
    ``reply.in_reply_to_tweet_id``, Threads' ``reply_to_id``)."""
    comment_on: str | None = None
    """A first comment: the network's id of the post it comments on (part 0's); its
    text is ``fields["text"]``, and it carries no media."""
    items: tuple[Media, ...] = ()
    """A carousel's files, in order (the body's ``fileIds``, each as the network gets
    it); ``media`` is then None. Published as one post the network's own way
    (``rules.CAROUSELS``)."""
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
    items: tuple[Published, ...] = ()
    """A carousel's items as the network names them, in the order of
    ``Delivery.items``, where it gives each an id (``Carousel.item_ids``); a look-up
    (``find_delivery``) of a carousel gives them too."""


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

    code: ErrorCode = error_codes.PLATFORM_MISCONFIGURED


class SecretKeyMissing(NetworkMisconfigured):
    """The connection's token cannot be decrypted with the service's secret keys (a
    restore without its key, a key changed without ``PRESSROOM_OLD_SECRET_KEYS``). Like
    a misconfigured network it stops every send before anything leaves, and unlike a
    revoked grant it is not the account's doing: the connection stays active, so setting
    the key back is enough."""

    code = error_codes.SECRET_KEY_MISSING

    @classmethod
    def of(cls, cause: Exception) -> SecretKeyMissing:
        """The vault's failure, with what the operator can do about it."""
        return cls(
            f"{cause}: set PRESSROOM_SECRET_KEY to the key the service ran with (or add it "
            "to PRESSROOM_OLD_SECRET_KEYS), or reconnect the account"
        )


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


@dataclass(frozen=True)
class PostMetrics:
    """What a network counts for one post at the moment it is asked. None where the
    network does not count that figure (or not for this kind of post), never 0: a
    missing figure and a post nobody liked are different answers."""

    impressions: int | None = None
    """Times the post was shown (Instagram and Facebook "impressions"/"views", X
    ``impression_count``, LinkedIn ``impressionCount``)."""
    views: int | None = None
    """Video plays where the network counts them apart from impressions."""
    likes: int | None = None
    comments: int | None = None
    shares: int | None = None
    """Reposts, retweets, reshares: the network's own word for passing it on."""
    saves: int | None = None
    clicks: int | None = None


class MetricsUnsupported(Exception):
    """The network will not give this app a post's figures (a scope it never grants, a
    kind of post it keeps none for): the post is skipped by a metrics round, not retried."""


@runtime_checkable
class MetricsDriver(Protocol):
    """A network that reports how a post did. ``fetch_metrics`` makes read-only calls
    only; it raises ``AccessRevoked`` when the token is refused, ``PlatformUnavailable``
    when the network cannot answer now (a round retries later), ``MetricsUnsupported``
    when it never will for this post."""

    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics: ...


class AnswersOnLoop(Protocol):
    """A driver that publishes without blocking (the sandbox, which has no network to
    wait on): the service awaits it on the event loop instead of a worker thread."""

    async def publish_async(self, delivery: Delivery) -> Published: ...


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

    def inspect(self, account: Account) -> Inspection:
        """What the network says about the connection, with read-only calls: the scopes
        it granted, the account's type, its audit or verification status and the
        publishing quota left where the network says, each with what it means for
        publishing. Nothing is posted. Raises ``AccessRevoked`` when the network refuses
        the token, ``PlatformUnavailable`` when it cannot answer now."""
        ...


# The check every driver runs before its first request to the network.


def check_before_sending(delivery: Delivery) -> None:
    """Refuse, before any request, a post the network's rules (``pressroom.rules``) say
    it would refuse: a text over the network's count, a character it forbids, a video
    of a length it does not take. The API checks the same table first; this is the
    drivers' own guard, and what the sandbox answers with as the network would.

    The media is the file as the network gets it: the API fits a file that breaks a rule
    conversion can meet (``media.fitting``) and hands the derived file here, so a file
    that still breaks any of the network's media rules is refused as the network would."""
    platform = delivery.platform
    if delivery.comment_on is not None:
        broken = check_text(platform, {FIRST_COMMENT: delivery.fields.get("text")})
        if broken:
            _refuse(broken[0], field=to_camel(FIRST_COMMENT))
        return
    texts = {
        rule.name: value
        if isinstance(value := delivery.fields.get(to_camel(rule.name)), str)
        else None
        for rule in RULES[platform].text_fields
    }
    broken = check_text(platform, texts)
    if broken:
        _refuse(broken[0], field=to_camel(broken[0].field or ""))
    _refuse_alt_texts(delivery)
    if _refuse_format(delivery, texts):
        return
    if delivery.media is not None:
        _refuse_media(platform, delivery.media, Subject.MEDIA, field="fileId")
    if delivery.items:
        _refuse_carousel(platform, delivery.items)


def _refuse_format(delivery: Delivery, texts: dict[str, str | None]) -> bool:
    """A post in a format other than ``post`` (``fields["format"]``), as the network
    would refuse it: a format the label does not offer, text where the format shows
    none, a count or kind of file it does not take (``pressroom.rules.formats``); then
    each image or video against the network's media rules. True when it was judged
    here (a ``post`` is left to the checks of a feed post)."""
    platform = delivery.platform
    value = delivery.fields.get("format") or PostFormat.POST
    post_format = PostFormat(value) if value in set(PostFormat) else None
    if post_format is None or not offers(platform, post_format):
        offer = offered_rule(platform)
        raise PlatformRefused(
            f"{offer.network} refuses it: {platform.value} makes no {value} (it offers "
            f"{', '.join(offered(platform))}).",
            field="format",
            rule=offer,
        )
    rule = format_rule(platform, post_format)
    if rule is None:
        return False
    for name, text in texts.items():
        if text is not None and not rule.takes_text:
            _refuse(
                Violation(rule, f"{rule.network}'s {rule.format} shows no text."),
                field=to_camel(name),
            )
    files = delivery.items or ((delivery.media,) if delivery.media is not None else ())
    many = check_format_count(rule, len(files))
    if many is not None:
        _refuse(many, field="fileIds" if delivery.items else "fileId")
    for i, media in enumerate(files):
        field = f"fileIds[{i}]" if delivery.items else "fileId"
        facts = media.facts() if media.kind in set(MediaKind) else None
        problem = check_format_file(
            rule, facts, media.content_type, pages=media.pages, size=media.size
        )
        if problem is not None:
            _refuse(Violation(rule, problem), field=field)
        if facts is not None:
            _refuse_media(platform, media, Subject.MEDIA, field=field)
    return True


def _refuse_carousel(platform: Platform, items: tuple[Media, ...]) -> None:
    """A carousel as its network would refuse it: a label without carousels, a count
    outside its ``ItemsPerPost``, a kind of file it does not take in one, a file
    breaking a media rule."""
    carousel = CAROUSELS.get(platform)
    if carousel is None:
        raise PlatformRefused(f"{platform.value} takes no carousels.", field="fileIds")
    broken = check_carousel(platform, len(items))
    if broken is not None:
        _refuse(broken, field="fileIds")
    for i, item in enumerate(items):
        if item.kind not in carousel.kinds:
            raise PlatformRefused(
                f"{carousel.network} refuses it: a {item.kind} cannot be an item of "
                f"{carousel.how}.",
                field=f"fileIds[{i}]",
            )
        _refuse_media(platform, item, Subject.MEDIA, field=f"fileIds[{i}]")


def _refuse_alt_texts(delivery: Delivery) -> None:
    """Alt text where the network takes none (its label, the post's format, a
    carousel's items, a kind of file) or longer than it takes (``rules.alt_text``)."""
    files = delivery.items or ((delivery.media,) if delivery.media is not None else ())
    value = delivery.fields.get("format") or PostFormat.POST
    post_format = PostFormat(value) if value in set(PostFormat) else PostFormat.POST
    for media in files:
        if media.alt_text is None:
            continue
        field = alt_text.field_of(media.file_id)
        broken = (
            alt_text.check_alt_post(delivery.platform, post_format, carousel=bool(delivery.items))
            or alt_text.check_alt_kind(delivery.platform, media.kind)
            or alt_text.check_alt_text(delivery.platform, media.alt_text)
        )
        if broken is not None:
            _refuse(broken, field=field)


def check_thumbnail_before_sending(platform: Platform, change: ThumbnailChange) -> None:
    """As ``check_before_sending``, for an image about to become a video's thumbnail."""
    _refuse_media(platform, change.image, Subject.THUMBNAIL, field="thumbnailFileId")


def _refuse_media(platform: Platform, media: Media, subject: Subject, *, field: str) -> None:
    verdict = check_media(platform, media.facts(), subject=subject)
    broken = verdict.refused + verdict.needs_fitting
    if broken:
        _refuse(broken[0], field=field)


def _refuse(violation: Violation, *, field: str) -> NoReturn:
    raise PlatformRefused(
        f"{violation.rule.network} refuses it: {violation.message}",
        field=field,
        rule=violation.rule,
    )
