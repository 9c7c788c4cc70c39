"""Publishing: check every rule, record the attempt, send it, record the answer.

A publish is one short write before the platform call and one after, never one
transaction, because the platform call may take seconds and must not hold the database:

1. the body's checks (the spec's rules, then the network's), on the event loop; for a
   post with media, the connection and the file, read on a worker thread;
2. one unit of work (``attempts.attempt_unit``) checks the connection, takes the
   Idempotency-Key and writes the post record (status ``sending``), committed before
   anything is sent;
3. the driver sends it on a worker thread, with no transaction open;
4. another unit of work records the answer: ``published`` with the platform's id, the
   webhook event of the change (the outbox) and the answer stored for replays under the
   key; or ``failed`` when the platform refused before receiving it, or ``unknown`` when
   it failed after receiving it, so the post may be live, with the key kept or held as
   ``claims`` says. The caller then gets a 503 ``platform_unavailable`` whose message
   says which, and ``GET /api/posts`` shows it.

The route awaits the units (``db.writer``: on SQLite they join the other waiting
requests' units in one commit) and the driver; no thread waits on another. Once the
attempt is recorded, steps 3 and 4 finish even if the request is cancelled, as a
platform call on a thread always did.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any, cast

from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from pressroom import error_codes
from pressroom.platforms import DEFAULT_PRIVACY_STATUS, RULES, MediaKind, Platform
from pressroom.probe import FileKind, SentKind
from pressroom.rules import Subject
from pressroom.service.connections.repository import ConnectionRepository
from pressroom.service.connections.service import access_revoked, require_publishable
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Account, File, Post
from pressroom.service.db.session import transaction
from pressroom.service.drivers import base as driver
from pressroom.service.errors import ServiceError, unexpected_error
from pressroom.service.media import fitting
from pressroom.service.media.readiness import require_ready_file
from pressroom.service.oauth import service as oauth
from pressroom.service.oauth.vault import Vault
from pressroom.service.ops import metrics
from pressroom.service.publishing import rules, threads
from pressroom.service.publishing.attempts import (
    Attempt,
    RefreshFirst,
    attempt_unit,
    outcome_unit,
    published_unit,
)
from pressroom.service.publishing.browsing import browse_posts
from pressroom.service.publishing.campaign import FIELD as CAMPAIGN_FIELD
from pressroom.service.publishing.claims import take_in
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
from pressroom.statuses import PartKind, PostStatus, RecordStatus

log = logging.getLogger(__name__)

SENDING = PostStatus.SENDING.value
PUBLISHED = PostStatus.PUBLISHED.value
FAILED = PostStatus.FAILED.value
UNKNOWN = PostStatus.UNKNOWN.value
PARTIAL = PostStatus.PARTIAL.value
NOT_SENT = RecordStatus.NOT_SENT.value
"""``recordStatus`` of an attempt that never reached the platform (its record: failed)."""

_NOT_SENT_TO_PLATFORM = frozenset(
    {"connection_id", "file_id", "file_ids", "platform", "fit", "thread", "first_comment"}
    | {CAMPAIGN_FIELD, "file_alts"}
)
"""Body fields that are the service's business: which connection and files (a
carousel's go as ``Delivery.items``), how a file is fitted for the network, and the parts after the first (a thread's replies, a
first comment: each sent on its own, ``threads``), where the post comes from
(``campaign``), each file's alt text (``fileAlts``: it goes with its file, ``Media.alt_text``),
never a field the network reads with the first part."""
PLATFORM_REFERENCE = "platformReference"
"""Kept in an unknown record's result: the network's handle for what it received (TikTok's
``publish_id``), which its look-up asks for."""


async def publish(ctx: PublishContext, platform: Platform, body: PublishRequest) -> dict[str, Any]:
    """The publish result, as answered and as stored for replays."""
    rules.check_body(platform, body)
    if ctx.claim is not None and ctx.claim.resume is not None:
        sending = asyncio.ensure_future(_resume(ctx, platform, body, ctx.claim.resume))
        sending.add_done_callback(_retrieved)
        return await asyncio.shield(sending)
    media = None
    items: tuple[driver.Media, ...] = ()
    if body.carousel_file_ids:
        items = await run_in_threadpool(_checked_items, ctx, platform, body)
    elif body.media_file_id is not None or not (
        RULES[platform].text_only or RULES[platform].media_optional
    ):
        media = await run_in_threadpool(_checked_media, ctx, platform, body)
    part_files = await part_files_of(ctx, platform, body)
    attempt = await _record_attempt(ctx, platform, body, refresh=media is None and not items)
    delivery = replace(_delivery(ctx, platform, body, attempt, media), items=items)
    sending = asyncio.ensure_future(_send(ctx, platform, body, attempt, delivery, part_files))
    sending.add_done_callback(_retrieved)
    return await asyncio.shield(sending)


def _delivery(
    ctx: PublishContext,
    platform: Platform,
    body: PublishRequest,
    attempt: Attempt,
    media: driver.Media | None,
) -> driver.Delivery:
    return driver.Delivery(
        platform=platform,
        account=driver.Account(attempt.connection_id, attempt.name),
        fields=platform_fields(platform, body),
        media=media,
        reference=attempt.id,
        dedup_key=f"{ctx.account.id}:{ctx.claim.key}" if ctx.claim else None,
        created_at=attempt.created_at,
    )


async def _resume(
    ctx: PublishContext, platform: Platform, body: PublishRequest, post_id: str
) -> dict[str, Any]:
    """A post of several parts under the request's key whose first parts stand (``resuming`` looked up
    the uncertain ones): its record continued after them, nothing of them sent again."""
    at = await run_in_threadpool(
        threads.standing, ctx.sessions, ctx.account, platform, body, post_id
    )
    first = at.stood[0]
    answer = answer_of(result_of(platform, body, first, post_id))
    sender = ctx.drivers[platform]
    part_files = await part_files_of(ctx, platform, body)
    return await threads.continue_thread(
        ctx,
        platform,
        body,
        at.attempt,
        _delivery(ctx, platform, body, at.attempt, None),  # later parts carry their own
        at.stood,
        answer,
        lambda part: _published(sender, part),
        recorded=True,
        part_files=part_files,
    )


def _retrieved(sending: asyncio.Future[Any]) -> None:
    """A send whose request was cancelled still ends; its error was answered to nobody."""
    if not sending.cancelled():
        sending.exception()


async def _send(
    ctx: PublishContext,
    platform: Platform,
    body: PublishRequest,
    attempt: Attempt,
    delivery: driver.Delivery,
    part_files: dict[int, tuple[driver.Media, ...]],
) -> dict[str, Any]:
    post_id = attempt.id
    try:
        published = await _published(ctx.drivers[platform], delivery)
    except driver.PlatformRateLimited as exc:
        error = _rate_limited(platform, post_id, exc)
        raise await _refused(ctx, attempt, platform, error) from exc
    except driver.PlatformUnavailable as exc:
        failure = await _record_failure(ctx, attempt, platform, exc)
        metrics.count_publish(platform.value, failure.record_status or NOT_SENT)
        raise failure from exc
    except driver.AccessRevoked as exc:
        await run_in_threadpool(_turn_inactive, ctx, delivery.account.connection_id)
        error = ServiceError(
            error_codes.CONNECTION_INACTIVE,
            f"{platform.value} no longer accepts this connection's authorization ({exc}), "
            f"so nothing was published (record {post_id} is marked failed) and the "
            "connection is now inactive: reconnect it in the dashboard.",
            field="connectionId",
        )
        raise await _refused(ctx, attempt, platform, error) from exc
    except driver.PermissionMissing as exc:
        error = ServiceError(
            exc.code,
            f"{platform.value} refused the post: {exc} Nothing was published "
            f"(record {post_id} is marked failed).",
        )
        raise await _refused(ctx, attempt, platform, error) from exc
    except driver.PlatformRefused as exc:
        error = ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{platform.value} refused the post: {exc} Nothing was published "
            f"(record {post_id} is marked failed).",
            field=exc.field,
            rule=exc.rule.id if exc.rule else None,
            doc_url=exc.rule.doc_url if exc.rule else None,
        )
        raise await _refused(ctx, attempt, platform, error) from exc
    except driver.NetworkMisconfigured as exc:
        error = ServiceError(
            exc.code,
            f"{platform.value} cannot take posts from this service as it is set up: {exc}. "
            f"Nothing was published (record {post_id} is marked failed).",
            record_status=NOT_SENT,
        )
        raise await _refused(ctx, attempt, platform, error) from exc
    except Exception as exc:
        metrics.count_publish(platform.value, UNKNOWN)
        # A timeout or a broken connection after the request left: it may be live.
        log.exception("publishing %s to %s ended without an answer", post_id, platform.value)
        error = ServiceError(
            error_codes.INTERNAL_ERROR,
            f"{platform.value} did not answer, so the post may have been published "
            f"(record {post_id} is marked unknown). Retry with the same Idempotency-Key: "
            "the service looks the post up before it sends anything again.",
            record_status=UNKNOWN,
        )
        await _record_outcome(ctx, attempt, status=UNKNOWN, result=error.body(), error=error)
        raise error from exc
    metrics.count_publish(platform.value, PUBLISHED)
    result = result_of(platform, body, published, post_id)
    answer = answer_of(result)
    if body.later_parts:
        sender = ctx.drivers[platform]
        return await threads.continue_thread(
            ctx,
            platform,
            body,
            attempt,
            delivery,
            [published],
            answer,
            lambda part: _published(sender, part),
            recorded=False,
            part_files=part_files,
        )
    try:
        await ctx.writes.run_async(published_unit(attempt, published, answer, ctx.claim))
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
    if ctx.claim is not None:
        ctx.claim.settled = True
    return answer


async def _published(sender: driver.PlatformDriver, delivery: driver.Delivery) -> driver.Published:
    """The platform's answer: a driver that sends over a network blocks, on a worker
    thread; one that answers on the event loop (``driver.AnswersOnLoop``) is awaited.
    Told apart by the method itself: a protocol check costs more than the sandbox's
    whole publish."""
    if hasattr(sender, "publish_async"):
        return await cast(driver.AnswersOnLoop, sender).publish_async(delivery)
    return await run_in_threadpool(sender.publish, delivery)


async def _record_attempt(
    ctx: PublishContext, platform: Platform, body: PublishRequest, *, refresh: bool
) -> Attempt:
    """Check the connection, take the Idempotency-Key and write the post record, in one
    unit of work committed before anything is sent (``attempts.attempt_unit``).

    A connection whose access token lapsed is refreshed first, outside any transaction;
    when the platform refuses, the connection turns inactive and the publish is refused
    as for any inactive connection."""
    claim = ctx.claim
    try:
        attempt = await ctx.writes.run_async(
            attempt_unit(ctx.account.id, platform, body, claim, refresh=refresh)
        )
    except RefreshFirst as due:
        await run_in_threadpool(_refresh, ctx, platform, due.connection_id)
        attempt = await ctx.writes.run_async(
            attempt_unit(ctx.account.id, platform, body, claim, refresh=False)
        )
    if claim is not None and attempt.key_id is not None:
        claim.record_id = attempt.key_id
    return attempt


def _refresh(ctx: PublishContext, platform: Platform, connection_id: str) -> None:
    flow = oauth.Flow(
        ctx.sessions,
        ctx.drivers,
        Vault.from_settings(ctx.settings),
        ctx.settings.public_base_url,
    )
    try:
        oauth.refresh(flow, connection_id)
    except driver.PlatformUnavailable as exc:
        raise ServiceError(
            error_codes.PLATFORM_UNAVAILABLE,
            f"{platform.value} could not renew the connection's authorization now "
            f"({exc}), so nothing was sent; retry after Retry-After seconds.",
            headers={"Retry-After": str(exc.retry_after)},
            record_status=NOT_SENT,
        ) from exc
    except driver.SecretKeyMissing as exc:
        raise ServiceError(
            exc.code,
            f"{platform.value}: the connection's authorization could not be renewed, as "
            f"{exc}. Nothing was sent.",
            record_status=NOT_SENT,
        ) from exc


def _checked_media(ctx: PublishContext, platform: Platform, body: PublishRequest) -> driver.Media:
    """A post with media: the connection (refreshed first if its token lapsed), then
    the file, checked in that order before anything is written."""
    with transaction(ctx.sessions, write=False) as db:
        connection = require_publishable(db, ctx.account, body.connection_id, platform)
        due = oauth.due_for_refresh(db, connection)
    if due is not None:
        _refresh(ctx, platform, due)
    with transaction(ctx.sessions, write=False) as db:
        connection = require_publishable(db, ctx.account, body.connection_id, platform)
        rules.check_account(platform, connection)
        assert body.media_file_id is not None  # required by every media body
        file = require_ready_file(db, ctx.account, body.media_file_id, field="fileId")
        rules.check_media(platform, file, fit=body.fit_choice, post_format=body.post_format)
        rules.check_alt_file(platform, body, file)
        if file.kind == FileKind.DOCUMENT:
            return media_of(file)  # a document is sent as it is: nothing fits a PDF
        sent = fitting.to_send(db, file, platform, field="fileId", fit=body.fit_choice)
        return described(media_sent(sent), body)


def _checked_items(
    ctx: PublishContext, platform: Platform, body: PublishRequest
) -> tuple[driver.Media, ...]:
    """A carousel: the connection (refreshed first if its token lapsed), then each file
    in order, checked as ``fileId`` is and named ``fileIds[i]``, each fitted for the
    network where conversion meets its rules."""
    with transaction(ctx.sessions, write=False) as db:
        connection = require_publishable(db, ctx.account, body.connection_id, platform)
        due = oauth.due_for_refresh(db, connection)
    if due is not None:
        _refresh(ctx, platform, due)
    items = []
    with transaction(ctx.sessions, write=False) as db:
        connection = require_publishable(db, ctx.account, body.connection_id, platform)
        rules.check_account(platform, connection)
        for i, file_id in enumerate(body.carousel_file_ids):
            field = f"fileIds[{i}]"
            file = require_ready_file(db, ctx.account, file_id, field=field)
            rules.check_carousel_item(
                platform, file, field=field, fit=body.fit_choice, post_format=body.post_format
            )
            rules.check_alt_file(platform, body, file)
            sent = fitting.to_send(db, file, platform, field=field, fit=body.fit_choice)
            items.append(described(media_sent(sent), body))
    return tuple(items)


def _wanted_part_files(body: PublishRequest) -> dict[int, tuple[str, ...]]:
    """The file ids each reply of a thread names, by part index; empty for most posts."""
    return {
        index: part.file_ids
        for index, part in enumerate(body.later_parts, start=1)
        if part.kind == PartKind.REPLY and part.file_ids
    }


async def part_files_of(
    ctx: PublishContext, platform: Platform, body: PublishRequest
) -> dict[int, tuple[driver.Media, ...]]:
    """``checked_part_files``, on a worker thread only when a part names files: the
    hand-off to a thread and back cost a text post more than the rest of its checks."""
    if not _wanted_part_files(body):
        return {}
    return await run_in_threadpool(checked_part_files, ctx, platform, body)


def checked_part_files(
    ctx: PublishContext, platform: Platform, body: PublishRequest
) -> dict[int, tuple[driver.Media, ...]]:
    """A thread's parts' files by part index (1 for ``thread[0]``), each checked as a
    carousel's file is (the kinds the network takes, its media rules, ready) and named
    ``thread[i].fileIds[j]``, fitted for the network as ``fileIds`` are."""
    wanted = _wanted_part_files(body)
    if not wanted:
        return {}
    files: dict[int, tuple[driver.Media, ...]] = {}
    first_reply = next(
        index for index, part in enumerate(body.later_parts, start=1) if part.kind == PartKind.REPLY
    )
    with transaction(ctx.sessions, write=False) as db:
        for index, file_ids in wanted.items():
            sent = []
            for j, file_id in enumerate(file_ids):
                field = f"thread[{index - first_reply}].fileIds[{j}]"
                file = require_ready_file(db, ctx.account, file_id, field=field)
                rules.check_carousel_item(platform, file, field=field, fit=body.fit_choice)
                rules.check_alt_file(platform, body, file)
                sent.append(
                    described(
                        media_sent(
                            fitting.to_send(db, file, platform, field=field, fit=body.fit_choice)
                        ),
                        body,
                    )
                )
            files[index] = tuple(sent)
    return files


def media_sent(sent: fitting.Sent) -> driver.Media:
    """What the driver sends: the file, or the file fitted for the network."""
    return driver.Media(
        file_id=sent.file_id,
        kind=sent.kind,
        content_type=sent.content_type,
        storage_key=sent.storage_key,
        duration_seconds=sent.duration_seconds,
        size=sent.size,
        width=sent.width,
        height=sent.height,
        video_codec=sent.video_codec,
        audio_codec=sent.audio_codec,
        frame_rate=sent.frame_rate,
        derivative_id=sent.derivative_id,
    )


def described(media: driver.Media, body: PublishRequest) -> driver.Media:
    """The file with its alt text (``fileAlts``), where the body gives one."""
    alt = body.alt_texts.get(media.file_id)
    return media if alt is None else replace(media, alt_text=alt)


def media_of(file: File) -> driver.Media:
    return driver.Media(
        file_id=file.id,
        kind=sent_kind(file.kind),
        content_type=file.content_type,
        storage_key=file.storage_key,
        duration_seconds=file.duration_seconds,
        size=file.size,
        width=file.width,
        height=file.height,
        video_codec=file.video_codec,
        audio_codec=file.audio_codec,
        frame_rate=file.frame_rate,
        pages=file.pages,
    )


def sent_kind(kind: str) -> SentKind:
    """A file's kind as a driver gets it: an image or video kind, or a document."""
    return FileKind.DOCUMENT if kind == FileKind.DOCUMENT else MediaKind(kind)


