"""The rules a publish must pass before anything is sent: the spec's
(``platforms.RULES``), then the real network's (``pressroom.rules``).

Three groups, checked in this order so the cheapest refusal comes first: the body alone
(lengths, required text, privacy, the short_video label), the connection's account (its
type, page and permission), and the file (its kind and, for short_video, its length).
In each, the spec's limits come first with the spec's errors (281 characters on
microblog is ``text_too_long``); then the network's rules, where the network is stricter
or counts otherwise: a 400 ``validation_error`` with the field, the rule's id and its
page. A media rule that conversion can meet is not refused (the file is fitted for the
network: ``media.fitting``); those it cannot (a duration; an aspect ratio, unless the
body's ``fit`` says ``pad`` or ``crop``) are.
Each refusal names the field and says what to change.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Protocol

from pydantic.alias_generators import to_camel as _to_camel

from pressroom import error_codes
from pressroom import rules as network
from pressroom.platforms import (
    PRIVACY_STATUSES,
    RULES,
    MediaKind,
    Platform,
    PostFormat,
)
from pressroom.probe import FileKind
from pressroom.rules import (
    CAROUSELS,
    FIRST_COMMENT,
    MIN_CAROUSEL_ITEMS,
    Fit,
    MediaFacts,
    Subject,
    Violation,
    check_text,
)
from pressroom.rules.alt_text import (
    FIELD as ALTS_FIELD,
)
from pressroom.rules.alt_text import (
    check_alt_kind,
    check_alt_post,
    check_alt_text,
    field_of,
)
from pressroom.rules.formats import (
    DOCUMENT_TITLE,
    FormatRule,
    check_format_count,
    check_format_file,
    format_rule,
    offered,
    offered_rule,
    offers,
)
from pressroom.service.db.models import File
from pressroom.service.errors import ServiceError
from pressroom.service.media.fitting import facts_of as _facts
from pressroom.service.publishing.schemas import (
    FITS,
    FORMATS,
    PublishRequest,
    ShortVideoPost,
    ThreadPart,
    VideoSharingPublish,
)

to_camel = cache(_to_camel)
"""A field's name in the body, as the errors name it (its regular expressions, twice a
publish, cost more than the checks they name)."""

PUBLISHING_ACCOUNT_TYPES = ("business", "creator")
_ARTICLE = {MediaKind.IMAGE: "an image", MediaKind.VIDEO: "a video"}


def check_body(platform: Platform, body: PublishRequest) -> None:
    rules = RULES[platform]
    if isinstance(body, ShortVideoPost) and body.platform != Platform.SHORT_VIDEO.value:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"/api/social/post publishes to short_video only, not {body.platform!r}; "
            "send platform: short_video, or use the platform's own /api/v2/.../publish route.",
            field="platform",
        )
    for rule in rules.text_fields:
        value = body.text_value(rule.name)
        if value is None:
            continue
        field = to_camel(rule.name)
        if rule.required and not value.strip():
            raise ServiceError(
                error_codes.VALIDATION_ERROR, f"{field} must not be empty.", field=field
            )
        over = rule.excess(value)
        if over is not None:
            raise ServiceError(
                error_codes.TEXT_TOO_LONG,
                f"{field} is {over.length:,} {over.unit}; {platform.value} allows at most "
                f"{over.limit:,}. Shorten it by {over.length - over.limit:,}.",
                field=field,
            )
    if getattr(body, "alt_text", None) is not None and body.media_file_id is None:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "altText describes the post's file: add fileId, or remove altText.",
            field="altText",
        )
    post_format = check_format(platform, body)
    check_files(platform, body)
    if rules.text_only and body.media_file_id is not None and post_format is None:
        document = format_rule(platform, PostFormat.DOCUMENT)
        if document is not None:
            # A PDF in fileId is the usual slip here: say how a document post is made.
            raise ServiceError(
                error_codes.MEDIA_NOT_ALLOWED,
                f"{platform.value} takes one file only as a document post: give format: "
                f"document and {to_camel(DOCUMENT_TITLE)} with a PDF in fileId, or remove "
                "fileId (give fileIds for a carousel).",
                field="fileId",
                rule=document.id,
                doc_url=document.doc_url,
            )
        raise ServiceError(
            error_codes.MEDIA_NOT_ALLOWED,
            f"{platform.value} posts text only: remove fileId."
            if platform not in CAROUSELS
            else f"{platform.value} takes no single file: remove fileId, or give fileIds "
            "for a carousel.",
            field="fileId",
        )
    fit = getattr(body, "fit", None)
    if fit is not None and fit not in FITS:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"fit must be one of {', '.join(FITS)}, not {fit!r}.",
            field="fit",
        )
    privacy = body.privacy_status if isinstance(body, VideoSharingPublish) else None
    if privacy is not None and privacy not in PRIVACY_STATUSES:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"privacyStatus must be one of {', '.join(PRIVACY_STATUSES)}, not {privacy!r}.",
            field="privacyStatus",
        )
    texts = {rule.name: body.text_value(rule.name) for rule in rules.text_fields}
    broken = check_text(platform, texts)
    if broken:
        raise network_refusal(platform, broken[0], field=to_camel(broken[0].field or ""))
    if getattr(body, "thread", None) is not None:
        check_thread(platform, body.thread_parts)
    comment = body.first_comment_text
    if comment is not None:
        check_first_comment(platform, comment)
    if getattr(body, "file_alts", None) is not None:
        check_alts(platform, body)


def check_alts(platform: Platform, body: PublishRequest) -> None:
    """``fileAlts``: the network takes alt text on this post at all (its label, format,
    a carousel), then each key one of the post's file ids and each text not blank and
    within the network's limit; the kind of each described file is checked with the
    file (``check_alt_file``). Each refusal names ``fileAlts.<id>`` (``fileAlts`` for the
    post as a whole)."""
    alts = body.alt_texts
    if not alts:
        return
    carousel = bool(body.carousel_file_ids) or any(
        len(part.file_ids or ()) > 1 for part in body.thread_parts
    )
    broken = check_alt_post(platform, body.post_format, carousel=carousel)
    if broken is not None:
        raise network_refusal(platform, broken, field=ALTS_FIELD)
    named = set(body.all_file_ids)
    for file_id, text in alts.items():
        field = field_of(file_id)
        if file_id not in named:
            raise ServiceError(
                error_codes.VALIDATION_ERROR,
                f"{field}: {file_id!r} is none of the post's files (fileId, fileIds, a "
                "thread part's fileIds): alt text describes a file the post carries.",
                field=field,
            )
        if not text.strip():
            raise ServiceError(
                error_codes.VALIDATION_ERROR,
                f"{field} must not be empty: describe the file, or leave it out.",
                field=field,
            )
        too_long = check_alt_text(platform, text)
        if too_long is not None:
            raise network_refusal(platform, too_long, field=field)


def check_alt_file(platform: Platform, body: PublishRequest, file: File) -> None:
    """A described file's kind against the network's alt-text rule (Instagram, Facebook,
    LinkedIn and Pinterest take it on images only)."""
    if file.id not in body.alt_texts:
        return
    broken = check_alt_kind(platform, file.kind)
    if broken is not None:
        raise network_refusal(platform, broken, field=field_of(file.id))


def check_format(platform: Platform, body: PublishRequest) -> FormatRule | None:
    """``format``: one the label offers, then the media and texts that format takes
    (the rule table's ``formats``); the rule of a format other than ``post``, else None.
    ``documentTitle`` goes with ``document`` alone, and ``fileIds`` on short_video with
    ``photo`` alone (a TikTok video post is one video)."""
    value = body.format
    if value is not None and value not in FORMATS:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"format must be one of {', '.join(PostFormat)}, not {value!r}.",
            field="format",
        )
    post_format = body.post_format
    title = getattr(body, DOCUMENT_TITLE, None)
    title_field = to_camel(DOCUMENT_TITLE)
    if title is not None and post_format is not PostFormat.DOCUMENT:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{title_field} titles a document post: give format: document with a PDF in "
            f"fileId, or remove {title_field}.",
            field=title_field,
        )
    if not offers(platform, post_format):
        offer = offered_rule(platform)
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{offer.network}, behind {platform.value}, makes no {post_format} through its "
            f"API: {platform.value} offers format {', '.join(offered(platform))}. Nothing "
            "was sent.",
            field="format",
            rule=offer.id,
            doc_url=offer.doc_url,
        )
    if (
        platform is Platform.SHORT_VIDEO
        and body.carousel_file_ids
        and post_format is not PostFormat.PHOTO
    ):
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "fileIds on short_video lists a photo post's images: give format: photo, or "
            "fileId for a video post.",
            field="fileIds",
        )
    rule = format_rule(platform, post_format)
    if rule is None:
        return None
    for text in RULES[platform].text_fields:
        if not rule.takes_text and body.text_value(text.name) is not None:
            field = to_camel(text.name)
            raise network_refusal(
                platform,
                Violation(
                    rule,
                    f"{rule.network}'s {rule.format} shows no text: remove {field}.",
                ),
                field=field,
            )
    if not rule.takes_comment and body.first_comment_text is not None:
        field = to_camel(FIRST_COMMENT)
        raise network_refusal(
            platform,
            Violation(rule, f"{rule.network}'s {rule.format} takes no comment: remove {field}."),
            field=field,
        )
    files = body.carousel_file_ids
    count = len(files) if files else int(body.media_file_id is not None)
    if count == 0:
        wanted = "a PDF" if rule.format is PostFormat.DOCUMENT else "its file"
        raise network_refusal(
            platform,
            Violation(rule, f"{rule.network}'s {rule.format} needs {wanted}: give fileId."),
            field="fileId",
        )
    too_many = check_format_count(rule, count)
    if too_many is not None:
        raise network_refusal(platform, too_many, field="fileIds")
    if rule.format is PostFormat.DOCUMENT and (title is None or not title.strip()):
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{title_field} is required with format: document: give the document's title.",
            field=title_field,
        )
    return rule


def check_format_media(rule: FormatRule, file: File, *, field: str) -> None:
    """One file of a post in a format other than ``post``: the kind, content type, length,
    size or page count the format takes (a document's PDF is no image or video)."""
    facts = facts_of(file) if file.kind in set(MediaKind) else None
    problem = check_format_file(rule, facts, file.content_type, pages=file.pages, size=file.size)
    if problem is not None:
        raise network_refusal(rule.platform, Violation(rule, problem), field=field)


def check_files(platform: Platform, body: PublishRequest) -> None:
    """``fileId`` or ``fileIds``, never both; a media label needs one of them. A carousel
    has at least ``MIN_CAROUSEL_ITEMS`` files, then as many as the network's
    ``ItemsPerPost`` rule allows, each id given; the files themselves are checked with
    the connection (``check_carousel_item``)."""
    files = getattr(body, "file_ids", None)
    if files is None:
        rules = RULES[platform]
        if not (rules.text_only or rules.media_optional) and body.media_file_id is None:
            also = " (or fileIds, for a carousel)" if platform in CAROUSELS else ""
            raise ServiceError(
                error_codes.VALIDATION_ERROR,
                f"fileId is required: give the id of an uploaded, ready file{also}.",
                field="fileId",
            )
        return
    if body.media_file_id is not None:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "fileId and fileIds cannot go together: give fileId for a post of one file, "
            "or fileIds (its files in order) for a carousel.",
            field="fileIds",
        )
    if len(files) < MIN_CAROUSEL_ITEMS:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"fileIds lists a carousel's files: give at least {MIN_CAROUSEL_ITEMS}, or "
            "fileId for a post of one file.",
            field="fileIds",
        )
    for i, file_id in enumerate(files):
        if not file_id.strip():
            raise ServiceError(
                error_codes.VALIDATION_ERROR,
                f"fileIds[{i}] must not be empty: give the id of an uploaded, ready file.",
                field=f"fileIds[{i}]",
            )
    too_many = network.check_carousel(platform, len(files))
    if too_many is not None:
        raise network_refusal(platform, too_many, field="fileIds")


