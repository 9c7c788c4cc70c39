"""Publish bodies and results of spec 4.4, and the post records read back.

Limits are not written here: field descriptions are generated from
``pressroom.platforms.RULES``, and the rules are checked in ``rules.py`` (pydantic's
``max_length`` would count code points, not characters as people see them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import ConfigDict, Field, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue, SkipJsonSchema
from pydantic_core import CoreSchema

from pressroom.platforms import (
    DEFAULT_PRIVACY_STATUS,
    MAX_CODE_POINTS_PER_CHARACTER,
    PRIVACY_STATUSES,
    RULES,
    Platform,
    PostFormat,
)
from pressroom.rules import (
    CAROUSELS,
    FIRST_COMMENT,
    MIN_CAROUSEL_ITEMS,
    carousel_rule,
    text_rules,
)
from pressroom.rules.alt_text import ALT_TEXT_RULES
from pressroom.rules.counting import Unit
from pressroom.rules.formats import FORMAT_RULES, offered
from pressroom.rules.model import Fit, TextLength
from pressroom.service.publishing.campaign import Campaign, campaign_field
from pressroom.service.schemas import CamelModel, RequestModel, Timestamp
from pressroom.service.text_rules import SOME_TEXT
from pressroom.statuses import PartKind, PartStatus, PostStatus, ShortVideoPrivacyLevel


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


def _one_file(what: str) -> Any:
    """``fileId`` on a label that also takes carousels: one of it and ``fileIds``."""
    return Field(
        None,
        min_length=1,
        description=f"Id of an uploaded, ready file: {what}. Required unless `fileIds` "
        "is given; both together are refused with 400 `validation_error` naming `fileIds`.",
    )


def _file_ids(platform: Platform) -> Any:
    carousel = CAROUSELS[platform]
    rule = carousel_rule(platform)
    count = (
        f"{rule.network} takes {rule.min_items} to {rule.max_items} files "
        f"(`error.rule` `{rule.id}`)"
        if rule is not None
        else f"At least {MIN_CAROUSEL_ITEMS}; {carousel.network} documents no upper bound"
    )
    kinds = " or ".join(f"{kind}s" for kind in sorted(carousel.kinds))
    items = (
        "then one `item` part per file, in order, with the network's id for it"
        if carousel.item_ids
        else "the network gives the items no ids of their own, so no `item` parts"
    )
    return Field(
        None,
        description=f"Our extension: a carousel, published as {carousel.how}: the ids of "
        f"uploaded, ready files ({kinds}), in the order shown. {count}; a count outside "
        "is refused with 400 `validation_error` naming `fileIds` before anything is sent, "
        "and each file is checked as `fileId` is (named `fileIds[i]`). Not with `fileId`. "
        f"The result's fields describe the carousel, and `parts` lists it as `post`, {items}.",
        json_schema_extra={
            "minItems": MIN_CAROUSEL_ITEMS,
            **({"maxItems": rule.max_items} if rule is not None else {}),
            "items": {"type": "string", "minLength": 1, "pattern": SOME_TEXT},
        },
    )


ONE_FILE_OR_A_CAROUSEL: dict[str, Any] = {
    "oneOf": [{"required": ["fileId"]}, {"required": ["fileIds"]}]
}
"""A media label that takes carousels: ``fileId`` or ``fileIds``, exactly one (neither
field takes null)."""


FITS: tuple[str, ...] = tuple(Fit)


def _fit() -> Any:
    return Field(
        None,
        description="Our extension: what to do when the network behind the label does not "
        "take the picture's shape (its width:height, e.g. Instagram's 4:5 to 1.91:1): "
        "`refuse` (the default: 400 `validation_error` naming the rule), `pad` (letterboxed "
        "to the nearest shape it takes) or `crop` (cut to it, keeping the centre). Done to "
        "a copy made for the network; the uploaded file is never changed.",
        examples=[Fit.REFUSE.value],
        json_schema_extra={"enum": list(FITS)},
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


NO_ALTS = SkipJsonSchema[dict[str, str] | None]
"""Labels whose network takes no alt text declare ``file_alts`` this way: hidden from the
schema, present so a body carrying one is refused naming the ``<label>.alt_text`` rule
rather than with a bare "unknown field"."""


def _file_alts(platform: Platform) -> Any:
    """``fileAlts``: alt text per file, as one map beside the ids (not objects in their
    place), so ``fileId``, ``fileIds`` and a thread part's ``fileIds`` stay lists of ids
    as the spec and the carousel design have them, and a body without alt text is
    unchanged."""
    rule = ALT_TEXT_RULES[platform]
    kinds = " and ".join(f"{kind}s" for kind in sorted(rule.kinds))
    where = (
        "a post's, a carousel's and a thread part's files"
        if rule.carousels
        else (f"a post of one file only ({rule.network} takes none on a carousel's images)")
    )
    limit = (
        f"At most {rule.limit:,} {rule.unit} (`maxLength`); longer is refused with 400 "
        f"`validation_error` (`error.rule` `{rule.id}`)."
        if rule.limit is not None
        else f"{rule.network} documents no length limit, so none is checked before sending."
    )
    text: dict[str, Any] = {"type": "string", "minLength": 1, "pattern": SOME_TEXT}
    if rule.limit is not None and rule.unit is Unit.CODE_POINTS:
        text["maxLength"] = rule.limit
    return Field(
        None,
        description=f"Our extension: alt text, the description of a file {rule.network} "
        "gives people who cannot see it, per file: an object mapping each described "
        "file's id to its text (one shape: a map beside the ids, so `fileId` and "
        f"`fileIds` stay ids). Sent as {rule.network}'s `{rule.field_name}`, on {kinds} "
        f"only, for {where}, in a feed post (`format` `post`). A key that is not one of "
        "the post's file ids (`fileId`, `fileIds`, a thread part's `fileIds`), a file of a "
        "kind or a format the network takes no alt text on, or a blank text is refused "
        "with 400 `validation_error` naming `fileAlts.<id>` before anything is sent "
        f"(`error.rule` `{rule.id}` where the network's rule is at stake). {limit} The "
        "post record keeps it in `request`.",
        json_schema_extra={"additionalProperties": text},
    )


class ThreadPart(RequestModel):
    """One part of a thread after the first; its text is held to the first part's rules
    (the spec's limit, then the network's; a refusal names ``thread[i].text``)."""

    takes_files: ClassVar[bool] = False
    """Whether the label's later parts may carry files (``fileIds``)."""
    text: str
    file_ids: SkipJsonSchema[list[str] | None] = None
    """Not taken where ``takes_files`` is false (the label's parts are text only): a
    part with ``fileIds`` is refused with 400 ``validation_error`` naming
    ``thread[i].fileIds`` (hidden from the schema there)."""


