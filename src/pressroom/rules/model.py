"""What a network's rule is: data, one frozen object per rule, each citing its page.

A rule says which label it belongs to, which network set it, what it applies to (a body
field, the post's media file, a video's thumbnail, the post as a whole, the account's
day), its limit with the unit the limit is in, and the page it comes from. The checks
(``pressroom.rules.check``) read these objects; no number lives anywhere else.

Media rules also say whether converting the file can meet them (``fix``): a PNG where a
network takes JPEG only, an image over its byte limit, a video in another codec. Those
are fitted (a derived file made for the network) rather than refused; the rest (a video
too long, an aspect ratio out of range without the campaign's ``fit: pad|crop``) are
refused before anything is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pressroom.platforms import MediaKind, Platform
from pressroom.rules.counting import Unit


class Subject(StrEnum):
    """What a rule is about."""

    TEXT = "text"
    """A text field of the publish body (``Rule.field`` names it)."""
    MEDIA = "media"
    """The post's media file."""
    THUMBNAIL = "thumbnail"
    """The image set as a video's thumbnail."""
    POST = "post"
    """The post as a whole: how many media items it carries."""
    ACCOUNT = "account"
    """The connected account: how many posts it may publish in a window."""


class Fix(StrEnum):
    """How a file that breaks a media rule can be made to meet it."""

    CONVERT_TO_JPEG = "convert to JPEG"
    SCALE_DOWN = "scale down"
    SCALE = "scale"
    TRANSCODE = "transcode"
    PAD_OR_CROP = "pad or crop"
    """Only when the campaign says ``fit: pad`` or ``fit: crop``: changing the picture's
    shape is the editor's choice, never made silently."""

    @property
    def needs_fit(self) -> bool:
        return self is Fix.PAD_OR_CROP


class Item(StrEnum):
    """What an item count counts in a text."""

    HASHTAGS = "hashtags"
    MENTIONS = "@-mentions"


@dataclass(frozen=True, kw_only=True)
class Rule:
    platform: Platform
    name: str
    """The rule's name within its label: ``weighted_length``; the id is ``label.name``."""
    network: str
    """The network that sets the rule, as its users know it (``X``, ``YouTube``)."""
    doc_url: str
    """The network's page the rule comes from."""

    subject: Subject = Subject.TEXT

    @property
    def id(self) -> str:
        return f"{self.platform.value}.{self.name}"

    def describe(self) -> str:
        """The rule in a few words, for messages and the docs."""
        raise NotImplementedError


# -- text ---------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class TextRule(Rule):
    fields: tuple[str, ...]
    """The body fields it applies to, named as in ``pressroom.platforms`` (``text``,
    ``title``): each is checked alone."""

    @property
    def field_names(self) -> str:
        return " and ".join(self.fields)


@dataclass(frozen=True, kw_only=True)
class TextLength(TextRule):
    limit: int
    unit: Unit

    def describe(self) -> str:
        return f"{self.field_names}: at most {self.limit:,} {self.unit}"


@dataclass(frozen=True, kw_only=True)
class ForbiddenCharacters(TextRule):
    characters: str

    def describe(self) -> str:
        return f"{self.field_names}: no {' or '.join(repr(c) for c in self.characters)}"


@dataclass(frozen=True, kw_only=True)
class ItemCount(TextRule):
    item: Item
    limit: int

    def describe(self) -> str:
        return f"{self.field_names}: at most {self.limit:,} {self.item}"


@dataclass(frozen=True, kw_only=True)
class SeeMore(Rule):
    """How much of a text the network's app shows before hiding the rest behind a link
    (Instagram's "more", LinkedIn's "see more"). Not a refusal: nothing checks it; the
    preview (``pressroom campaign preview``) shows the cut. Kept apart from ``TextRule``
    so that no check ever mistakes it for a limit."""

    fields: tuple[str, ...]
    limit: int
    unit: Unit
    link: str = "more"
    """The words of the link the rest hides behind, as the app writes them."""

    def describe(self) -> str:
        return (
            f"{' and '.join(self.fields)}: the first {self.limit:,} {self.unit} shown, "
            f"the rest behind '{self.link}'"
        )


# -- media --------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class MediaRule(Rule):
    subject: Subject = Subject.MEDIA
    kind: MediaKind | None = None
    """The kind of file the rule is about; None: any."""
    fix: Fix | None = None
    """How conversion meets the rule; None: it cannot, a file that breaks it is refused."""

    def applies_to(self, kind: MediaKind) -> bool:
        return self.kind is None or self.kind is kind

    @property
    def what(self) -> str:
        """What the rule is about, in a word: ``thumbnail``, ``image``, ``video``."""
        if self.subject is Subject.THUMBNAIL:
            return "thumbnail"
        return str(self.kind) if self.kind is not None else "media"