def check_not_a_document(
    platform: Platform, file: File, *, field: str, post_format: PostFormat = PostFormat.POST
) -> None:
    """A document (a PDF) goes alone, in ``fileId``, in a post whose format is
    ``document``: anywhere else (a feed post, a carousel, a thread part, a thumbnail,
    another label) it is refused with the rule that says where it goes, the label's
    ``document`` format or, on a label without one, the formats it offers."""
    if file.kind != FileKind.DOCUMENT:
        return
    document = format_rule(platform, PostFormat.DOCUMENT)
    if document is not None and post_format is PostFormat.DOCUMENT and field == "fileId":
        return
    if document is not None:
        where = (
            "give it alone in fileId"
            if field != "fileId"
            else f"give format: document and {to_camel(DOCUMENT_TITLE)}"
        )
        message = (
            f"File {file.id!r} is a PDF, which {document.network} takes only as a document "
            f"post: {where}, or choose an image or a video here."
        )
        rule_id, doc_url = document.id, document.doc_url
    else:
        offer = offered_rule(platform)
        message = (
            f"File {file.id!r} is a PDF: only a document post takes one (format: document "
            f"on professional_network), and {platform.value} offers format "
            f"{', '.join(offered(platform))}. Choose an image or a video."
        )
        rule_id, doc_url = offer.id, offer.doc_url
    raise ServiceError(
        error_codes.MEDIA_NOT_ALLOWED, message, field=field, rule=rule_id, doc_url=doc_url
    )