class MicroblogThreadPart(ThreadPart):
    text: str = text_field(Platform.MICROBLOG, "text", "The part's text.")


class TextThreadThreadPart(ThreadPart):
    takes_files = True
    text: str = text_field(Platform.TEXT_THREAD, "text", "The part's text.")
    file_ids: Annotated[list[str], Field(min_length=1)] | SkipJsonSchema[None] = Field(
        None,
        json_schema_extra={"items": {"type": "string", "minLength": 1, "pattern": SOME_TEXT}},
        description="Our extension: the part's files, in order: one file (an image or a "
        "video) or several for a carousel, held to the rules of a post's `fileIds` (how "
        "many, which kinds, each file ready), a refusal naming `thread[i].fileIds[j]`. "
        "Sent with the part's text as its reply.",
    )


def _part_images(platform: Platform) -> Any:
    """A thread part's images where they go in the reply as a post's images do: as many
    as the network's ``ItemsPerPost`` rule allows."""
    rule = carousel_rule(platform)
    assert rule is not None  # the label's images per post are in the rule table
    return Field(
        None,
        json_schema_extra={
            "maxItems": rule.max_items,
            "items": {"type": "string", "minLength": 1, "pattern": SOME_TEXT},
        },
        description=f"Our extension: the part's images, in order: {rule.min_items} to "
        f"{rule.max_items} (`error.rule` `{rule.id}`), held to the rules of a post's "
        "`fileIds` (images only, each file ready), a refusal naming `thread[i].fileIds[j]`; "
        f"each with its alt text from `fileAlts`. Sent in the part's reply as {rule.network} "
        "embeds a post's images.",
    )


