"""Publish bodies and results of spec 4.4, and the post records read back.

Limits are not written here: field descriptions are generated from
``pressroom.platforms.RULES``, and the rules are checked in ``rules.py`` (pydantic's
``max_length`` would count code points, not characters as people see them).
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from pressroom.platforms import (
    DEFAULT_PRIVACY_STATUS,
    MAX_CODE_POINTS_PER_CHARACTER,
    PRIVACY_STATUSES,
    RULES,
    Platform,
)
from pressroom.service.schemas import CamelModel, RequestModel, Timestamp
from pressroom.service.text_rules import SOME_TEXT
from pressroom.statuses import ShortVideoPrivacyLevel


def describe(platform: Platform, name: str, what: str) -> str:
    """A text field's description with its limit from the rule table."""
    rule = RULES[platform].text_rule(name)
    limit = rule.max_chars if rule else None
    if limit is None:
        return f"{what} No length limit."
    return (
        f"{what} At most {limit:,} characters, counted as people see them (an emoji counts "
        f"once; `x-max-graphemes`), and at most {MAX_CODE_POINTS_PER_CHARACTER} code points "
        "per character (`maxLength`)."
    )


def text_field(platform: Platform, name: str, what: str) -> Any:
    """A text field: its description, and its rules as JSON Schema keywords.

    The limit in characters goes in ``x-max-graphemes`` (JSON Schema counts code points),
    beside the code-point ``maxLength`` that comes with it. The rules themselves are
    checked in ``rules.py``, so a refusal says text_too_long, not a pydantic message.
    """
    rule = RULES[platform].text_rule(name)
    assert rule is not None, f"{platform.value} has no text field {name}"
    schema: dict[str, Any] = {}
    if rule.required:
        schema |= {"minLength": 1, "pattern": SOME_TEXT}
    if rule.max_chars is not None:
        schema["maxLength"] = rule.max_code_points
        schema["x-max-graphemes"] = rule.max_chars
    description = describe(platform, name, what)
    if rule.required:
        return Field(description=description, json_schema_extra=schema)
    return Field(None, description=description, json_schema_extra=schema)


def _connection() -> Any:
    return Field(
        min_length=1,
        description="Id of the target connection (`GET /api/connections/unified`).",
    )


def _file(what: str) -> Any:
    return Field(
        min_length=1,
        description=f"Id of an uploaded, ready file: {what}.",
    )


def _interaction(what: str) -> Any:
    return Field(
        None,
        description=(
            f"Our extension: whether other TikTok users may {what}. Off unless `true`: "
            "TikTok has the owner turn each interaction on for every post. `true` on an "
            "account whose TikTok settings turn it off for everyone is refused with 400 "
            "`validation_error` naming the field."
        ),
    )


NO_MEDIA = SkipJsonSchema[str | None]
"""Text-only platforms declare ``file_id`` this way: hidden from the schema, present so a
body carrying one is refused with ``media_kind_not_allowed`` rather than a bare
"unknown field"."""


class PublishRequest(RequestModel):
    connection_id: str = _connection()

    def text_value(self, name: str) -> str | None:
        """A text field by its rule name (``text``, ``title``, ...), None when absent."""
        value = getattr(self, name, None)
        return value if isinstance(value, str) else None

    @property
    def media_file_id(self) -> str | None:
        value = getattr(self, "file_id", None)
        return value if isinstance(value, str) else None


class MicroblogPublish(PublishRequest):
    text: str = text_field(Platform.MICROBLOG, "text", "The post.")
    file_id: NO_MEDIA = None


class VideoSharingPublish(PublishRequest):
    file_id: str = _file("a video")
    title: str = text_field(Platform.VIDEO_SHARING, "title", "Video title.")
    description: str | None = text_field(
        Platform.VIDEO_SHARING, "description", "Video description."
    )
    privacy_status: str | None = Field(
        None,
        description=f"One of {', '.join(PRIVACY_STATUSES)}; default {DEFAULT_PRIVACY_STATUS}.",
        examples=[DEFAULT_PRIVACY_STATUS],
        json_schema_extra={"enum": list(PRIVACY_STATUSES)},
    )
    made_for_kids: bool | None = Field(
        None,
        description=(
            "Our extension: the owner's declaration that the video is made for children "
            "(YouTube's `selfDeclaredMadeForKids`, a declaration US law, COPPA, leaves to "
            "the channel's owner). Left out, nothing is declared and YouTube applies the "
            "channel's own audience setting; the answer's `appliedMadeForKids` says what "
            "YouTube decided."
        ),
    )