def check_carousel_item(
    platform: Platform,
    file: File,
    *,
    field: str,
    fit: Fit | None,
    post_format: PostFormat = PostFormat.POST,
) -> None:
    """A carousel's file: a kind the network takes in carousels, then the spec's video
    length and the network's media rules, as for ``fileId``. A TikTok photo post's images
    are held to the format's rule instead."""
    check_not_a_document(platform, file, field=field, post_format=post_format)
    rule = format_rule(platform, post_format)
    if rule is not None:
        check_format_media(rule, file, field=field)
        check_network_media(platform, file, field=field, fit=fit)
        return
    carousel = CAROUSELS[platform]
    kind = MediaKind(file.kind)
    if kind not in carousel.kinds:
        wanted = " or ".join(_ARTICLE[k] for k in sorted(carousel.kinds))
        raise ServiceError(
            error_codes.MEDIA_NOT_ALLOWED,
            f"{carousel.network}'s carousels on {platform.value} take {wanted} per "
            f"item; file {file.id!r} is {_ARTICLE[kind]}.",
            field=field,
        )
    if kind == MediaKind.VIDEO:
        _check_duration(platform, file, field=field)
    check_network_media(platform, file, field=field, fit=fit)


def check_first_comment(platform: Platform, comment: str) -> None:
    """A first comment: not blank, then the network's comment rules where it documents
    any (``FIRST_COMMENT`` in the rule table), named ``firstComment``."""
    field = to_camel(FIRST_COMMENT)
    if not comment.strip():
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{field} must not be empty: give the comment's text, or leave it out.",
            field=field,
        )
    broken = check_text(platform, {FIRST_COMMENT: comment})
    if broken:
        raise network_refusal(platform, broken[0], field=field)


