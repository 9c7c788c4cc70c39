"""Judging a post against its network's rules: the texts, then the media file's facts.

Every consumer (the API's validator, ``campaign validate``, the sandbox, the real
drivers' check before sending) calls these and words the answer its own way; the
verdicts and the words about the rule come from here.

A media rule that conversion can meet is not a refusal: its violation comes back in
``MediaVerdict.needs_fitting``, for the media fitting to act on; only the others are in
``refused``. A fact the probe did not record (a file probed before codecs were recorded,
a video without sound) breaks no rule: what cannot be judged is not refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import regex

from pressroom.platforms import MediaKind, Platform
from pressroom.probe import FORMAT_NAMES
from pressroom.rules.counting import measure
from pressroom.rules.model import (
    AspectRatio,
    AudioCodec,
    Dimensions,
    Duration,
    Fit,
    Fix,
    ForbiddenCharacters,
    FrameRate,
    Item,
    ItemCount,
    ItemsPerPost,
    MaxBytes,
    MediaFormat,
    MediaRule,
    PartsPerThread,
    Rule,
    Subject,
    TextLength,
    TextRule,
    VideoCodec,
)
from pressroom.rules.table import rules_of

_ITEMS = {
    Item.HASHTAGS: regex.compile(r"(?<![\w#&])#\w+"),
    Item.MENTIONS: regex.compile(r"(?<![\w@])@[\w.]+"),
}


@dataclass(frozen=True)
class Violation:
    rule: Rule
    message: str
    """What breaks the rule and what the network allows, as a sentence without the
    rule's id or page (each consumer shows those its own way)."""
    field: str | None = None
    """The body field (as ``pressroom.platforms`` names it) for a text rule."""
    fix: Fix | None = None
    """How conversion meets the rule for this file; None: it cannot."""

    @property
    def reference(self) -> str:
        """The rule's id and page, for messages: ``microblog.weighted_length, https://…``."""
        return f"{self.rule.id}, {self.rule.doc_url}"


# -- threads ------------------------------------------------------------------


def check_thread(platform: Platform, parts: int) -> Violation | None:
    """A thread of ``parts`` parts (the first post included) against the network's
    ``PartsPerThread``; None when it fits or the network has no thread rule."""
    for rule in rules_of(platform):
        if isinstance(rule, PartsPerThread) and parts > rule.max_parts:
            return Violation(
                rule,
                f"the thread has {parts:,} parts; {rule.network} takes at most "
                f"{rule.max_parts:,} in one thread: split it in two.",
                field="thread",
            )
    return None


def takes_threads(platform: Platform) -> bool:
    """Whether the label's network chains replies into threads (it has a thread rule)."""
    return any(isinstance(rule, PartsPerThread) for rule in rules_of(platform))


# -- carousels ----------------------------------------------------------------

MIN_CAROUSEL_ITEMS = 2
"""pressroom's own floor for ``fileIds``: a single file goes in ``fileId``. A network's
``ItemsPerPost`` rule, where its pages give one, is checked after it."""


@dataclass(frozen=True)
class Carousel:
    """How a label's network takes several media in one post."""

    network: str
    kinds: frozenset[MediaKind]
    """The kinds of file it takes as a carousel's items."""
    item_ids: bool
    """Whether it gives each item an id of its own (the result's ``item`` parts)."""
    how: str
    """The network's name for it, for messages and the docs."""


_IMAGES = frozenset({MediaKind.IMAGE})
_IMAGES_AND_VIDEOS = frozenset({MediaKind.IMAGE, MediaKind.VIDEO})

CAROUSELS: dict[Platform, Carousel] = {
    Platform.PHOTO_SHARING: Carousel(
        "Instagram",
        _IMAGES_AND_VIDEOS,
        True,
        "Instagram's carousel (a CAROUSEL container of item containers)",
    ),
    Platform.PAGE_SOCIAL: Carousel(
        "Facebook",
        _IMAGES,
        True,
        "Facebook's multi-photo post (unpublished photos attached to one post)",
    ),
    Platform.TEXT_THREAD: Carousel(
        "Threads",
        _IMAGES_AND_VIDEOS,
        True,
        "Threads' carousel (a CAROUSEL container of item containers)",
    ),
    Platform.PROFESSIONAL_NETWORK: Carousel(
        "LinkedIn", _IMAGES, True, "LinkedIn's MultiImage post (images uploaded, then one post)"
    ),
    Platform.PIN_BOARD: Carousel(
        "Pinterest", _IMAGES, False, "Pinterest's carousel Pin (media_source multiple_image_urls)"
    ),
    Platform.OPEN_MICROBLOG: Carousel(
        "Bluesky",
        _IMAGES,
        False,
        "Bluesky's post of several images (one app.bsky.embed.images, each image with its "
        "alt text)",
    ),
}
"""The labels whose network publishes several files as one post through the API, and
how (Instagram's and Threads' carousels take images and videos; Facebook's multi-photo
posts, LinkedIn's MultiImage posts, Pinterest's carousel Pins and Bluesky's image embeds
take images). Pinterest and Bluesky give the carousel's items no ids of their own (a
Bluesky post's images are blobs of the one record), so their results list no ``item``
parts."""