@dataclass(frozen=True, kw_only=True)
class MediaFormat(MediaRule):
    """An image format or a video container, by the content types it goes by."""

    content_types: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.what}: {', '.join(self.content_types)} only"


@dataclass(frozen=True, kw_only=True)
class MaxBytes(MediaRule):
    limit: int

    def describe(self) -> str:
        return f"{self.what}: at most {self.limit:,} bytes"


@dataclass(frozen=True, kw_only=True)
class Dimensions(MediaRule):
    """Pixels a side; None where the network sets no bound."""

    min_width: int | None = None
    max_width: int | None = None
    min_height: int | None = None
    max_height: int | None = None

    def describe(self) -> str:
        sides = []
        if self.min_width is not None or self.max_width is not None:
            sides.append(f"width {_range(self.min_width, self.max_width)} px")
        if self.min_height is not None or self.max_height is not None:
            sides.append(f"height {_range(self.min_height, self.max_height)} px")
        return f"{self.what}: {', '.join(sides)}"


@dataclass(frozen=True, kw_only=True)
class AspectRatio(MediaRule):
    """Width divided by height, both bounds included (4:5 is 0.8, 1.91:1 is 1.91)."""

    min_ratio: float | None = None
    max_ratio: float | None = None
    fix: Fix | None = Fix.PAD_OR_CROP

    def describe(self) -> str:
        return f"{self.what}: width / height {_range(self.min_ratio, self.max_ratio)}"


@dataclass(frozen=True, kw_only=True)
class Duration(MediaRule):
    kind: MediaKind | None = MediaKind.VIDEO
    min_seconds: float | None = None
    max_seconds: float | None = None

    def describe(self) -> str:
        return f"{self.what}: {_range(self.min_seconds, self.max_seconds)} seconds long"


@dataclass(frozen=True, kw_only=True)
class VideoCodec(MediaRule):
    """Codec names as FFmpeg (and so PyAV's probe) writes them: ``h264``, ``hevc``."""

    kind: MediaKind | None = MediaKind.VIDEO
    codecs: tuple[str, ...]
    fix: Fix | None = Fix.TRANSCODE

    def describe(self) -> str:
        return f"{self.what}: encoded in {', '.join(self.codecs)}"


@dataclass(frozen=True, kw_only=True)
class AudioCodec(MediaRule):
    """The sound's codec, when the video has sound (FFmpeg's names: ``aac``)."""

    kind: MediaKind | None = MediaKind.VIDEO
    codecs: tuple[str, ...]
    fix: Fix | None = Fix.TRANSCODE

    def describe(self) -> str:
        return f"{self.what}: sound in {', '.join(self.codecs)}"


@dataclass(frozen=True, kw_only=True)
class FrameRate(MediaRule):
    kind: MediaKind | None = MediaKind.VIDEO
    min_fps: float | None = None
    max_fps: float | None = None
    fix: Fix | None = Fix.TRANSCODE

    def describe(self) -> str:
        return f"{self.what}: {_range(self.min_fps, self.max_fps)} frames a second"


# -- the post and the account --------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ItemsPerPost(Rule):
    """Media items in one carousel (the body's ``fileIds``): fewer or more are refused
    before anything is sent, naming ``fileIds``."""

    subject: Subject = Subject.POST
    min_items: int
    max_items: int

    def describe(self) -> str:
        return f"post: {self.min_items} to {self.max_items} media items"


@dataclass(frozen=True, kw_only=True)
class PartsPerThread(Rule):
    """Parts in one thread (the first post and its replies): a longer chain is refused
    before any part is sent, since the network would stop it part way."""

    subject: Subject = Subject.POST
    max_parts: int

    def describe(self) -> str:
        return f"thread: at most {self.max_parts:,} parts"


@dataclass(frozen=True, kw_only=True)
class PostsPerDay(Rule):
    """Posts the account may publish through the API in a moving window: the sandbox
    counts them per connection and refuses one more as the network does; the real
    drivers read the network's own count (Instagram's ``content_publishing_limit``,
    Threads' ``threads_publishing_limit``)."""

    subject: Subject = Subject.ACCOUNT
    limit: int
    window_seconds: int = 24 * 60 * 60

    def describe(self) -> str:
        return f"account: at most {self.limit:,} posts per {self.window_seconds // 3600} h"


def _number(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.3g}"


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{_number(low)} to {_number(high)}"
    if low is not None:
        return f"at least {_number(low)}"
    if high is not None:
        return f"at most {_number(high)}"
    return "any"


class Fit(StrEnum):
    """What a campaign allows done to a picture whose shape a network refuses."""

    REFUSE = "refuse"
    PAD = "pad"
    CROP = "crop"