class OpenMicroblogThreadPart(ThreadPart):
    takes_files = True
    text: str = text_field(Platform.OPEN_MICROBLOG, "text", "The part's text.")
    file_ids: Annotated[list[str], Field(min_length=1)] | SkipJsonSchema[None] = _part_images(
        Platform.OPEN_MICROBLOG
    )


def _thread() -> Any:
    return Field(
        None,
        min_length=1,
        description="Our extension: the parts of a thread after the first (the body's own "
        "fields are the first part). Each part is published as a reply to the one before; "
        "how many parts a thread may have is the network's rule "
        "(`error.rule` `<label>.thread_parts`, refused before anything is sent). The "
        "result's `parts` lists every part; a retry with the same Idempotency-Key resumes "
        "after the parts that stand.",
    )


def _first_comment(platform: Platform) -> Any:
    limits = [
        f"{rule.limit:,} {rule.unit.value} ({rule.network}'s `{rule.id}`)"
        for rule in text_rules(platform)
        if isinstance(rule, TextLength) and FIRST_COMMENT in rule.fields
    ]
    limit = (
        f"At most {', '.join(limits)}."
        if limits
        else "The network documents no length limit for a comment, so none is checked "
        "before sending; one the network refuses leaves the post `partial`."
    )
    return Field(
        None,
        description="Our extension: a comment the account adds under its own post once the "
        "post is published, sent as the result's last part (`kind` `comment`, after a "
        "carousel's items) on the post part 0 made. A comment the network refuses leaves "
        "the post `partial` (it stays published) with the refusal's error and `parts`; a "
        "retry with the same Idempotency-Key sends only the comment. Must not be blank. "
        f"{limit}",
        json_schema_extra={"minLength": 1, "pattern": SOME_TEXT},
    )


@dataclass(frozen=True)
class LaterPart:
    """A part sent after part 0: a thread's reply, or the first comment."""

    kind: PartKind
    text: str
    field: str
    """The body field its text came from, named as a refusal names it."""
    file_ids: tuple[str, ...] = ()
    """A thread part's files (``thread[i].fileIds``): one, or a carousel's in order."""


def has_later_parts(platform: Platform, request: dict[str, Any] | None) -> bool:
    """Whether a stored publish body makes parts after the first (``threads``): a
    thread's replies, a first comment, or a carousel's items where the network gives
    them ids."""
    body = request or {}
    items = bool(body.get("fileIds")) and platform in CAROUSELS and CAROUSELS[platform].item_ids
    return bool(body.get("thread") or body.get("firstComment") or items)


def _format() -> Any:
    offers = "; ".join(
        f"`{rule.format}` on {rule.platform.value} ({rule.network}: {rule.describe()}, "
        f"`error.rule` `{rule.id}`)"
        for rule in FORMAT_RULES
    )
    return Field(
        None,
        description="Our extension: what the network makes of the post: `post` (the "
        f"default, a feed post, on every label); {offers}. A format the label does not "
        "offer is refused with 400 `validation_error` naming `format` (`error.rule` "
        "`<label>.format`), and media or text the format does not take with 400 naming the "
        "field at fault, before anything is sent. The answer and the post record show it.",
        examples=[PostFormat.POST.value],
        json_schema_extra={"enum": [f.value for f in PostFormat], "default": "post"},
    )


FORMATS = frozenset(PostFormat)


def format_of(request: dict[str, Any] | None) -> PostFormat:
    """A stored publish body's format: ``post`` when it gave none (or, stored before it
    was checked, one that is not a format)."""
    value = (request or {}).get("format")
    return PostFormat(value) if value in FORMATS else PostFormat.POST


