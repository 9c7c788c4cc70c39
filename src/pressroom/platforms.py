"""The platform labels and their content rules: the one table everyone reads.

The spec names eight labels (``SPEC_PLATFORMS``); ``open_microblog`` (Bluesky, over the
AT Protocol) is pressroom's extension beside them (``EXTENSION_PLATFORMS``): its own
route, rules and driver, marked as an extension wherever the labels are listed.

The service enforces these rules, the campaign validator checks them offline and the
client exposes them, so no limit is written anywhere else.

Lengths count characters as people see them (extended grapheme clusters): an emoji
with skin tone, a flag or an accented letter written as two code points each count
once, whatever their UTF-16 or byte length. A limited text is also capped at
``MAX_CODE_POINTS_PER_CHARACTER`` code points per allowed character: no real character
needs more (the longest emoji sequences take 10, and Unicode's stream-safe format allows
31 combining marks on one letter only in text built to be hostile), and the cap gives
the OpenAPI document a ``maxLength`` in code points that never refuses a valid text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import regex

from pressroom.statuses import PrivacyStatus


class Platform(StrEnum):
    MICROBLOG = "microblog"
    VIDEO_SHARING = "video_sharing"
    SHORT_VIDEO = "short_video"
    PHOTO_SHARING = "photo_sharing"
    PAGE_SOCIAL = "page_social"
    PIN_BOARD = "pin_board"
    TEXT_THREAD = "text_thread"
    PROFESSIONAL_NETWORK = "professional_network"
    OPEN_MICROBLOG = "open_microblog"
    """Our extension, not in the spec: Bluesky over the AT Protocol."""


EXTENSION_PLATFORMS: frozenset[Platform] = frozenset({Platform.OPEN_MICROBLOG})
"""Labels pressroom adds beside the spec's; a client written for the hosted service
never meets them unless it asks for them."""
SPEC_PLATFORMS: tuple[Platform, ...] = tuple(p for p in Platform if p not in EXTENSION_PLATFORMS)
"""The spec's eight labels, in its order."""


class MediaKind(StrEnum):
    IMAGE = "image"
    VIDEO = "video"


class PostFormat(StrEnum):
    """What a publish body's ``format`` asks the network to make of it. ``post`` is the
    feed post every label makes; ``story`` and ``reel`` are Instagram's and Facebook's
    (photo_sharing, page_social), ``photo`` is a short_video photo post (TikTok's), and
    ``document`` a professional_network PDF post (LinkedIn's). Which label takes which
    format, and with which media, is the rule table's (``pressroom.rules``)."""

    POST = "post"
    STORY = "story"
    REEL = "reel"
    DOCUMENT = "document"
    PHOTO = "photo"


PRIVACY_STATUSES: tuple[str, ...] = tuple(PrivacyStatus)
DEFAULT_PRIVACY_STATUS = PrivacyStatus.PUBLIC.value


MAX_CODE_POINTS_PER_CHARACTER = 16


@dataclass(frozen=True)
class TextRule:
    """A text field of a publish body and its limit in characters (None: no limit)."""

    name: str
    max_chars: int | None = None
    required: bool = False

    @property
    def max_code_points(self) -> int | None:
        """The cap in code points that comes with a limit in characters."""
        return None if self.max_chars is None else self.max_chars * MAX_CODE_POINTS_PER_CHARACTER

    def excess(self, text: str) -> Excess | None:
        """How ``text`` is over the limit (in characters, or in code points when it is
        over the code-point cap); None when it fits."""
        if self.max_chars is None or self.max_code_points is None:
            return None
        if len(text) > self.max_code_points:
            return Excess(len(text), self.max_code_points, "code points")
        length = count_characters(text)
        return Excess(length, self.max_chars, "characters") if length > self.max_chars else None


@dataclass(frozen=True)
class Excess:
    length: int
    limit: int
    unit: str


@dataclass(frozen=True)
class PlatformRules:
    platform: Platform
    publish_path: str
    id_field: str
    """Name of the created item's identifier in the publish result."""
    text_fields: tuple[TextRule, ...] = ()
    media_kinds: frozenset[MediaKind] = frozenset()
    """Empty for text-only platforms, which refuse any media."""
    min_video_seconds: float | None = None
    max_video_seconds: float | None = None
    requires_board: bool = False
    supports_thumbnail: bool = False
    media_optional: bool = False
    """A post may carry a file or be text alone (open_microblog); otherwise a label that
    takes media requires a file."""
    text_only: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text_only", not self.media_kinds)

    def text_rule(self, name: str) -> TextRule | None:
        return next((rule for rule in self.text_fields if rule.name == name), None)