def platform_fields(platform: Platform, body: PublishRequest) -> dict[str, Any]:
    fields = body.model_dump(
        mode="json", by_alias=True, exclude_none=True, exclude=set(_NOT_SENT_TO_PLATFORM)
    )
    if platform == Platform.VIDEO_SHARING:
        fields.setdefault("privacyStatus", DEFAULT_PRIVACY_STATUS)
    if body.format is not None:
        fields["format"] = body.post_format
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
    if body.format is not None:
        data["format"] = body.post_format
    return RESULTS[platform].model_validate(data)


def answer_of(result: PublishResult) -> dict[str, Any]:
    """The result as answered: ``parts`` only on a post made of several."""
    answer = result.model_dump(mode="json", by_alias=True)
    for extension in ("parts", "format"):
        if answer.get(extension, ()) is None:
            del answer[extension]
    return answer


async def _record_failure(
    ctx: PublishContext, attempt: Attempt, platform: Platform, exc: driver.PlatformUnavailable
) -> ServiceError:
    post_id = attempt.id
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
    await _record_outcome(
        ctx,
        attempt,
        status=UNKNOWN if exc.sent else FAILED,
        result=error.body() | kept,
        error=error,
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


async def _refused(
    ctx: PublishContext, attempt: Attempt, platform: Platform, error: ServiceError
) -> ServiceError:
    """The network refused the post before publishing it: the record fails with the
    answer the caller gets."""
    metrics.count_publish(platform.value, NOT_SENT)
    await _record_outcome(ctx, attempt, status=FAILED, result=error.body(), error=error)
    return error


async def _record_outcome(
    ctx: PublishContext,
    attempt: Attempt,
    *,
    status: str,
    result: dict[str, Any] | None,
    error: ServiceError,
) -> None:
    claim = ctx.claim
    await ctx.writes.run_async(
        outcome_unit(attempt, status=status, result=result, error=error, claim=claim)
    )
    if claim is not None:
        claim.settled = True


def _turn_inactive(ctx: PublishContext, connection_id: str) -> None:
    """The token behind the connection was refused (``connections.access_revoked``)."""
    with transaction(ctx.sessions) as db:
        access_revoked(db, connection_id)


def _mark_unverified(ctx: PublishContext, connection_id: str) -> None:
    """The network says the channel is not verified: the next thumbnail is refused here,
    as for any channel connected unverified, until a reconnect reads it again."""
    with transaction(ctx.sessions) as db:
        connection = ConnectionRepository(db).get(connection_id)
        if connection is not None:
            connection.verified = False


# Thumbnails


def set_thumbnail(ctx: PublishContext, video_id: str, body: ThumbnailRequest) -> ThumbnailResult:
    _take_key(ctx)  # before anything is read: a retry of a kept answer replays it
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
        sent = fitting.to_send(
            db,
            image,
            Platform.VIDEO_SHARING,
            field="thumbnailFileId",
            subject=Subject.THUMBNAIL,
        )
        channel_id = channel.id
        change = driver.ThumbnailChange(
            driver.Account(channel.id, channel.name), video_id, media_sent(sent)
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


def _take_key(ctx: PublishContext) -> None:
    """Take the request's Idempotency-Key now, in a unit of work of its own."""
    claim = ctx.claim
    if claim is None or claim.record_id is not None:
        return
    claim.record_id = ctx.writes.run(lambda tx: take_in(tx.link, claim, utcnow()))


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
    campaign: str | None = None,
    edition: str | None = None,
    flow_run_id: str | None = None,
) -> tuple[list[Post], str | None]:
    page = browse_posts(
        db,
        account,
        limit=limit,
        cursor=cursor,
        connection_id=connection_id,
        platform=platform,
        idempotency_key=idempotency_key,
        campaign=campaign,
        edition=edition,
        flow_run_id=flow_run_id,
    )
    return page.posts, page.older
