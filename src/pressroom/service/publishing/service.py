"""Publishing: check every rule, record the attempt, send it, record the answer.

A publish is three steps, never one transaction, because the platform call may take
seconds and must not hold the database:

1. one unit of work checks the connection and the file and writes the post record
   (status ``sending``);
2. the driver sends it, with no transaction open;
3. another unit of work records the answer: ``published`` with the platform's id (and,
   with an Idempotency-Key, stores the result for replays in the same transaction),
   ``failed`` when the platform refused before receiving it, or ``unknown`` when it
   failed after receiving it, so the post may be live. The caller then gets a 503
   ``platform_unavailable`` whose message says which, and ``GET /api/posts`` shows it.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from pressroom import error_codes
from pressroom.platforms import DEFAULT_PRIVACY_STATUS, RULES, MediaKind, Platform
from pressroom.service.connections.repository import ConnectionRepository
from pressroom.service.connections.service import expire_token, require_publishable
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import Account, File, Post
from pressroom.service.db.session import transaction
from pressroom.service.drivers import base as driver
from pressroom.service.errors import ServiceError, unexpected_error
from pressroom.service.events.catalog import InactiveReason
from pressroom.service.media.pagination import Position, decode_cursor, encode_cursor
from pressroom.service.media.readiness import require_ready_file
from pressroom.service.oauth import service as oauth
from pressroom.service.oauth.vault import Vault
from pressroom.service.ops import metrics
from pressroom.service.publishing import events, rules
from pressroom.service.publishing.claims import Claim, settle_in
from pressroom.service.publishing.context import PublishContext
from pressroom.service.publishing.repository import PostRepository
from pressroom.service.publishing.schemas import (
    RESULTS,
    PinBoardPublish,
    PublishRequest,
    PublishResult,
    ThumbnailRequest,
    ThumbnailResult,
    VideoSharingPublish,
)
from pressroom.statuses import PostStatus, RecordStatus

log = logging.getLogger(__name__)

SENDING = PostStatus.SENDING.value
PUBLISHED = PostStatus.PUBLISHED.value
FAILED = PostStatus.FAILED.value
UNKNOWN = PostStatus.UNKNOWN.value
NOT_SENT = RecordStatus.NOT_SENT.value
"""``recordStatus`` of an attempt that never reached the platform (its record: failed)."""

_NOT_SENT_TO_PLATFORM = frozenset({"connection_id", "file_id", "platform"})
PLATFORM_REFERENCE = "platformReference"
"""Kept in an unknown record's result: the network's handle for what it received (TikTok's
``publish_id``), which its look-up asks for."""


def publish(ctx: PublishContext, platform: Platform, body: PublishRequest) -> PublishResult:
    rules.check_body(platform, body)
    post_id, delivery = _prepare(ctx, platform, body)
    try:
        published = ctx.drivers[platform].publish(delivery)
    except driver.PlatformRateLimited as exc:
        raise _refused(ctx, post_id, platform, _rate_limited(platform, post_id, exc)) from exc
    except driver.PlatformUnavailable as exc:
        failure = _record_failure(ctx, post_id, platform, exc)
        metrics.PUBLISHES.labels(platform.value, failure.record_status or NOT_SENT).inc()
        raise failure from exc
    except driver.AccessRevoked as exc:
        _turn_inactive(ctx, delivery.account.connection_id)
        error = ServiceError(
            error_codes.CONNECTION_INACTIVE,
            f"{platform.value} no longer accepts this connection's authorization ({exc}), "
            f"so nothing was published (record {post_id} is marked failed) and the "
            "connection is now inactive: reconnect it in the dashboard.",
            field="connectionId",
        )
        raise _refused(ctx, post_id, platform, error) from exc
    except driver.PermissionMissing as exc:
        error = ServiceError(
            exc.code,
            f"{platform.value} refused the post: {exc} Nothing was published "
            f"(record {post_id} is marked failed).",
        )
        raise _refused(ctx, post_id, platform, error) from exc
    except driver.PlatformRefused as exc:
        error = ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{platform.value} refused the post: {exc} Nothing was published "
            f"(record {post_id} is marked failed).",
            field=exc.field,
            rule=exc.rule.id if exc.rule else None,
            doc_url=exc.rule.doc_url if exc.rule else None,
        )
        raise _refused(ctx, post_id, platform, error) from exc
    except driver.NetworkMisconfigured as exc:
        error = ServiceError(
            error_codes.PLATFORM_MISCONFIGURED,
            f"{platform.value} cannot take posts from this service as it is set up: {exc}. "
            f"Nothing was published (record {post_id} is marked failed).",
            record_status=NOT_SENT,
        )
        raise _refused(ctx, post_id, platform, error) from exc
    except Exception as exc:
        metrics.PUBLISHES.labels(platform.value, UNKNOWN).inc()
        # A timeout or a broken connection after the request left: it may be live.
        log.exception("publishing %s to %s ended without an answer", post_id, platform.value)
        error = ServiceError(
            error_codes.INTERNAL_ERROR,
            f"{platform.value} did not answer, so the post may have been published "
            f"(record {post_id} is marked unknown). Retry with the same Idempotency-Key: "
            "the service looks the post up before it sends anything again.",
            record_status=UNKNOWN,
        )
        _record_outcome(ctx, post_id, status=UNKNOWN, result=error.body())
        raise error from exc
    metrics.PUBLISHES.labels(platform.value, PUBLISHED).inc()
    result = result_of(platform, body, published, post_id)
    answer = result.model_dump(mode="json", by_alias=True)
    try:
        record_published(ctx.sessions, ctx.account.id, post_id, published, answer, ctx.claim)
    except Exception as exc:
        # The post is live but our record of it is not: keep the key held, so a retry
        # finds the post instead of sending it again.
        unexpected = unexpected_error(exc)
        raise ServiceError(
            unexpected.error,
            f"{platform.value} published the post ({published.url}), but it could not be "
            f"recorded: {unexpected.message} Retry with the same Idempotency-Key to get the "
            "result; nothing is sent again.",
            headers=unexpected.headers,
            record_status=PUBLISHED,
        ) from exc
    return result


def record_published(
    sessions: sessionmaker[Session],
    account_id: str,
    post_id: str,
    published: driver.Published,
    answer: dict[str, Any],
    claim: Claim | None,
) -> None:
    """The attempt went out: its platform id, and the answer stored for replays, at once."""
    with transaction(sessions) as db:
        post = PostRepository(db).get(account_id, post_id)
        assert post is not None
        was = post.status
        post.status = PUBLISHED
        post.platform_post_id = published.platform_post_id
        post.url = published.url
        post.published_at = published.published_at
        post.result = answer
        events.announce(db, post, was)
        if claim is not None:
            settle_in(db, claim, 200, answer)


class _RefreshFirst(Exception):
    def __init__(self, connection_id: str) -> None:
        self.connection_id = connection_id


def _prepare(
    ctx: PublishContext, platform: Platform, body: PublishRequest
) -> tuple[str, driver.Delivery]:
    """Check the connection and the file, and write the post record before sending.

    A connection whose access token lapsed is refreshed first, outside any transaction;
    when the platform refuses, the connection turns inactive and the publish is refused
    as for any inactive connection."""
    try:
        return _prepare_once(ctx, platform, body, refresh=True)
    except _RefreshFirst as due:
        flow = oauth.Flow(
            ctx.sessions,
            ctx.drivers,
            Vault.from_settings(ctx.settings),
            ctx.settings.public_base_url,
        )
        try:
            oauth.refresh(flow, due.connection_id)
        except driver.PlatformUnavailable as exc:
            raise ServiceError(
                error_codes.PLATFORM_UNAVAILABLE,
                f"{platform.value} could not renew the connection's authorization now "
                f"({exc}), so nothing was sent; retry after Retry-After seconds.",
                headers={"Retry-After": str(exc.retry_after)},
                record_status=NOT_SENT,
            ) from exc
    return _prepare_once(ctx, platform, body, refresh=False)


def _prepare_once(
    ctx: PublishContext, platform: Platform, body: PublishRequest, *, refresh: bool
) -> tuple[str, driver.Delivery]:
    with transaction(ctx.sessions) as db:
        connection = require_publishable(db, ctx.account, body.connection_id, platform)
        due = oauth.due_for_refresh(db, connection) if refresh else None
        if due is not None:
            raise _RefreshFirst(due)
        rules.check_account(platform, connection)
        media = None
        if not RULES[platform].text_only and body.media_file_id is not None:
            # required by every media body but open_microblog's, where it is optional
            file = require_ready_file(db, ctx.account, body.media_file_id, field="fileId")
            rules.check_media(platform, file)
            media = media_of(file)
        post = PostRepository(db).add(
            Post(
                id=new_id("post"),
                account_id=ctx.account.id,
                connection_id=connection.id,
                platform=platform.value,
                file_id=body.media_file_id,
                request=body.model_dump(mode="json", by_alias=True, exclude_unset=True),
                result=None,
                status=SENDING,
                idempotency_key=ctx.claim.key if ctx.claim else None,
                created_at=utcnow(),
            )
        )
        delivery = driver.Delivery(
            platform=platform,
            account=driver.Account(connection.id, connection.name),
            fields=platform_fields(platform, body),
            media=media,
            reference=post.id,
            dedup_key=f"{ctx.account.id}:{ctx.claim.key}" if ctx.claim else None,
            created_at=post.created_at,
        )
        return post.id, delivery


def media_of(file: File) -> driver.Media:
    return driver.Media(
        file_id=file.id,
        kind=MediaKind(file.kind),
        content_type=file.content_type,
        storage_key=file.storage_key,
        duration_seconds=file.duration_seconds,
        size=file.size,
        width=file.width,
        height=file.height,
        video_codec=file.video_codec,
        audio_codec=file.audio_codec,
        frame_rate=file.frame_rate,
    )


def platform_fields(platform: Platform, body: PublishRequest) -> dict[str, Any]:
    fields = body.model_dump(
        mode="json", by_alias=True, exclude_none=True, exclude=set(_NOT_SENT_TO_PLATFORM)
    )
    if platform == Platform.VIDEO_SHARING:
        fields.setdefault("privacyStatus", DEFAULT_PRIVACY_STATUS)
    return fields


def result_of(
    platform: Platform, body: PublishRequest, published: driver.Published, post_id: str
) -> PublishResult:
    data: dict[str, Any] = {
        **published.extra,  # what the network says it did, for the result's extension fields
        "platform": platform.value,
        "connectionId": body.connection_id,
        "publishedAt": published.published_at,
        "url": published.url,
        "recordId": post_id,
        RULES[platform].id_field: published.platform_post_id,
    }
    if isinstance(body, VideoSharingPublish):
        data["privacyStatus"] = body.privacy_status or DEFAULT_PRIVACY_STATUS
    if isinstance(body, PinBoardPublish):
        data["boardId"] = body.board_id
    return RESULTS[platform].model_validate(data)


def _record_failure(
    ctx: PublishContext, post_id: str, platform: Platform, exc: driver.PlatformUnavailable
) -> ServiceError:
    if exc.sent:
        message = (
            f"{platform.value} failed after receiving the post, so it may have been published "
            f"(record {post_id} is marked unknown). Retry with the same Idempotency-Key: the "
            "service looks the post up on the platform before it sends anything again. "
            "Without a key, check GET /api/posts/{post_id} before resending."
        )
    else:
        message = (
            f"{platform.value} is unavailable and nothing was published (record {post_id} is "
            "marked failed); retry after Retry-After seconds."
        )
    error = ServiceError(
        error_codes.PLATFORM_UNAVAILABLE,
        message,
        headers={"Retry-After": str(exc.retry_after)},
        record_status=UNKNOWN if exc.sent else NOT_SENT,
    )
    kept = {PLATFORM_REFERENCE: exc.reference} if exc.sent and exc.reference else {}
    _record_outcome(
        ctx, post_id, status=UNKNOWN if exc.sent else FAILED, result=error.body() | kept
    )
    return error


def _rate_limited(
    platform: Platform, post_id: str, exc: driver.PlatformRateLimited
) -> ServiceError:
    return ServiceError(
        error_codes.RATE_LIMITED,
        f"{platform.value} refused the post for its rate limit, so nothing was published "
        f"(record {post_id} is marked failed); retry after Retry-After seconds.",
        headers={"Retry-After": str(exc.retry_after)},
    )


def _refused(
    ctx: PublishContext, post_id: str, platform: Platform, error: ServiceError
) -> ServiceError:
    """The network refused the post before publishing it: the record fails with the
    answer the caller gets."""
    metrics.PUBLISHES.labels(platform.value, NOT_SENT).inc()
    _record_outcome(ctx, post_id, status=FAILED, result=error.body())
    return error


def _turn_inactive(ctx: PublishContext, connection_id: str) -> None:
    """The token behind the connection was refused: it (or, for a text_thread, the
    photo_sharing account whose token it uses) turns inactive, twin included."""
    with transaction(ctx.sessions) as db:
        connection = ConnectionRepository(db).get(connection_id)
        if connection is None:
            return
        holder = connection.parent_id if connection.parent_id else connection.id
        expire_token(db, holder, InactiveReason.ACCESS_REVOKED)


def _mark_unverified(ctx: PublishContext, connection_id: str) -> None:
    """The network says the channel is not verified: the next thumbnail is refused here,
    as for any channel connected unverified, until a reconnect reads it again."""
    with transaction(ctx.sessions) as db:
        connection = ConnectionRepository(db).get(connection_id)
        if connection is not None:
            connection.verified = False


def _record_outcome(
    ctx: PublishContext, post_id: str, *, status: str, result: dict[str, Any] | None
) -> None:
    with transaction(ctx.sessions) as db:
        post = PostRepository(db).get(ctx.account.id, post_id)
        if post is not None:
            was = post.status
            post.status = status
            post.result = result
            events.announce(db, post, was)


# Thumbnails


def set_thumbnail(ctx: PublishContext, video_id: str, body: ThumbnailRequest) -> ThumbnailResult:
    with transaction(ctx.sessions, write=False) as db:
        video = PostRepository(db).published_video(ctx.account.id, video_id)
        if video is None:
            raise ServiceError(
                error_codes.VIDEO_NOT_FOUND,
                f"No video {video_id!r} published by this account: use the videoId of a "
                "video_sharing publish result.",
            )
        try:
            channel = require_publishable(
                db, ctx.account, video.connection_id, Platform.VIDEO_SHARING
            )
        except ServiceError as exc:
            exc.field = None  # the channel comes from the video, not from the body
            raise
        if not channel.verified:
            raise ServiceError(
                error_codes.CHANNEL_NOT_VERIFIED,
                f"The channel {channel.name} is not verified, so it cannot set custom "
                "thumbnails; video_sharing generates a thumbnail for the video itself. "
                "Verify the channel on the platform to use your own.",
            )
        image = require_ready_file(db, ctx.account, body.thumbnail_file_id, field="thumbnailFileId")
        rules.check_thumbnail(image, field="thumbnailFileId")
        channel_id = channel.id
        change = driver.ThumbnailChange(
            driver.Account(channel.id, channel.name), video_id, media_of(image)
        )
    try:
        done = ctx.drivers[Platform.VIDEO_SHARING].set_thumbnail(change)
    except driver.PlatformRateLimited as exc:
        raise ServiceError(
            error_codes.RATE_LIMITED,
            "video_sharing refused the thumbnail for its rate limit; nothing changed. "
            "Retry after Retry-After seconds.",
            headers={"Retry-After": str(exc.retry_after)},
        ) from exc
    except driver.AccessRevoked as exc:
        _turn_inactive(ctx, channel_id)
        raise ServiceError(
            error_codes.CONNECTION_INACTIVE,
            f"video_sharing no longer accepts the channel's authorization ({exc}); it is "
            "now inactive: reconnect it in the dashboard.",
        ) from exc
    except driver.PermissionMissing as exc:
        if exc.code is error_codes.CHANNEL_NOT_VERIFIED:
            _mark_unverified(ctx, channel_id)
        raise ServiceError(exc.code, f"video_sharing refused the thumbnail: {exc}") from exc
    except driver.PlatformRefused as exc:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"video_sharing refused the thumbnail: {exc}",
            field=exc.field if exc.field != "fileId" else "thumbnailFileId",
            rule=exc.rule.id if exc.rule else None,
            doc_url=exc.rule.doc_url if exc.rule else None,
        ) from exc
    except driver.PlatformUnavailable as exc:
        raise ServiceError(
            error_codes.PLATFORM_UNAVAILABLE,
            f"video_sharing is unavailable; the thumbnail may not be set. Retry after "
            f"{exc.retry_after} s (setting it again is harmless).",
            headers={"Retry-After": str(exc.retry_after)},
            record_status=UNKNOWN if exc.sent else NOT_SENT,
        ) from exc
    return ThumbnailResult(
        video_id=done.video_id, thumbnail_url=done.thumbnail_url, updated_at=done.updated_at
    )


# Reading posts back


def get_post(db: Session, account: Account, record_id: str) -> Post:
    post = PostRepository(db).get(account.id, record_id)
    if post is None:
        raise ServiceError(
            error_codes.POST_NOT_FOUND, f"No post record {record_id!r} in this account."
        )
    return post


def list_posts(
    db: Session,
    account: Account,
    *,
    limit: int,
    cursor: str | None,
    connection_id: str | None,
    platform: str | None,
    idempotency_key: str | None,
) -> tuple[list[Post], str | None]:
    if platform is not None and platform not in {p.value for p in Platform}:
        known = ", ".join(p.value for p in Platform)
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"platform must be one of {known}, not {platform!r}.",
            field="platform",
        )
    if connection_id is not None:
        connection = ConnectionRepository(db).get(connection_id)
        if connection is None or connection.account_id != account.id:
            # As everywhere, a foreign id is indistinguishable from one that never was.
            # An own connection that was since removed still filters its history.
            raise ServiceError(
                error_codes.CONNECTION_NOT_FOUND,
                f"No connection {connection_id!r} in this account.",
                field="connectionId",
            )
    posts = PostRepository(db).newest_first(
        account.id,
        limit=limit + 1,
        after=decode_cursor(cursor),
        connection_id=connection_id,
        platform=platform,
        idempotency_key=idempotency_key,
    )
    page = posts[:limit]
    more = len(posts) > limit
    last = page[-1] if more and page else None
    return page, encode_cursor(Position(last.created_at, last.id)) if last else None
