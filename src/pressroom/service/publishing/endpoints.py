"""Routes of spec 4.4 (the nine publish routes) and the post records read back."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from pressroom import error_codes
from pressroom.error_codes import ErrorCode
from pressroom.platforms import RULES, THUMBNAIL_PATH, Platform
from pressroom.service.db.models import Post
from pressroom.service.deps import CurrentAccount, DbSession
from pressroom.service.errors import responses
from pressroom.service.guard import repaired
from pressroom.service.media.pagination import Cursor
from pressroom.service.publishing import service
from pressroom.service.publishing.context import Publishing
from pressroom.service.publishing.idempotency import IdempotentRoute
from pressroom.service.publishing.schemas import (
    MicroblogPublish,
    MicroblogResult,
    OpenMicroblogPublish,
    OpenMicroblogResult,
    PageSocialPublish,
    PhotoSharingPublish,
    PinBoardPublish,
    PinBoardResult,
    PostIdResult,
    PostListResponse,
    PostRecord,
    PostResponse,
    ProfessionalNetworkPublish,
    ProfessionalNetworkResult,
    PublishResult,
    ShortVideoPost,
    ShortVideoResult,
    TextThreadPublish,
    ThumbnailRequest,
    ThumbnailResult,
    VideoSharingPublish,
    VideoSharingResult,
)
from pressroom.service.routing import UnitOfWorkRoute

publish_router = APIRouter(tags=["publishing"], route_class=IdempotentRoute)
posts_router = APIRouter(prefix="/api/posts", tags=["posts"], route_class=UnitOfWorkRoute)

_ALWAYS = (
    error_codes.VALIDATION_ERROR,
    error_codes.CONNECTION_NOT_FOUND,
    error_codes.PLATFORM_MISMATCH,
    error_codes.CONNECTION_INACTIVE,
    error_codes.IDEMPOTENCY_REUSED,
    error_codes.IDEMPOTENCY_IN_PROGRESS,
    error_codes.OUTCOME_UNKNOWN,
    error_codes.RATE_LIMITED,
    error_codes.PLATFORM_UNAVAILABLE,
)
_FILE = (
    error_codes.MEDIA_NOT_ALLOWED,
    error_codes.FILE_NOT_FOUND,
    error_codes.FILE_NOT_READY,
    error_codes.FILE_FAILED,
)


def _errors(platform: Platform, *extra: ErrorCode) -> dict[int | str, dict[str, object]]:
    codes: list[ErrorCode] = [*_ALWAYS, *extra]
    if any(rule.max_chars for rule in RULES[platform].text_fields):
        codes.append(error_codes.TEXT_TOO_LONG)
    codes.extend(_FILE if not RULES[platform].text_only else (error_codes.MEDIA_NOT_ALLOWED,))
    return responses(*codes)


@publish_router.post(
    RULES[Platform.MICROBLOG].publish_path,
    response_model=MicroblogResult,
    responses=_errors(Platform.MICROBLOG, error_codes.PLATFORM_MISCONFIGURED),
)
def publish_microblog(body: MicroblogPublish, ctx: Publishing) -> PublishResult:
    """A text post of at most 280 characters; no media."""
    return service.publish(ctx, Platform.MICROBLOG, body)


@publish_router.post(
    RULES[Platform.VIDEO_SHARING].publish_path,
    response_model=VideoSharingResult,
    responses=_errors(Platform.VIDEO_SHARING),
)
def publish_video_sharing(body: VideoSharingPublish, ctx: Publishing) -> PublishResult:
    """A video with a title; `privacyStatus` is echoed in the result."""
    return service.publish(ctx, Platform.VIDEO_SHARING, body)


@publish_router.post(
    THUMBNAIL_PATH,
    response_model=ThumbnailResult,
    responses=responses(
        error_codes.VALIDATION_ERROR,
        error_codes.VIDEO_NOT_FOUND,
        error_codes.CONNECTION_INACTIVE,
        error_codes.CHANNEL_NOT_VERIFIED,
        *_FILE,
        error_codes.IDEMPOTENCY_REUSED,
        error_codes.IDEMPOTENCY_IN_PROGRESS,
        error_codes.PLATFORM_UNAVAILABLE,
    ),
)
def set_video_thumbnail(videoId: str, body: ThumbnailRequest, ctx: Publishing) -> ThumbnailResult:
    """Replace the thumbnail of a video this account published; verified channels only."""
    return service.set_thumbnail(ctx, videoId, body)


@publish_router.post(
    RULES[Platform.SHORT_VIDEO].publish_path,
    response_model=ShortVideoResult,
    responses=_errors(Platform.SHORT_VIDEO, error_codes.VIDEO_DURATION),
)
def publish_short_video(body: ShortVideoPost, ctx: Publishing) -> PublishResult:
    """A video of 3 seconds to 10 minutes; `platform` must be `short_video`. On a TikTok
    connection `privacyLevel` is required (our extension: TikTok has the owner choose)."""
    return service.publish(ctx, Platform.SHORT_VIDEO, body)


@publish_router.post(
    RULES[Platform.PHOTO_SHARING].publish_path,
    response_model=PostIdResult,
    responses=_errors(Platform.PHOTO_SHARING, error_codes.ACCOUNT_TYPE),
)
def publish_photo_sharing(body: PhotoSharingPublish, ctx: Publishing) -> PublishResult:
    """A photo or video; business and creator accounts only."""
    return service.publish(ctx, Platform.PHOTO_SHARING, body)


@publish_router.post(
    RULES[Platform.PAGE_SOCIAL].publish_path,
    response_model=PostIdResult,
    responses=_errors(Platform.PAGE_SOCIAL, error_codes.NOT_A_PAGE, error_codes.PAGES_PERMISSION),
)
def publish_page_social(body: PageSocialPublish, ctx: Publishing) -> PublishResult:
    """A photo or video on a page (not a personal profile) with the Pages permission."""
    return service.publish(ctx, Platform.PAGE_SOCIAL, body)


@publish_router.post(
    RULES[Platform.PIN_BOARD].publish_path,
    response_model=PinBoardResult,
    responses=_errors(Platform.PIN_BOARD),
)
def publish_pin_board(body: PinBoardPublish, ctx: Publishing) -> PublishResult:
    """An image pinned to a board; `boardId` is echoed in the result."""
    return service.publish(ctx, Platform.PIN_BOARD, body)


@publish_router.post(
    RULES[Platform.TEXT_THREAD].publish_path,
    response_model=PostIdResult,
    responses=_errors(Platform.TEXT_THREAD),
)
def publish_text_thread(body: TextThreadPublish, ctx: Publishing) -> PublishResult:
    """A text post of at most 500 characters, through the linked photo_sharing account."""
    return service.publish(ctx, Platform.TEXT_THREAD, body)


@publish_router.post(
    RULES[Platform.PROFESSIONAL_NETWORK].publish_path,
    response_model=ProfessionalNetworkResult,
    responses=_errors(Platform.PROFESSIONAL_NETWORK, error_codes.PLATFORM_MISCONFIGURED),
)
def publish_professional_network(
    body: ProfessionalNetworkPublish, ctx: Publishing
) -> PublishResult:
    """A text post; the result's `postId` is a URN. A 500 `platform_misconfigured` means
    LinkedIn no longer serves the `LinkedIn-Version` the service is set to send."""
    return service.publish(ctx, Platform.PROFESSIONAL_NETWORK, body)


@publish_router.post(
    RULES[Platform.OPEN_MICROBLOG].publish_path,
    response_model=OpenMicroblogResult,
    responses=_errors(Platform.OPEN_MICROBLOG),
)
def publish_open_microblog(body: OpenMicroblogPublish, ctx: Publishing) -> PublishResult:
    """Our extension, not in the spec: a post to Bluesky (AT Protocol), text with one
    optional image or video and its alt text. The result's `postId` is the post's AT URI;
    a retry after an unknown outcome writes at the same record key, so it never posts twice."""
    return service.publish(ctx, Platform.OPEN_MICROBLOG, body)


# Reading back


def _record(post: Post) -> PostRecord:
    return PostRecord(
        record_id=post.id,
        platform=post.platform,
        connection_id=post.connection_id,
        status=post.status,
        file_id=post.file_id,
        idempotency_key=post.idempotency_key,
        platform_post_id=post.platform_post_id,
        url=post.url,
        request=repaired(post.request),
        result=repaired(post.result),
        created_at=post.created_at,
        published_at=post.published_at,
    )


@posts_router.get(
    "",
    response_model=PostListResponse,
    responses=responses(error_codes.VALIDATION_ERROR, error_codes.CONNECTION_NOT_FOUND),
)
def list_posts(
    account: CurrentAccount,
    db: DbSession,
    limit: Annotated[int, Query(ge=1, le=100, description="Page size.")] = 50,
    cursor: Cursor = None,
    connection_id: Annotated[
        str | None, Query(alias="connectionId", description="Only this connection's posts.")
    ] = None,
    platform: Annotated[
        str | None,
        Query(
            description="Only this platform's posts.",
            json_schema_extra={"enum": [p.value for p in Platform]},
        ),
    ] = None,
    idempotency_key: Annotated[
        str | None,
        Query(alias="idempotencyKey", description="Every attempt made under this key."),
    ] = None,
) -> PostListResponse:
    """Every publish attempt of the account, newest first: how a caller resolves a
    publish whose answer it never saw."""
    posts, next_cursor = service.list_posts(
        db,
        account,
        limit=limit,
        cursor=cursor,
        connection_id=connection_id,
        platform=platform,
        idempotency_key=idempotency_key,
    )
    return PostListResponse(posts=[_record(p) for p in posts], next_cursor=next_cursor)


@posts_router.get(
    "/{recordId}", response_model=PostResponse, responses=responses(error_codes.POST_NOT_FOUND)
)
def get_post(recordId: str, account: CurrentAccount, db: DbSession) -> PostResponse:
    """One post record by the `recordId` of its publish result."""
    return PostResponse(post=_record(service.get_post(db, account, recordId)))


router = APIRouter()
router.include_router(publish_router)
router.include_router(posts_router)