RULES: dict[Platform, PlatformRules] = {
    rules.platform: rules
    for rules in (
        PlatformRules(
            Platform.MICROBLOG,
            "/api/v2/microblog/publish",
            "microblogPostId",
            text_fields=(TextRule("text", 280, required=True),),
        ),
        PlatformRules(
            Platform.VIDEO_SHARING,
            "/api/v2/video_sharing/publish",
            "videoId",
            text_fields=(
                TextRule("title", 100, required=True),
                TextRule("description", 5000),
            ),
            media_kinds=frozenset({MediaKind.VIDEO}),
            supports_thumbnail=True,
        ),
        PlatformRules(
            Platform.SHORT_VIDEO,
            "/api/social/post",
            "postId",
            text_fields=(TextRule("caption"),),
            media_kinds=frozenset({MediaKind.VIDEO}),
            min_video_seconds=3.0,
            max_video_seconds=600.0,
        ),
        PlatformRules(
            Platform.PHOTO_SHARING,
            "/api/v2/photo_sharing/publish",
            "postId",
            text_fields=(TextRule("caption", 2200),),
            media_kinds=frozenset({MediaKind.IMAGE, MediaKind.VIDEO}),
        ),
        PlatformRules(
            Platform.PAGE_SOCIAL,
            "/api/v2/page_social/publish",
            "postId",
            text_fields=(TextRule("message"),),
            media_kinds=frozenset({MediaKind.IMAGE, MediaKind.VIDEO}),
        ),
        PlatformRules(
            Platform.PIN_BOARD,
            "/api/v2/pin_board/publish",
            "pinId",
            text_fields=(TextRule("title", 100), TextRule("description")),
            media_kinds=frozenset({MediaKind.IMAGE}),
            requires_board=True,
        ),
        PlatformRules(
            Platform.TEXT_THREAD,
            "/api/v2/text_thread/publish",
            "postId",
            text_fields=(TextRule("text", 500, required=True),),
        ),
        PlatformRules(
            Platform.PROFESSIONAL_NETWORK,
            "/api/v2/professional_network/publish",
            "postId",
            text_fields=(TextRule("text", required=True),),
        ),
        PlatformRules(
            Platform.OPEN_MICROBLOG,
            "/api/v2/open_microblog/publish",
            "postId",
            # No spec sets its limits: Bluesky's own (300 graphemes, 3,000 bytes) are in
            # the network rule table (pressroom.rules.bluesky), checked before sending.
            text_fields=(TextRule("text", required=True),),
            media_kinds=frozenset({MediaKind.IMAGE, MediaKind.VIDEO}),
            media_optional=True,
        ),
    )
}

THUMBNAIL_PATH = "/api/v2/video_sharing/thumbnail/{videoId}"


@dataclass(frozen=True)
class Recommendation:
    """Advice from the spec that is not enforced: reported as a warning, never refused."""

    width: int | None = None
    height: int | None = None
    aspect: tuple[int, int] | None = None
    max_bytes: int | None = None
    formats: tuple[str, ...] = ()


THUMBNAIL_RECOMMENDATION = Recommendation(
    width=1280,
    height=720,
    aspect=(16, 9),
    max_bytes=2 * 1024 * 1024,
    formats=("JPEG", "GIF", "PNG"),
)
SHORT_VIDEO_RECOMMENDATION = Recommendation(aspect=(9, 16))
PIN_RECOMMENDATION = Recommendation(aspect=(2, 3))

_GRAPHEME = regex.compile(r"\X")


def count_characters(text: str) -> int:
    """Characters as a reader counts them: extended grapheme clusters."""
    if text.isascii():
        return len(text)
    return len(_GRAPHEME.findall(text))


def rules_for(platform: str) -> PlatformRules:
    """The rules of a label; raises ``ValueError`` naming the known labels."""
    try:
        return RULES[Platform(platform)]
    except ValueError:
        known = ", ".join(p.value for p in Platform)
        raise ValueError(f"unknown platform {platform!r}; expected one of: {known}") from None