def check_thread(platform: Platform, parts: Sequence[ThreadPart]) -> None:
    """A thread's later parts: how many the network takes in one thread, then each
    part's text held to the first part's rules (the spec's limit, then the network's),
    named ``thread[i].text`` with i counted in the body's list, from 0."""
    if not parts:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "thread lists the parts after the first: give at least one, or leave it out "
            "for a single post.",
            field="thread",
        )
    too_many = network.check_thread(platform, 1 + len(parts))
    if too_many is not None:
        raise network_refusal(platform, too_many, field="thread")
    rule = RULES[platform].text_rule("text")
    assert rule is not None  # every label that takes threads has a text
    for i, part in enumerate(parts):
        field = f"thread[{i}].text"
        if part.file_ids is not None:
            _check_part_files(platform, i, part)
        if not part.text.strip():
            raise ServiceError(
                error_codes.VALIDATION_ERROR, f"{field} must not be empty.", field=field
            )
        over = rule.excess(part.text)
        if over is not None:
            raise ServiceError(
                error_codes.TEXT_TOO_LONG,
                f"{field} is {over.length:,} {over.unit}; {platform.value} allows at most "
                f"{over.limit:,}. Shorten it by {over.length - over.limit:,}.",
                field=field,
            )
        broken = check_text(platform, {"text": part.text})
        if broken:
            raise network_refusal(platform, broken[0], field=field)


def _check_part_files(platform: Platform, i: int, part: ThreadPart) -> None:
    """A thread part's files: only where the label's parts take any, one file or a
    carousel as many as the network's ``ItemsPerPost`` allows, each id given; the files
    themselves are checked with the connection (``check_carousel_item``)."""
    files = part.file_ids or []
    field = f"thread[{i}].fileIds"
    if not part.takes_files:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{field}: the parts of a {platform.value} thread are text only; remove fileIds.",
            field=field,
        )
    if not files:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{field} lists the part's files: give at least one, or leave it out.",
            field=field,
        )
    for j, file_id in enumerate(files):
        if not file_id.strip():
            raise ServiceError(
                error_codes.VALIDATION_ERROR,
                f"{field}[{j}] must not be empty: give the id of an uploaded, ready file.",
                field=f"{field}[{j}]",
            )
    too_many = network.check_carousel(platform, len(files)) if len(files) > 1 else None
    if too_many is not None:
        raise network_refusal(platform, too_many, field=field)


def network_refusal(platform: Platform, violation: Violation, *, field: str) -> ServiceError:
    """The 400 for a network's rule: the field, the rule's id and the page it comes from."""
    rule = violation.rule
    return ServiceError(
        error_codes.VALIDATION_ERROR,
        f"{rule.network}, behind {platform.value}, would refuse this post: "
        f"{violation.message} Nothing was sent.",
        field=field,
        rule=rule.id,
        doc_url=rule.doc_url,
    )


def facts_of(file: File) -> MediaFacts:
    return _facts(file, MediaKind(file.kind), file.content_type)