class PublishRequest(RequestModel):
    label: ClassVar[Platform]
    connection_id: str = _connection()
    campaign: Campaign | None = campaign_field()
    format: str | None = _format()

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            """A field another label's body has (``getattr(body, "thread", None)``, as
            the rules ask every body): absent at once. Pydantic's own miss raises and
            catches twice, about 3 us, a dozen times a publish."""
            if name.startswith("_"):
                return super().__getattr__(name)
            raise AttributeError(name)

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """Each label's body lists only the formats its network offers (the rule table's
        ``offered``), so the document refuses what the service refuses."""
        schema = handler(core_schema)
        found = handler.resolve_ref_schema(schema)
        label = getattr(cls, "label", None)
        properties = found.get("properties", {})
        if isinstance(label, Platform) and "format" in properties:
            properties["format"]["enum"] = [f.value for f in offered(label)]
        return schema

    @property
    def post_format(self) -> PostFormat:
        """``format`` as given, ``post`` when not sent (checked by ``rules.check_body``)."""
        value = self.format
        return PostFormat(value) if value in FORMATS else PostFormat.POST

    @property
    def thread_parts(self) -> list[ThreadPart]:
        """The parts after the first; empty for a single post."""
        value = getattr(self, "thread", None)
        return list(value) if isinstance(value, list) else []

    @property
    def first_comment_text(self) -> str | None:
        value = getattr(self, FIRST_COMMENT, None)
        return value if isinstance(value, str) else None

    @property
    def carousel_file_ids(self) -> list[str]:
        """The files of a carousel, in order; empty for a post of one file or none."""
        value = getattr(self, "file_ids", None)
        return list(value) if isinstance(value, list) else []

    @property
    def item_parts(self) -> int:
        """How many ``item`` parts the result lists: one per file of a carousel, where
        the network gives items ids of their own."""
        carousel = CAROUSELS.get(self.label)
        files = self.carousel_file_ids
        return len(files) if carousel is not None and carousel.item_ids else 0

    @cached_property
    def later_parts(self) -> list[LaterPart]:
        """Every part after part 0, in order: a carousel's items (which go out with part
        0, ``threads``), a thread's replies, then the first comment; empty for a single
        post. Worked out once per body (a publish asks three times, 5 us each): a body is
        not changed once validated."""
        parts = [LaterPart(PartKind.ITEM, "", f"fileIds[{i}]") for i in range(self.item_parts)]
        parts += [
            LaterPart(PartKind.REPLY, part.text, f"thread[{i}].text", tuple(part.file_ids or ()))
            for i, part in enumerate(self.thread_parts)
        ]
        comment = self.first_comment_text
        if comment is not None:
            parts.append(LaterPart(PartKind.COMMENT, comment, "firstComment"))
        return parts

    @property
    def alt_texts(self) -> dict[str, str]:
        """``fileAlts``: each described file's alt text by its id; empty when none."""
        value = getattr(self, "file_alts", None)
        return dict(value) if isinstance(value, dict) else {}

    @property
    def all_file_ids(self) -> list[str]:
        """Every file id the post names: ``fileId``, ``fileIds``, then each thread part's
        ``fileIds``, in order (the keys ``fileAlts`` may use)."""
        ids = [self.media_file_id] if self.media_file_id is not None else []
        ids += self.carousel_file_ids
        for part in self.thread_parts:
            ids += part.file_ids or []
        return ids

    def text_value(self, name: str) -> str | None:
        """A text field by its rule name (``text``, ``title``, ...), None when absent."""
        value = getattr(self, name, None)
        return value if isinstance(value, str) else None

    @property
    def media_file_id(self) -> str | None:
        value = getattr(self, "file_id", None)
        return value if isinstance(value, str) else None

    @property
    def fit_choice(self) -> Fit | None:
        """``fit`` as given (checked by ``rules.check_body``); None when not sent."""
        value = getattr(self, "fit", None)
        return Fit(value) if isinstance(value, str) and value in FITS else None