class ShortVideoPost(PublishRequest):
    platform: str = Field(
        description="Must be `short_video`.",
        examples=["short_video"],
        json_schema_extra={"enum": [Platform.SHORT_VIDEO.value]},
    )
    file_id: str = _file("a video of 3 seconds to 10 minutes")
    caption: str | None = text_field(
        Platform.SHORT_VIDEO, "caption", "Caption; hashtags and mentions allowed."
    )
    privacy_level: ShortVideoPrivacyLevel | None = Field(
        None,
        description=(
            "Our extension: who may watch the video, in TikTok's own values. TikTok has the "
            "account's owner choose it for every post, with no default, among the levels "
            "the account offers (a public account: PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, "
            "SELF_ONLY; a private one: FOLLOWER_OF_CREATOR, MUTUAL_FOLLOW_FRIENDS, SELF_ONLY); "
            "an app TikTok has not audited may post SELF_ONLY only. On a TikTok connection a "
            "post without it, or with a level the account does not offer, is refused with "
            "400 `validation_error` naming `privacyLevel` (the account's levels in the "
            "message) before anything is sent. The sandbox publishes without it."
        ),
        examples=[ShortVideoPrivacyLevel.SELF_ONLY.value],
    )
    allow_comments: bool | None = _interaction("comment on the video")
    allow_duet: bool | None = _interaction("make Duets with the video")
    allow_stitch: bool | None = _interaction("make Stitches with the video")


class PhotoSharingPublish(PublishRequest):
    file_id: str = _file("a photo or a video")
    caption: str | None = text_field(Platform.PHOTO_SHARING, "caption", "Caption.")


class PageSocialPublish(PublishRequest):
    file_id: str = _file("a photo or a video")
    message: str | None = text_field(Platform.PAGE_SOCIAL, "message", "Post text.")


class PinBoardPublish(PublishRequest):
    file_id: str = _file("an image")
    board_id: str = Field(min_length=1, description="The board to pin to.")
    title: str | None = text_field(Platform.PIN_BOARD, "title", "Pin title.")
    description: str | None = text_field(Platform.PIN_BOARD, "description", "Pin description.")


class TextThreadPublish(PublishRequest):
    text: str = text_field(Platform.TEXT_THREAD, "text", "The post.")
    file_id: NO_MEDIA = None


class ProfessionalNetworkPublish(PublishRequest):
    text: str = text_field(Platform.PROFESSIONAL_NETWORK, "text", "The post.")
    file_id: NO_MEDIA = None


class OpenMicroblogPublish(PublishRequest):
    """Our extension, not in the spec: a Bluesky post (AT Protocol)."""

    # altText describes the file: with it, fileId is required (and not null).
    model_config = ConfigDict(
        json_schema_extra={
            "if": {"required": ["altText"], "properties": {"altText": {"type": "string"}}},
            "then": {"required": ["fileId"], "properties": {"fileId": {"type": "string"}}},
        }
    )

    text: str = text_field(
        Platform.OPEN_MICROBLOG,
        "text",
        "The post. Links (http:// or https://), @-mentions of handles and #hashtags in it "
        "become Bluesky's facets; a mention of a handle that does not resolve stays plain "
        "text. Bluesky's own limits (300 characters, 3,000 UTF-8 bytes) are refused with "
        "400 `validation_error` naming the rule.",
    )
    file_id: str | None = Field(
        None,
        min_length=1,
        description="Id of an uploaded, ready file: one image or one video (MP4), or none "
        "for a text post.",
    )
    alt_text: str | None = Field(
        None,
        description="The image's or the video's alt text, for people who cannot see it; "
        "only with `fileId`.",
    )


REQUESTS: dict[Platform, type[PublishRequest]] = {
    Platform.MICROBLOG: MicroblogPublish,
    Platform.VIDEO_SHARING: VideoSharingPublish,
    Platform.SHORT_VIDEO: ShortVideoPost,
    Platform.PHOTO_SHARING: PhotoSharingPublish,
    Platform.PAGE_SOCIAL: PageSocialPublish,
    Platform.PIN_BOARD: PinBoardPublish,
    Platform.TEXT_THREAD: TextThreadPublish,
    Platform.PROFESSIONAL_NETWORK: ProfessionalNetworkPublish,
    Platform.OPEN_MICROBLOG: OpenMicroblogPublish,
}


class ThumbnailRequest(RequestModel):
    thumbnail_file_id: str = _file("an image (1280x720, 16:9, under 2 MB recommended)")


# Results. The identifier's name per platform is RULES[platform].id_field.


PLATFORM_ENUM: dict[str, Any] = {"enum": [p.value for p in Platform]}