def check_network_media(
    platform: Platform,
    file: File,
    *,
    field: str,
    subject: Subject = Subject.MEDIA,
    fit: Fit | None = None,
) -> None:
    """The network's media rules on the probed file: refused when conversion cannot
    meet a rule; a rule it can meet is left to the fitting of the file
    (``media.fitting.to_send``)."""
    verdict = network.check_media(platform, facts_of(file), subject=subject, fit=fit)
    if verdict.refused:
        raise network_refusal(platform, verdict.refused[0], field=field)


class ConnectedAccount(Protocol):
    """What ``check_account`` reads of a connection (a model or a row)."""

    @property
    def name(self) -> str: ...
    @property
    def account_type(self) -> str | None: ...
    @property
    def page_kind(self) -> str | None: ...
    @property
    def pages_permission(self) -> bool: ...


def check_account(platform: Platform, connection: ConnectedAccount) -> None:
    """What the platform demands of the account beyond being connected and active."""
    name = connection.name
    if platform == Platform.PHOTO_SHARING and (
        connection.account_type not in PUBLISHING_ACCOUNT_TYPES
    ):
        raise ServiceError(
            error_codes.ACCOUNT_TYPE,
            f"{name} is a {connection.account_type or 'personal'} photo_sharing account; "
            "only business or creator accounts can publish. Switch it to a business or "
            "creator account on the platform, then reconnect it in the dashboard.",
            field="connectionId",
        )
    if platform == Platform.PAGE_SOCIAL:
        if connection.page_kind != "page":
            raise ServiceError(
                error_codes.NOT_A_PAGE,
                f"{name} is a personal profile; page_social publishes to pages only. "
                "Connect the page itself in the dashboard.",
                field="connectionId",
            )
        if not connection.pages_permission:
            raise ServiceError(
                error_codes.PAGES_PERMISSION,
                f"The page {name} was connected without the Pages permission; reconnect it "
                "in the dashboard and grant that permission.",
                field="connectionId",
            )


def check_media(
    platform: Platform,
    file: File,
    *,
    field: str = "fileId",
    fit: Fit | None = None,
    post_format: PostFormat = PostFormat.POST,
) -> None:
    rules = RULES[platform]
    check_not_a_document(platform, file, field=field, post_format=post_format)
    rule = format_rule(platform, post_format)
    if rule is not None:
        # The format says which files it takes (a reel: a video; a document: a PDF);
        # the spec's length and the network's media rules still hold for a video or image.
        check_format_media(rule, file, field=field)
        if file.kind not in set(MediaKind):
            return
        if file.kind == MediaKind.VIDEO and MediaKind.VIDEO in rules.media_kinds:
            _check_duration(platform, file, field=field)
        check_network_media(platform, file, field=field, fit=fit)
        return
    kind = MediaKind(file.kind)
    if kind not in rules.media_kinds:
        wanted = " or ".join(_ARTICLE[k] for k in sorted(rules.media_kinds))
        raise ServiceError(
            error_codes.MEDIA_NOT_ALLOWED,
            f"{platform.value} takes {wanted}; file {file.id!r} is {_ARTICLE[kind]}.",
            field=field,
        )
    if kind == MediaKind.VIDEO:
        _check_duration(platform, file, field=field)
    check_network_media(platform, file, field=field, fit=fit)


def _check_duration(platform: Platform, file: File, *, field: str) -> None:
    rules = RULES[platform]
    low, high = rules.min_video_seconds, rules.max_video_seconds
    if low is None and high is None:
        return
    span = f"{_span(low)} to {_span(high)}"
    seconds = file.duration_seconds
    if seconds is None:
        raise ServiceError(
            error_codes.VIDEO_DURATION,
            f"{platform.value} takes videos of {span}; the length of file {file.id!r} is unknown.",
            field=field,
        )
    if (low is not None and seconds < low) or (high is not None and seconds > high):
        raise ServiceError(
            error_codes.VIDEO_DURATION,
            f"{platform.value} takes videos of {span}; file {file.id!r} lasts {seconds:g} s.",
            field=field,
        )


def check_thumbnail(file: File, *, field: str) -> None:
    check_not_a_document(Platform.VIDEO_SHARING, file, field=field)
    if file.kind != MediaKind.IMAGE:
        raise ServiceError(
            error_codes.MEDIA_NOT_ALLOWED,
            f"A thumbnail must be an image; file {file.id!r} is {_ARTICLE[MediaKind(file.kind)]}.",
            field=field,
        )
    check_network_media(Platform.VIDEO_SHARING, file, field=field, subject=Subject.THUMBNAIL)


def _span(seconds: float | None) -> str:
    if seconds is None:
        return "any length"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"