class MicroblogPublish(PublishRequest):
    label = Platform.MICROBLOG
    text: str = text_field(Platform.MICROBLOG, "text", "The post.")
    file_id: NO_MEDIA = None
    thread: list[MicroblogThreadPart] | None = _thread()
    file_alts: NO_ALTS = None


class VideoSharingPublish(PublishRequest):
    label = Platform.VIDEO_SHARING
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
    first_comment: str | None = _first_comment(Platform.VIDEO_SHARING)
    file_alts: NO_ALTS = None
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
    fit: str | None = _fit()


PHOTO_POST_ONLY: dict[str, Any] = {
    "if": {"required": ["fileIds"]},
    "then": {"required": ["format"], "properties": {"format": {"const": PostFormat.PHOTO.value}}},
}
"""short_video's ``fileIds`` are a photo post's images: with them, ``format`` is ``photo``."""

DOCUMENT_ONLY: dict[str, Any] = {
    "if": {"required": ["format"], "properties": {"format": {"const": "document"}}},
    "then": {"required": ["fileId", "documentTitle"]},
    "else": {"not": {"anyOf": [{"required": ["documentTitle"]}, {"required": ["fileId"]}]}},
}
"""professional_network's ``fileId`` and ``documentTitle`` belong to a document post,
which needs both."""


class ShortVideoPost(PublishRequest):
    model_config = ConfigDict(json_schema_extra={**ONE_FILE_OR_A_CAROUSEL, **PHOTO_POST_ONLY})
    label = Platform.SHORT_VIDEO
    platform: str = Field(
        description="Must be `short_video`.",
        examples=["short_video"],
        json_schema_extra={"enum": [Platform.SHORT_VIDEO.value]},
    )
    file_id: str | SkipJsonSchema[None] = _one_file(
        "a video of 3 seconds to 10 minutes (an image with `format` `photo`)"
    )
    file_ids: list[str] | SkipJsonSchema[None] = Field(
        None,
        description="Our extension: a TikTok photo post's images, in order, with `format` "
        "`photo` only (without it, 400 `validation_error` naming `fileIds`): TikTok's photo "
        "post limits are in `format`. Not with `fileId`.",
        json_schema_extra={
            "minItems": MIN_CAROUSEL_ITEMS,
            "items": {"type": "string", "minLength": 1, "pattern": SOME_TEXT},
        },
    )
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
            "message) before anything is sent; the sandbox refuses it the same way."
        ),
        examples=[ShortVideoPrivacyLevel.SELF_ONLY.value],
    )
    allow_comments: bool | None = _interaction("comment on the video")
    allow_duet: bool | None = _interaction("make Duets with the video")
    allow_stitch: bool | None = _interaction("make Stitches with the video")
    fit: str | None = _fit()
    file_alts: NO_ALTS = None


class PhotoSharingPublish(PublishRequest):
    model_config = ConfigDict(json_schema_extra=ONE_FILE_OR_A_CAROUSEL)
    label = Platform.PHOTO_SHARING
    file_id: str | SkipJsonSchema[None] = _one_file("a photo or a video")
    file_ids: list[str] | SkipJsonSchema[None] = _file_ids(Platform.PHOTO_SHARING)
    caption: str | None = text_field(Platform.PHOTO_SHARING, "caption", "Caption.")
    first_comment: str | None = _first_comment(Platform.PHOTO_SHARING)
    fit: str | None = _fit()
    file_alts: dict[str, str] | SkipJsonSchema[None] = _file_alts(Platform.PHOTO_SHARING)


class PageSocialPublish(PublishRequest):
    model_config = ConfigDict(json_schema_extra=ONE_FILE_OR_A_CAROUSEL)
    label = Platform.PAGE_SOCIAL
    file_id: str | SkipJsonSchema[None] = _one_file("a photo or a video")
    file_ids: list[str] | SkipJsonSchema[None] = _file_ids(Platform.PAGE_SOCIAL)
    message: str | None = text_field(Platform.PAGE_SOCIAL, "message", "Post text.")
    first_comment: str | None = _first_comment(Platform.PAGE_SOCIAL)
    fit: str | None = _fit()
    file_alts: dict[str, str] | SkipJsonSchema[None] = _file_alts(Platform.PAGE_SOCIAL)


