"""The campaign file format as editors write it: pydantic models, and so the JSON Schema.

These models check the shape (known keys, types, required keys). Value rules (lengths,
media kinds, slugs, cron, references between entries) are checked afterwards by
``pressroom.campaign.checks`` with exact positions and fix hints, so the models keep
every field permissive there: text fields are optional here because ``defaults`` may
supply them. Descriptions carry the limits, read from ``pressroom.platforms``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pressroom.platforms import PRIVACY_STATUSES, RULES, Platform
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


def _connections() -> Any:
    return Field(None, json_schema_extra=CONNECTIONS_SCHEMA)


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


class Block(_Strict):
    connections: Any = _connections()


class MicroblogBlock(Block):
    text: str | None = _text_field(Platform.MICROBLOG, "text", "The post's text.")


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


class PhotoSharingBlock(Block):
    caption: str | None = _text_field(Platform.PHOTO_SHARING, "caption", "The caption.")


class PageSocialBlock(Block):
    message: str | None = _text_field(Platform.PAGE_SOCIAL, "message", "The page post's text.")


class PinBoardBlock(Block):
    board: str | None = Field(
        None, description="The board to pin to (its id). Required, here or under `defaults`."
    )
    title: str | None = _text_field(Platform.PIN_BOARD, "title", "The pin's title.")
    description: str | None = _text_field(
        Platform.PIN_BOARD, "description", "The pin's description."
    )


class TextThreadBlock(Block):
    text: str | None = _text_field(Platform.TEXT_THREAD, "text", "The post's text.")


class ProfessionalNetworkBlock(Block):
    text: str | None = _text_field(Platform.PROFESSIONAL_NETWORK, "text", "The post's text.")


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