def takes_carousels(platform: Platform) -> bool:
    return platform in CAROUSELS


def carousel_rule(platform: Platform) -> ItemsPerPost | None:
    """The network's ``ItemsPerPost`` rule, where its pages give one."""
    for rule in rules_of(platform):
        if isinstance(rule, ItemsPerPost):
            return rule
    return None


def check_carousel(platform: Platform, items: int) -> Violation | None:
    """A carousel of ``items`` files against the network's ``ItemsPerPost``; None when
    it fits or the network documents no count."""
    rule = carousel_rule(platform)
    if rule is None or rule.min_items <= items <= rule.max_items:
        return None
    change = (
        f"add {rule.min_items - items:,}"
        if items < rule.min_items
        else f"remove {items - rule.max_items:,}"
    )
    return Violation(
        rule,
        f"the carousel has {items:,} files; {rule.network} takes {rule.min_items:,} to "
        f"{rule.max_items:,} in one carousel: {change}.",
        field="file_ids",
    )


# -- text ---------------------------------------------------------------------

FIRST_COMMENT = "first_comment"
"""The field a network's comment rules name (``TextLength.fields``): a post's first
comment, checked as the post's own texts are."""

COMMENTED = (
    Platform.VIDEO_SHARING,
    Platform.PHOTO_SHARING,
    Platform.PAGE_SOCIAL,
    Platform.PROFESSIONAL_NETWORK,
)
"""The labels whose network lets the account comment on its own post through the API
(YouTube's commentThreads, Instagram's and Facebook's comments edges, LinkedIn's
Comments API), and so take a first comment."""


def takes_first_comment(platform: Platform) -> bool:
    return platform in COMMENTED


def text_rules(platform: Platform) -> list[TextRule]:
    return [rule for rule in rules_of(platform) if isinstance(rule, TextRule)]


def check_text(platform: Platform, fields: Mapping[str, str | None]) -> list[Violation]:
    """Every text rule ``fields`` (body fields by name, None or absent: not sent) break,
    in the table's order."""
    found = []
    for rule in text_rules(platform):
        for name in rule.fields:
            value = fields.get(name)
            if value is None:
                continue
            violation = _check_one_text(rule, name, value)
            if violation is not None:
                found.append(violation)
    return found


def _check_one_text(rule: TextRule, field: str, text: str) -> Violation | None:
    network = rule.network
    if isinstance(rule, TextLength):
        length = measure(text, rule.unit)
        if length <= rule.limit:
            return None
        return Violation(
            rule,
            f"{field} is {length:,} {rule.unit}; {network} allows at most {rule.limit:,}: "
            f"shorten it by {length - rule.limit:,}.",
            field=field,
        )
    if isinstance(rule, ForbiddenCharacters):
        present = sorted({char for char in text if char in rule.characters})
        if not present:
            return None
        quoted = " and ".join(f"'{char}'" for char in present)
        return Violation(
            rule,
            f"{field} contains {quoted}, which {network} does not allow in it: remove "
            f"{'them' if len(present) > 1 else 'it'} or write it another way.",
            field=field,
        )
    if isinstance(rule, ItemCount):
        count = count_items(text, rule.item)
        if count <= rule.limit:
            return None
        return Violation(
            rule,
            f"{field} has {count} {rule.item}; {network} allows at most {rule.limit}: "
            f"remove {count - rule.limit}.",
            field=field,
        )
    raise TypeError(f"no check for {type(rule).__name__}")


def count_items(text: str, item: Item) -> int:
    """Hashtags or @-mentions in ``text``, as the item count rules count them."""
    return len(_ITEMS[item].findall(text))


# -- media --------------------------------------------------------------------


@dataclass(frozen=True)
class MediaFacts:
    """What the probe found in a file, as the media rules read it."""

    kind: MediaKind
    content_type: str
    size: int | None = None
    width: int | None = None
    height: int | None = None
    duration_seconds: float | None = None
    video_codec: str | None = None
    audio_codec: str | None = None
    """None for a video without sound, and for an image."""
    frame_rate: float | None = None


@dataclass(frozen=True)
class MediaVerdict:
    refused: tuple[Violation, ...] = ()
    """Rules conversion cannot meet: the post is refused before anything is sent."""
    needs_fitting: tuple[Violation, ...] = ()
    """Rules a derived file would meet (a JPEG from a PNG, a smaller image, H.264)."""


