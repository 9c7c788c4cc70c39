"""The campaign file format as editors write it: pydantic models, and so the JSON Schema.

These models check the shape (known keys, types, required keys). Value rules (lengths,
media kinds, slugs, cron, references between entries) are checked afterwards by
``pressroom.campaign.checks`` with exact positions and fix hints, so the models keep
every field permissive there: text fields are optional here because ``defaults`` may
supply them. Descriptions carry the limits, read from ``pressroom.platforms``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

from pressroom.platforms import PRIVACY_STATUSES, RULES, Platform
from pressroom.rules import CAROUSELS, FIRST_COMMENT, MIN_CAROUSEL_ITEMS, carousel_rule, formats
from pressroom.rules.model import Fit, PartsPerThread, TextLength
from pressroom.rules.table import NETWORKS, rules_of
from pressroom.statuses import ShortVideoPrivacyLevel

SLUG = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
MEDIA_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
EXTENSION_PREFIX = "x-"
"""Top-level keys starting with it are ignored: a place for YAML anchors to reuse."""

PLATFORM_KINDS: dict[Platform, str] = {
    Platform.MICROBLOG: "a short text-post network",
    Platform.VIDEO_SHARING: "a long-form video network",
    Platform.SHORT_VIDEO: "a short-form vertical video network",
    Platform.PHOTO_SHARING: "a photo and video network",
    Platform.PAGE_SOCIAL: "a page-based social network",
    Platform.PIN_BOARD: "an image pin network",
    Platform.TEXT_THREAD: "a text conversation network",
    Platform.PROFESSIONAL_NETWORK: "a professional networking site",
    Platform.OPEN_MICROBLOG: "pressroom's extension: Bluesky, the open short text-post network",
}

CONNECTIONS_SCHEMA: dict[str, Any] = {
    "description": (
        "Which connected accounts get this post. Leave it out (or write `all`) for every "
        "active connection of the platform; or list names or handles as shown in the "
        "dashboard (`['@acme', 'Acme Page']`); or ids (`[{id: conn_…}]`)."
    ),
    "anyOf": [
        {"enum": ["all"]},
        {"type": "string", "minLength": 1},
        {
            "type": "array",
            "minItems": 1,
            "items": {
                "anyOf": [
                    {"type": "string", "minLength": 1},
                    {
                        "type": "object",
                        "properties": {"id": {"type": "string", "minLength": 1}},
                        "required": ["id"],
                        "additionalProperties": False,
                    },
                    {
                        "type": "object",
                        "properties": {"name": {"type": "string", "minLength": 1}},
                        "required": ["name"],
                        "additionalProperties": False,
                    },
                ]
            },
        },
    ],
}


def _text_field(platform: Platform, name: str, what: str) -> Any:
    rule = RULES[platform].text_rule(name)
    assert rule is not None, f"{platform} has no text field {name}"
    parts = [what]
    if rule.max_chars is not None:
        parts.append(
            f"At most {rule.max_chars:,} characters, counted as people see them "
            "(an emoji or an accented letter is one)."
        )
    if rule.required:
        parts.append("Required, here or under `defaults`.")
    return Field(None, description=" ".join(parts))


def _thread(platform: Platform, more: str = "") -> Any:
    """The follow-up parts of a thread, on the labels whose network has a thread rule;
    how many it takes is read from that rule."""
    [rule] = [rule for rule in rules_of(platform) if isinstance(rule, PartsPerThread)]
    text = RULES[platform].text_rule("text")
    assert text is not None
    limit = f"at most {text.max_chars:,} characters, then " if text.max_chars else ""
    return Field(
        None,
        description=(
            "Makes the post a thread: the texts of the parts after the first, in order, "
            "each sent as a reply to the one before. Each is held to the rules of `text` "
            f"({limit}{rule.network}'s own count); "
            f"{rule.network} takes at most {rule.max_parts:,} parts in one thread, the "
            f"first included{more}."
        ),
    )


def _first_comment(platform: Platform) -> Any:
    """A first comment, on the labels whose network takes one; its limit from the rule
    table, where the network documents one."""
    limits = [
        f"at most {rule.limit:,} {rule.unit.value} ({rule.network}'s count)"
        for rule in rules_of(platform)
        if isinstance(rule, TextLength) and FIRST_COMMENT in rule.fields
    ]
    limit = (
        "; ".join(limits).capitalize() + "."
        if limits
        else f"{NETWORKS[platform]} documents no length limit for a comment."
    )
    return Field(
        None,
        description=(
            "A comment the account adds under its own post once the post is published "
            "(a second part, `comment`, in the run's result). A comment the network "
            "refuses leaves the post partial; the next run sends only the comment. " + limit
        ),
    )


def _carousel(platform: Platform) -> Any:
    """A carousel's media, on the labels whose network publishes several files as one
    post; how many it takes is read from its ``ItemsPerPost`` rule, where it has one."""
    carousel = CAROUSELS[platform]
    rule = carousel_rule(platform)
    count = (
        f"{rule.network} takes {rule.min_items:,} to {rule.max_items:,}"
        if rule is not None
        else f"At least {MIN_CAROUSEL_ITEMS:,}; {carousel.network} documents no upper bound"
    )
    kinds = " or ".join(f"{kind}s" for kind in sorted(carousel.kinds))
    items = (
        "as `post`, then one `item` part per file"
        if carousel.item_ids
        else f"as one `post` part: {carousel.network} gives its items no ids"
    )
    return Field(
        None,
        description=(
            "Makes the post a carousel: names of entries under `media` ("
            f"{kinds}), in the order shown, published as {carousel.how}. {count}. Used "
            "instead of the post's `media` on this network; each file is held to the "
            f"network's media rules. The run's result lists the carousel {items}."
        ),
    )


def _format_list(platform: Platform) -> Any:
    """A list of media for a format that takes several files where the network has no
    carousel (TikTok's photo post): held to the format's rule, never to a carousel's."""
    (rule,) = [r for r in formats.FORMAT_RULES if r.platform is platform and r.max_items > 1]
    kinds = " or ".join(rule.content_types) or " or ".join(f"{k}s" for k in sorted(rule.kinds))
    return Field(
        None,
        description=(
            f"With `format: {rule.format}` only: names of entries under `media` ({kinds}), "
            f"in the order shown, published as one {rule.network} {rule.format} post. "
            f"{rule.network} takes {rule.min_items:,} to {rule.max_items:,}. Used instead "
            "of the post's `media` on this network; sent as the body's `fileIds`."
        ),
    )


MEDIA_LISTS: frozenset[Platform] = frozenset(CAROUSELS) | {
    rule.platform for rule in formats.FORMAT_RULES if rule.max_items > 1
}
"""The labels whose block takes ``media`` as a list: a carousel, or a format of several
files (TikTok's photo post, with ``format: photo``)."""


def _connections() -> Any:
    return Field(None, json_schema_extra=CONNECTIONS_SCHEMA)


def _fit() -> Any:
    return Field(
        None,
        description=(
            "What to do when the network does not take the picture's shape (its "
            "width:height): `refuse` (the default: the post is refused, naming the rule), "
            "`pad` (letterboxed to the nearest shape it takes) or `crop` (cut to it, keeping "
            "the centre). Done to a copy made for the network; the media file is never "
            "changed."
        ),
        json_schema_extra={"enum": [fit.value for fit in Fit]},
    )


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Schedule(_Strict):
    """When the campaign runs by itself; leave it out to run it only by hand."""

    cron: str = Field(
        description=(
            "A cron expression of five fields: minute hour day-of-month month "
            "day-of-week, e.g. `0 9 * * 1` for Mondays at 09:00; or @hourly, @daily, "
            "@weekly, @monthly, @yearly."
        ),
        examples=["0 9 * * 1"],
    )
    timezone: str = Field(
        "UTC",
        description="The IANA timezone the cron expression is read in, e.g. `Europe/Berlin`.",
        examples=["Europe/Berlin"],
    )


class Retries(_Strict):
    """How often a failed upload or post is tried again (only for passing failures)."""

    attempts: int = Field(3, ge=1, le=10, description="Tries per step, the first included.")
    backoff_seconds: float = Field(
        5.0, ge=0, le=3600, description="Wait before the second try; it doubles after each."
    )
    max_delay_seconds: float = Field(
        60.0, ge=0, le=86400, description="The longest wait between two tries."
    )


class MediaEntry(_Strict):
    """A media file the posts refer to by its name."""

    path: str = Field(
        description="The file, relative to this campaign file, e.g. `media/teaser.mp4`."
    )
    folder: str | None = Field(None, description="Media library folder to file it in.")
    alt: str | None = Field(
        None,
        description=(
            "Alt text: what the file shows, for people who cannot see it. Sent with the "
            "file (the API's `fileAlts`) wherever the network takes alt text on it: "
            "Instagram and Facebook images, Threads images and videos, LinkedIn "
            "MultiImage images, a Pinterest Pin of one image (at most 500 code points); "
            "elsewhere (YouTube, TikTok, a story, a video where only images take it, a "
            "carousel Pin) it is not sent. Must not be blank."
        ),
        json_schema_extra={"minLength": 1},
    )


class ThreadEntry(_Strict):
    """A thread's part after the first with files of its own (text_thread, open_microblog),
    in place of its bare text."""

    text: str = Field(description="The part's text, held to the rules of `text`.")
    media: list[str] = Field(
        min_length=1,
        description=(
            "Names of entries under `media`: one file, or several in order for a carousel "
            "(the kinds and how many the block's own `media` list takes: on Threads an "
            "image or a video each, on Bluesky one to four images), held to its rules; "
            "sent with the part's reply."
        ),
    )


THREAD_PART_TAGS = ("thread-text", "thread-entry")
"""How a thread part is read: a bare text, or a ``{text, media}`` entry. Only the one
that fits is tried, so a wrong part gets one error; ``structure`` leaves the tag out of
where the error is placed."""

ThreadPartSpec = Annotated[
    Annotated[str, Tag(THREAD_PART_TAGS[0])] | Annotated[ThreadEntry, Tag(THREAD_PART_TAGS[1])],
    Discriminator(lambda part: THREAD_PART_TAGS[isinstance(part, (dict, ThreadEntry))]),
]


def _post_format(platform: Platform) -> Any:
    offered = [str(f) for f in formats.offered(platform)]
    return Field(
        None,
        description="What the network makes of the post: "
        + ", ".join(f"`{f}`" for f in offered)
        + " (`post`, a feed post, when left out); each format's media and limits are the "
        "rule table's, checked at this line.",
        json_schema_extra={"enum": list[Any](offered)},
    )


class Block(_Strict):
    connections: Any = _connections()


class MicroblogBlock(Block):
    text: str | None = _text_field(Platform.MICROBLOG, "text", "The post's text.")
    thread: list[str] | None = _thread(Platform.MICROBLOG)


class VideoSharingBlock(Block):
    title: str | None = _text_field(Platform.VIDEO_SHARING, "title", "The video's title.")
    description: str | None = _text_field(
        Platform.VIDEO_SHARING, "description", "The video's description."
    )
    privacy: str | None = Field(
        None,
        description="Who can see the video; the service's default is public. Use unlisted while testing.",
        json_schema_extra={"enum": list(PRIVACY_STATUSES)},
    )
    first_comment: str | None = _first_comment(Platform.VIDEO_SHARING)
    made_for_kids: bool | None = Field(
        None,
        description=(
            "Your declaration that the video is made for children (YouTube asks it of the "
            "channel's owner, under US law). Leave it out to let YouTube apply the "
            "channel's own audience setting."
        ),
    )
    thumbnail: str | None = Field(
        None,
        description=(
            "Name of an image under `media` to set as the video's thumbnail "
            "(best 1280x720, 16:9, under 2 MB, JPG, GIF or PNG; verified channels only)."
        ),
    )
    fit: str | None = _fit()


def _interaction(what: str) -> Any:
    return Field(
        None,
        description=(
            f"`true` lets other TikTok users {what}; off unless you turn it on, as TikTok "
            "requires. An account whose TikTok settings turn it off refuses `true`."
        ),
    )


class ShortVideoBlock(Block):
    caption: str | None = _text_field(
        Platform.SHORT_VIDEO, "caption", "The caption; hashtags and mentions allowed."
    )
    privacy_level: str | None = Field(
        None,
        description=(
            "Who may watch the video, in TikTok's values. TikTok requires the owner's "
            "choice for every post, among the levels the account offers (public account: "
            "PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, SELF_ONLY; private account: "
            "FOLLOWER_OF_CREATOR, MUTUAL_FOLLOW_FRIENDS, SELF_ONLY; an app TikTok has not "
            "audited: SELF_ONLY). Required on a TikTok connection; the sandbox does without."
        ),
        json_schema_extra={"enum": list(ShortVideoPrivacyLevel)},
    )
    allow_comments: bool | None = _interaction("comment on the video")
    allow_duet: bool | None = _interaction("make Duets with it")
    allow_stitch: bool | None = _interaction("make Stitches with it")
    fit: str | None = _fit()
    format: str | None = _post_format(Platform.SHORT_VIDEO)
    media: list[str] | None = _format_list(Platform.SHORT_VIDEO)


class PhotoSharingBlock(Block):
    caption: str | None = _text_field(Platform.PHOTO_SHARING, "caption", "The caption.")
    media: list[str] | None = _carousel(Platform.PHOTO_SHARING)
    first_comment: str | None = _first_comment(Platform.PHOTO_SHARING)
    fit: str | None = _fit()
    format: str | None = _post_format(Platform.PHOTO_SHARING)


class PageSocialBlock(Block):
    message: str | None = _text_field(Platform.PAGE_SOCIAL, "message", "The page post's text.")
    media: list[str] | None = _carousel(Platform.PAGE_SOCIAL)
    first_comment: str | None = _first_comment(Platform.PAGE_SOCIAL)
    fit: str | None = _fit()
    format: str | None = _post_format(Platform.PAGE_SOCIAL)


class PinBoardBlock(Block):
    board: str | None = Field(
        None, description="The board to pin to (its id). Required, here or under `defaults`."
    )
    title: str | None = _text_field(Platform.PIN_BOARD, "title", "The pin's title.")
    description: str | None = _text_field(
        Platform.PIN_BOARD, "description", "The pin's description."
    )
    media: list[str] | None = _carousel(Platform.PIN_BOARD)
    fit: str | None = _fit()


class TextThreadBlock(Block):
    text: str | None = _text_field(Platform.TEXT_THREAD, "text", "The post's text.")
    thread: list[ThreadPartSpec] | None = _thread(
        Platform.TEXT_THREAD, "; a part may be `{text, media}` to carry files"
    )
    media: list[str] | None = _carousel(Platform.TEXT_THREAD)


class ProfessionalNetworkBlock(Block):
    text: str | None = _text_field(Platform.PROFESSIONAL_NETWORK, "text", "The post's text.")
    first_comment: str | None = _first_comment(Platform.PROFESSIONAL_NETWORK)
    media: list[str] | None = _carousel(Platform.PROFESSIONAL_NETWORK)
    format: str | None = _post_format(Platform.PROFESSIONAL_NETWORK)
    document_title: str | None = Field(
        None,
        description="A document post's title: required with `format: document`, refused "
        "without it.",
    )


class OpenMicroblogBlock(Block):
    text: str | None = _text_field(
        Platform.OPEN_MICROBLOG,
        "text",
        "The post's text; links, @handles and #hashtags in it become links on Bluesky.",
    )
    alt_text: str | None = Field(
        None,
        description="Describes the post's image or video for people who cannot see it "
        "(only with `media`).",
    )
    fit: str | None = _fit()
    thread: list[ThreadPartSpec] | None = _thread(
        Platform.OPEN_MICROBLOG, "; a part may be `{text, media}` to carry its images"
    )
    media: list[str] | None = _carousel(Platform.OPEN_MICROBLOG)


THREAD = "thread"
"""The key of a thread's follow-up parts, on the blocks whose network chains replies."""
FIRST_COMMENT_KEY = FIRST_COMMENT
"""The key of a first comment, on the blocks whose network takes one."""
CAROUSEL = "media"
"""The key of a carousel's media names, on the blocks whose network takes carousels; the
post's ``media`` names its one file."""

BLOCKS: dict[Platform, type[Block]] = {
    Platform.MICROBLOG: MicroblogBlock,
    Platform.VIDEO_SHARING: VideoSharingBlock,
    Platform.SHORT_VIDEO: ShortVideoBlock,
    Platform.PHOTO_SHARING: PhotoSharingBlock,
    Platform.PAGE_SOCIAL: PageSocialBlock,
    Platform.PIN_BOARD: PinBoardBlock,
    Platform.TEXT_THREAD: TextThreadBlock,
    Platform.PROFESSIONAL_NETWORK: ProfessionalNetworkBlock,
    Platform.OPEN_MICROBLOG: OpenMicroblogBlock,
}


def _block(platform: Platform) -> Any:
    rules = RULES[platform]
    takes = (
        "text only, no media"
        if rules.text_only
        else "the post's "
        + " or ".join(sorted(kind.value for kind in rules.media_kinds))
        + (", if it has one" if rules.media_optional else "")
    )
    return Field(
        None, description=f"Post to {platform.value}, {PLATFORM_KINDS[platform]}: {takes}."
    )


class Blocks(_Strict):
    microblog: MicroblogBlock | None = _block(Platform.MICROBLOG)
    video_sharing: VideoSharingBlock | None = _block(Platform.VIDEO_SHARING)
    short_video: ShortVideoBlock | None = _block(Platform.SHORT_VIDEO)
    photo_sharing: PhotoSharingBlock | None = _block(Platform.PHOTO_SHARING)
    page_social: PageSocialBlock | None = _block(Platform.PAGE_SOCIAL)
    pin_board: PinBoardBlock | None = _block(Platform.PIN_BOARD)
    text_thread: TextThreadBlock | None = _block(Platform.TEXT_THREAD)
    professional_network: ProfessionalNetworkBlock | None = _block(Platform.PROFESSIONAL_NETWORK)
    open_microblog: OpenMicroblogBlock | None = _block(Platform.OPEN_MICROBLOG)

    def block(self, platform: Platform) -> Block | None:
        value: Block | None = getattr(self, platform.value)
        return value


class Defaults(Blocks):
    """Fields every post's block of that platform starts from; a post's own fields win."""


class Post(Blocks):
    """One piece of content and the platforms it goes to: one block per platform."""

    id: str = Field(
        description="A short name, unique in the campaign: lowercase letters, digits, dashes.",
        json_schema_extra={"pattern": SLUG},
    )
    media: str | None = Field(
        None, description="Name of the entry under `media` this post publishes."
    )


class CampaignFile(_Strict):
    """A pressroom campaign: media, and posts fanned out to connected accounts."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "patternProperties": {
                f"^{EXTENSION_PREFIX}": {
                    "description": "Ignored: a place for &anchors that posts reuse with *aliases."
                }
            }
        },
    )

    name: str = Field(
        description="The campaign's name: lowercase letters, digits and dashes.",
        json_schema_extra={"pattern": SLUG},
        examples=["spring-launch"],
    )
    description: str | None = Field(None, description="A note for people; not published.")
    schedule: Schedule | None = None
    retries: Retries = Field(default_factory=Retries)
    media: dict[str, MediaEntry] = Field(
        default_factory=dict,
        description="Media files by name: the name is what posts and thumbnails refer to.",
        json_schema_extra={"propertyNames": {"pattern": MEDIA_NAME}},
    )
    defaults: Defaults = Field(default_factory=Defaults)
    posts: list[Post] = Field(description="The posts, in publishing order.")