class PublishResult(CamelModel):
    success: bool = True
    platform: str = Field(json_schema_extra=PLATFORM_ENUM)
    connection_id: str
    status: str = Field("published", json_schema_extra={"enum": ["published"]})
    published_at: Timestamp
    url: str
    record_id: str = Field(description="Our post record: `GET /api/posts/{recordId}`.")


class MicroblogResult(PublishResult):
    microblog_post_id: str


class VideoSharingResult(PublishResult):
    video_id: str
    privacy_status: str = Field(
        description="The privacy asked for (the request's `privacyStatus` or its default).",
        json_schema_extra={"enum": list(PRIVACY_STATUSES)},
    )
    applied_privacy_status: str | None = Field(
        None,
        description=(
            "Our extension: the privacy YouTube reports for the video once uploaded "
            "(`status.privacyStatus`), which can differ from `privacyStatus`: YouTube may "
            "lock uploads from unverified API projects to private (its pages disagree on "
            "whether it still does) and the account's settings can make an upload private. "
            "Null when YouTube did not say (and on the sandbox)."
        ),
        json_schema_extra={"enum": [*PRIVACY_STATUSES, None]},
    )
    applied_made_for_kids: bool | None = Field(
        None,
        description="Our extension: whether YouTube treats the video as made for children "
        "(`status.madeForKids`); null when YouTube did not say.",
    )


class PostIdResult(PublishResult):
    post_id: str


class ShortVideoResult(PostIdResult):
    post_id: str = Field(
        description="TikTok's public post id; while TikTok gives none (a post that is not "
        "public, or not yet through its moderation) the `publishId`, and `url` is then "
        "the account's profile."
    )
    publish_id: str | None = Field(
        None,
        description="Our extension: TikTok's `publish_id`, the post's reference whatever "
        "its privacy (null on the sandbox).",
    )
    privacy_level: ShortVideoPrivacyLevel | None = Field(
        None, description="Our extension: the privacy level TikTok accepted for the post."
    )
    publicly_available: bool | None = Field(
        None,
        description="Our extension: whether TikTok has given the post a public id (it does "
        "for public posts once moderated, usually within a minute). False: the post is "
        "live but `postId` is the `publishId` and `url` the profile.",
    )


class ProfessionalNetworkResult(PublishResult):
    post_id: str = Field(description="A URN, e.g. `urn:li:share:7214300000000000000`.")


class OpenMicroblogResult(PostIdResult):
    post_id: str = Field(
        description="The post's AT URI (`at://{did}/app.bsky.feed.post/{rkey}`); the record "
        "key is pressroom's own, the same for every attempt at one post record."
    )
    cid: str | None = Field(
        None, description="The record's content hash (CID); null on the sandbox."
    )


class PinBoardResult(PublishResult):
    pin_id: str
    board_id: str


RESULTS: dict[Platform, type[PublishResult]] = {
    Platform.MICROBLOG: MicroblogResult,
    Platform.VIDEO_SHARING: VideoSharingResult,
    Platform.SHORT_VIDEO: ShortVideoResult,
    Platform.PHOTO_SHARING: PostIdResult,
    Platform.PAGE_SOCIAL: PostIdResult,
    Platform.PIN_BOARD: PinBoardResult,
    Platform.TEXT_THREAD: PostIdResult,
    Platform.PROFESSIONAL_NETWORK: ProfessionalNetworkResult,
    Platform.OPEN_MICROBLOG: OpenMicroblogResult,
}


class ThumbnailResult(CamelModel):
    success: bool = True
    video_id: str
    thumbnail_url: str
    status: str = "thumbnail_set"
    updated_at: Timestamp


# Post records.


class PostRecord(CamelModel):
    record_id: str
    platform: str = Field(json_schema_extra=PLATFORM_ENUM)
    connection_id: str
    status: str = Field(
        description="sending, published, failed (never reached the platform) or unknown "
        "(the platform failed after receiving it: it may be live).",
        json_schema_extra={"enum": ["sending", "published", "failed", "unknown"]},
    )
    file_id: str | None
    idempotency_key: str | None
    platform_post_id: str | None
    url: str | None
    request: dict[str, Any] = Field(description="The publish body as sent.")
    result: dict[str, Any] | None = Field(
        description="The answer given: the publish result, or the error body."
    )
    created_at: Timestamp
    published_at: Timestamp | None


class PostResponse(CamelModel):
    success: bool = True
    post: PostRecord


class PostListResponse(CamelModel):
    success: bool = True
    posts: list[PostRecord]
    next_cursor: str | None