class PinBoardPublish(PublishRequest):
    model_config = ConfigDict(json_schema_extra=ONE_FILE_OR_A_CAROUSEL)
    label = Platform.PIN_BOARD
    file_id: str | SkipJsonSchema[None] = _one_file("an image")
    file_ids: list[str] | SkipJsonSchema[None] = _file_ids(Platform.PIN_BOARD)
    board_id: str = Field(min_length=1, description="The board to pin to.")
    title: str | None = text_field(Platform.PIN_BOARD, "title", "Pin title.")
    description: str | None = text_field(Platform.PIN_BOARD, "description", "Pin description.")
    fit: str | None = _fit()
    file_alts: dict[str, str] | SkipJsonSchema[None] = _file_alts(Platform.PIN_BOARD)


class TextThreadPublish(PublishRequest):
    label = Platform.TEXT_THREAD
    text: str = text_field(Platform.TEXT_THREAD, "text", "The post.")
    file_id: NO_MEDIA = None
    file_ids: list[str] | SkipJsonSchema[None] = _file_ids(Platform.TEXT_THREAD)
    thread: list[TextThreadThreadPart] | None = _thread()
    file_alts: dict[str, str] | SkipJsonSchema[None] = _file_alts(Platform.TEXT_THREAD)


class ProfessionalNetworkPublish(PublishRequest):
    model_config = ConfigDict(json_schema_extra=DOCUMENT_ONLY)
    label = Platform.PROFESSIONAL_NETWORK
    text: str = text_field(Platform.PROFESSIONAL_NETWORK, "text", "The post.")
    file_id: str | SkipJsonSchema[None] = Field(
        None,
        min_length=1,
        description="Our extension: with `format` `document` only, the id of an uploaded, "
        "ready PDF (`application/pdf`); without it, 400 `media_kind_not_allowed`.",
    )
    document_title: str | None = Field(
        None,
        description="Our extension: a document post's title, shown above the document. "
        "Required with `format` `document` and refused without it (400 `validation_error` "
        "naming `documentTitle`); must not be blank. LinkedIn documents no length limit for "
        "it, so none is checked before sending.",
        json_schema_extra={"minLength": 1, "pattern": SOME_TEXT},
    )
    file_ids: list[str] | SkipJsonSchema[None] = _file_ids(Platform.PROFESSIONAL_NETWORK)
    first_comment: str | None = _first_comment(Platform.PROFESSIONAL_NETWORK)
    file_alts: dict[str, str] | SkipJsonSchema[None] = _file_alts(Platform.PROFESSIONAL_NETWORK)


class OpenMicroblogPublish(PublishRequest):
    """Our extension, not in the spec: a Bluesky post (AT Protocol)."""

    # altText describes fileId's file: with it, fileId is required (and not null);
    # fileAlts describes files of fileId or fileIds, one of which it needs; the two
    # never together.
    model_config = ConfigDict(
        json_schema_extra={
            "allOf": [
                {
                    "if": {"required": ["altText"], "properties": {"altText": {"type": "string"}}},
                    "then": {"required": ["fileId"]},
                },
                {
                    "if": {"required": ["fileAlts"]},
                    "then": {"anyOf": [{"required": ["fileId"]}, {"required": ["fileIds"]}]},
                },
            ],
            "not": {"required": ["fileId", "fileIds"]},
        }
    )
    label = Platform.OPEN_MICROBLOG
    text: str = text_field(
        Platform.OPEN_MICROBLOG,
        "text",
        "The post. Links (http:// or https://), @-mentions of handles and #hashtags in it "
        "become Bluesky's facets; a mention of a handle that does not resolve stays plain "
        "text. Bluesky's own limits (300 characters, 3,000 UTF-8 bytes) are refused with "
        "400 `validation_error` naming the rule.",
    )
    file_id: str | SkipJsonSchema[None] = Field(
        None,
        min_length=1,
        description="Id of an uploaded, ready file: one image or one video (MP4), or none "
        "for a text post.",
    )
    file_ids: list[str] | SkipJsonSchema[None] = _file_ids(Platform.OPEN_MICROBLOG)
    alt_text: str | None = Field(
        None,
        description="The image's or the video's alt text, for people who cannot see it; "
        "only with `fileId`.",
    )
    file_alts: dict[str, str] | SkipJsonSchema[None] = _file_alts(Platform.OPEN_MICROBLOG)
    thread: list[OpenMicroblogThreadPart] | None = _thread()


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


