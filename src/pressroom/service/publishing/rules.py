"""The rules a publish must pass before anything is sent: the spec's
(``platforms.RULES``), then the real network's (``pressroom.rules``).

Three groups, checked in this order so the cheapest refusal comes first: the body alone
(lengths, required text, privacy, the short_video label), the connection's account (its
type, page and permission), and the file (its kind and, for short_video, its length).
In each, the spec's limits come first with the spec's errors (281 characters on
microblog is ``text_too_long``); then the network's rules, where the network is stricter
or counts otherwise: a 400 ``validation_error`` with the field, the rule's id and its
page. A media rule that conversion can meet is not refused (the file is fitted for the
network); those it cannot (a duration, an aspect ratio) are.
Each refusal names the field and says what to change.
"""

from __future__ import annotations

import logging

from pydantic.alias_generators import to_camel

from pressroom import error_codes
from pressroom import rules as network
from pressroom.platforms import (
    PRIVACY_STATUSES,
    RULES,
    MediaKind,
    Platform,
)
from pressroom.rules import MediaFacts, Subject, Violation, check_text
from pressroom.service.db.models import Connection, File
from pressroom.service.errors import ServiceError
from pressroom.service.publishing.schemas import (
    PublishRequest,
    ShortVideoPost,
    VideoSharingPublish,
)

log = logging.getLogger(__name__)

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
    if rules.text_only and body.media_file_id is not None:
        raise ServiceError(
            error_codes.MEDIA_NOT_ALLOWED,
            f"{platform.value} posts text only: remove fileId.",
            field="fileId",
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
    return MediaFacts(
        kind=MediaKind(file.kind),
        content_type=file.content_type,
        size=file.size,
        width=file.width,
        height=file.height,
        duration_seconds=file.duration_seconds,
        video_codec=file.video_codec,
        audio_codec=file.audio_codec,
        frame_rate=file.frame_rate,
    )


def check_network_media(
    platform: Platform, file: File, *, field: str, subject: Subject = Subject.MEDIA
) -> None:
    """The network's media rules on the probed file: refused when conversion cannot
    meet a rule; a rule it can meet is left to the fitting of the file."""
    verdict = network.check_media(platform, facts_of(file), subject=subject)
    if verdict.refused:
        raise network_refusal(platform, verdict.refused[0], field=field)
    for violation in verdict.needs_fitting:
        log.debug(
            "file %s needs fitting for %s: %s (%s)",
            file.id,
            violation.rule.id,
            violation.fix,
            violation.message,
        )


def check_account(platform: Platform, connection: Connection) -> None:
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


def check_media(platform: Platform, file: File, *, field: str = "fileId") -> None:
    rules = RULES[platform]
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
    check_network_media(platform, file, field=field)


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