def media_rules(platform: Platform, subject: Subject = Subject.MEDIA) -> list[MediaRule]:
    return [
        rule
        for rule in rules_of(platform)
        if isinstance(rule, MediaRule) and rule.subject is subject
    ]


def check_media(
    platform: Platform,
    facts: MediaFacts,
    *,
    subject: Subject = Subject.MEDIA,
    fit: Fit | None = None,
) -> MediaVerdict:
    """The file's facts against the label's media (or thumbnail) rules. An aspect ratio
    out of range can be fitted only when ``fit`` is ``pad`` or ``crop``."""
    refused: list[Violation] = []
    fitting: list[Violation] = []
    for rule in media_rules(platform, subject):
        if not rule.applies_to(facts.kind):
            continue
        problem = _media_problem(rule, facts)
        if problem is None:
            continue
        fix = rule.fix
        if fix is not None and fix.needs_fit and fit not in (Fit.PAD, Fit.CROP):
            fix = None
        violation = Violation(rule, problem, fix=fix)
        (fitting if fix is not None else refused).append(violation)
    return MediaVerdict(tuple(refused), tuple(fitting))


def _outside(value: float, low: float | None, high: float | None) -> bool:
    return (low is not None and value < low) or (high is not None and value > high)


def _number(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.3g}"


def _bounds(low: float | None, high: float | None, unit: str) -> str:
    if low is not None and high is not None:
        return f"{_number(low)} to {_number(high)} {unit}"
    if low is not None:
        return f"at least {_number(low)} {unit}"
    assert high is not None
    return f"at most {_number(high)} {unit}"


def _media_problem(rule: MediaRule, facts: MediaFacts) -> str | None:
    """What in ``facts`` breaks ``rule``, in words; None when it holds or cannot be told."""
    network = rule.network
    what = "thumbnails" if rule.subject is Subject.THUMBNAIL else f"{facts.kind}s"
    if isinstance(rule, MediaFormat):
        if facts.content_type in rule.content_types:
            return None
        names = " or ".join(FORMAT_NAMES.get(c, c) for c in rule.content_types)
        found = FORMAT_NAMES.get(facts.content_type, facts.content_type)
        return f"{network} takes {what} in {names} only; the file is {found}."
    if isinstance(rule, MaxBytes):
        if facts.size is None or facts.size <= rule.limit:
            return None
        return (
            f"{network} takes {what} of at most {rule.limit:,} bytes; the file has {facts.size:,}."
        )
    if isinstance(rule, Dimensions):
        width, height = facts.width, facts.height
        if width is None or height is None:
            return None
        if not (
            _outside(width, rule.min_width, rule.max_width)
            or _outside(height, rule.min_height, rule.max_height)
        ):
            return None
        sides = []
        if rule.min_width is not None or rule.max_width is not None:
            sides.append(f"{_bounds(rule.min_width, rule.max_width, 'px')} wide")
        if rule.min_height is not None or rule.max_height is not None:
            sides.append(f"{_bounds(rule.min_height, rule.max_height, 'px')} high")
        return f"{network} takes {what} {' and '.join(sides)}; the file is {width}x{height}."
    if isinstance(rule, AspectRatio):
        if not facts.width or not facts.height:
            return None
        ratio = facts.width / facts.height
        if not _outside(ratio, rule.min_ratio, rule.max_ratio):
            return None
        return (
            f"{network} takes {what} with a width:height ratio of "
            f"{_bounds(rule.min_ratio, rule.max_ratio, ': 1')}; the file is "
            f"{facts.width}x{facts.height} ({ratio:.3g}:1)."
        ).replace(" : 1", ":1")
    if isinstance(rule, Duration):
        seconds = facts.duration_seconds
        if seconds is None or not _outside(seconds, rule.min_seconds, rule.max_seconds):
            return None
        return (
            f"{network} takes videos of {_bounds(rule.min_seconds, rule.max_seconds, 's')}; "
            f"the file lasts {seconds:g} s."
        )
    if isinstance(rule, VideoCodec):
        if facts.video_codec is None or facts.video_codec in rule.codecs:
            return None
        return (
            f"{network} takes video encoded in {', '.join(rule.codecs)}; the file's is "
            f"{facts.video_codec}."
        )
    if isinstance(rule, AudioCodec):
        if facts.audio_codec is None or facts.audio_codec in rule.codecs:
            return None
        return (
            f"{network} takes sound encoded in {', '.join(rule.codecs)}; the file's is "
            f"{facts.audio_codec}."
        )
    if isinstance(rule, FrameRate):
        fps = facts.frame_rate
        if fps is None or not _outside(fps, rule.min_fps, rule.max_fps):
            return None
        return (
            f"{network} takes video at {_bounds(rule.min_fps, rule.max_fps, 'frames a second')}; "
            f"the file has {fps:.3g}."
        )
    raise TypeError(f"no check for {type(rule).__name__}")