class Part(CamelModel):
    """One part of a post made of several (a thread: the post, then its replies)."""

    index: int = Field(description="From 0: part 0 is what the result's own fields describe.")
    kind: PartKind = Field(
        description="`post` (the first part; a carousel as a whole), `item` (a carousel's "
        "files, in order, where the network gives each an id), `reply` (a thread's later "
        "parts), `comment` (the first comment, on the post part 0 made)."
    )
    platform_post_id: str | None = Field(description="The network's id; null until it stands.")
    url: str | None
    status: PartStatus = Field(
        description="`published`, `failed` (the network refused it; nothing of it is live) "
        "or `unknown` (the network failed after receiving it: it may be live)."
    )


class PublishResult(CamelModel):
    success: bool = True
    platform: str = Field(json_schema_extra=PLATFORM_ENUM)
    connection_id: str
    status: str = Field("published", json_schema_extra={"enum": ["published"]})
    published_at: Timestamp
    url: str
    record_id: str = Field(description="Our post record: `GET /api/posts/{recordId}`.")
    format: PostFormat | None = Field(
        None,
        description="Our extension: the post's `format` as the body gave it (absent when "
        "it gave none: a feed post).",
    )


def _parts() -> Any:
    return Field(
        None,
        description="Our extension: every part of a carousel, a thread or a post with a "
        "first comment, in order (absent for a single post).",
    )


class MicroblogResult(PublishResult):
    microblog_post_id: str
    parts: list[Part] | None = _parts()


class VideoSharingResult(PublishResult):
    video_id: str
    parts: list[Part] | None = _parts()
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


class TextThreadResult(PostIdResult):
    parts: list[Part] | None = _parts()


class PhotoSharingResult(PostIdResult):
    parts: list[Part] | None = _parts()


class PageSocialResult(PostIdResult):
    parts: list[Part] | None = _parts()


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
    parts: list[Part] | None = _parts()


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
    parts: list[Part] | None = _parts()


RESULTS: dict[Platform, type[PublishResult]] = {
    Platform.MICROBLOG: MicroblogResult,
    Platform.VIDEO_SHARING: VideoSharingResult,
    Platform.SHORT_VIDEO: ShortVideoResult,
    Platform.PHOTO_SHARING: PhotoSharingResult,
    Platform.PAGE_SOCIAL: PageSocialResult,
    Platform.PIN_BOARD: PinBoardResult,
    Platform.TEXT_THREAD: TextThreadResult,
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
        description="sending, published, failed (never reached the platform), unknown "
        "(the platform failed after receiving it: it may be live) or partial (a thread "
        "some of whose parts stand and a later one was refused, or a post whose first "
        "comment was refused: `parts` says which).",
        json_schema_extra={"enum": [s.value for s in PostStatus]},
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
    parts: list[Part] = Field(
        default_factory=list,
        description="Our extension: a carousel and its items, a thread's parts, or a post "
        "and its first comment, in order; empty for a single post.",
    )
    campaign: Campaign | None = Field(
        None,
        description="Our extension: where the post comes from, as the publish body's "
        "`campaign` said (null when it said nothing).",
    )
    format: PostFormat = Field(
        PostFormat.POST,
        description="Our extension: the post's format (the body's `format`, `post` when it "
        "gave none).",
    )


class PostResponse(CamelModel):
    success: bool = True
    post: PostRecord


class PostListResponse(CamelModel):
    success: bool = True
    posts: list[PostRecord]
    next_cursor: str | None
