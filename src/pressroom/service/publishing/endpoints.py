"""Routes of spec 4.4 (the nine publish routes) and the post records read back."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response

from pressroom import error_codes
from pressroom.error_codes import ErrorCode
from pressroom.platforms import RULES, THUMBNAIL_PATH, Platform
from pressroom.service.answers import JsonAnswer
from pressroom.service.db.models import Post, PostPart
from pressroom.service.deps import CurrentAccount, DbSession
from pressroom.service.errors import responses
from pressroom.service.guard import repaired
from pressroom.service.media.pagination import Cursor
from pressroom.service.publishing import service
from pressroom.service.publishing.campaign import campaign_of
from pressroom.service.publishing.context import PUBLISH_DOCUMENTED, Publishing, publishing
from pressroom.service.publishing.idempotency import IdempotentRoute
from pressroom.service.publishing.repository import PostRepository
from pressroom.service.publishing.schemas import (
    MicroblogPublish,
    MicroblogResult,
    OpenMicroblogPublish,
    OpenMicroblogResult,
    PageSocialPublish,
    PageSocialResult,
    Part,
    PhotoSharingPublish,
    PhotoSharingResult,
    PinBoardPublish,
    PinBoardResult,
    PostListResponse,
    PostRecord,
    PostResponse,
    ProfessionalNetworkPublish,
    ProfessionalNetworkResult,
    ShortVideoPost,
    ShortVideoResult,
    TextThreadPublish,
    TextThreadResult,
    ThumbnailRequest,
    ThumbnailResult,
    VideoSharingPublish,
    VideoSharingResult,
    format_of,
)
from pressroom.service.publishing.threads import part_json
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
    error_codes.SECRET_KEY_MISSING,
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
    openapi_extra=PUBLISH_DOCUMENTED,
)
async def publish_microblog(body: MicroblogPublish, request: Request) -> Response:
    """A text post of at most 280 characters; no media. Our extension: `thread`, the
    parts after the first, each published as a reply to the one before."""
    return JsonAnswer(await service.publish(await publishing(request), Platform.MICROBLOG, body))


@publish_router.post(
    RULES[Platform.VIDEO_SHARING].publish_path,
    response_model=VideoSharingResult,
    responses=_errors(Platform.VIDEO_SHARING),
    openapi_extra=PUBLISH_DOCUMENTED,
)
async def publish_video_sharing(body: VideoSharingPublish, request: Request) -> Response:
    """A video with a title; `privacyStatus` is echoed in the result."""
    return JsonAnswer(
        await service.publish(await publishing(request), Platform.VIDEO_SHARING, body)
    )


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
    openapi_extra=PUBLISH_DOCUMENTED,
)
async def publish_short_video(body: ShortVideoPost, request: Request) -> Response:
    """A video of 3 seconds to 10 minutes; `platform` must be `short_video`. On a TikTok
    connection `privacyLevel` is required (our extension: TikTok has the owner choose)."""
    return JsonAnswer(await service.publish(await publishing(request), Platform.SHORT_VIDEO, body))


@publish_router.post(
    RULES[Platform.PHOTO_SHARING].publish_path,
    response_model=PhotoSharingResult,
    responses=_errors(Platform.PHOTO_SHARING, error_codes.ACCOUNT_TYPE),
    openapi_extra=PUBLISH_DOCUMENTED,
)
async def publish_photo_sharing(body: PhotoSharingPublish, request: Request) -> Response:
    """A photo or video; business and creator accounts only."""
    return JsonAnswer(
        await service.publish(await publishing(request), Platform.PHOTO_SHARING, body)
    )


@publish_router.post(
    RULES[Platform.PAGE_SOCIAL].publish_path,
    response_model=PageSocialResult,
    responses=_errors(Platform.PAGE_SOCIAL, error_codes.NOT_A_PAGE, error_codes.PAGES_PERMISSION),
    openapi_extra=PUBLISH_DOCUMENTED,
)
async def publish_page_social(body: PageSocialPublish, request: Request) -> Response:
    """A photo or video on a page (not a personal profile) with the Pages permission."""
    return JsonAnswer(await service.publish(await publishing(request), Platform.PAGE_SOCIAL, body))


@publish_router.post(
    RULES[Platform.PIN_BOARD].publish_path,
    response_model=PinBoardResult,
    responses=_errors(Platform.PIN_BOARD),
    openapi_extra=PUBLISH_DOCUMENTED,
)
async def publish_pin_board(body: PinBoardPublish, request: Request) -> Response:
    """An image pinned to a board; `boardId` is echoed in the result."""
    return JsonAnswer(await service.publish(await publishing(request), Platform.PIN_BOARD, body))


@publish_router.post(
    RULES[Platform.TEXT_THREAD].publish_path,
    response_model=TextThreadResult,
    responses=_errors(Platform.TEXT_THREAD),
    openapi_extra=PUBLISH_DOCUMENTED,
)
async def publish_text_thread(body: TextThreadPublish, request: Request) -> Response:
    """A text post of at most 500 characters, through the linked photo_sharing account.
    Our extension: `thread`, the parts after the first, each a reply to the one before."""
    return JsonAnswer(await service.publish(await publishing(request), Platform.TEXT_THREAD, body))


@publish_router.post(
    RULES[Platform.PROFESSIONAL_NETWORK].publish_path,
    response_model=ProfessionalNetworkResult,
    responses=_errors(Platform.PROFESSIONAL_NETWORK, error_codes.PLATFORM_MISCONFIGURED),
    openapi_extra=PUBLISH_DOCUMENTED,
)
async def publish_professional_network(
    body: ProfessionalNetworkPublish, request: Request
) -> Response:
    """A text post; the result's `postId` is a URN. A 500 `platform_misconfigured` means
    LinkedIn no longer serves the `LinkedIn-Version` the service is set to send."""
    return JsonAnswer(
        await service.publish(await publishing(request), Platform.PROFESSIONAL_NETWORK, body)
    )


@publish_router.post(
    RULES[Platform.OPEN_MICROBLOG].publish_path,
    response_model=OpenMicroblogResult,
    responses=_errors(Platform.OPEN_MICROBLOG),
    openapi_extra=PUBLISH_DOCUMENTED,
)
async def publish_open_microblog(body: OpenMicroblogPublish, request: Request) -> Response:
    """Our extension, not in the spec: a post to Bluesky (AT Protocol), text with one
    optional image or video and its alt text. The result's `postId` is the post's AT URI;
    a retry after an unknown outcome writes at the same record key, so it never posts twice."""
    return JsonAnswer(
        await service.publish(await publishing(request), Platform.OPEN_MICROBLOG, body)
    )


# Reading back


def _record(post: Post, parts: list[PostPart]) -> PostRecord:
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
        campaign=campaign_of(
            post.campaign_name,
            post.campaign_edition,
            post.campaign_post_id,
            post.campaign_flow_run_id,
        ),
        parts=[
            Part.model_validate(part_json(p.index, p.kind, p.status, p.platform_post_id, p.url))
            for p in parts
        ],
        format=format_of(post.request),
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
    campaign: Annotated[
        str | None,
        Query(description="Our extension: only the posts of this campaign (`campaign.name`)."),
    ] = None,
    edition: Annotated[
        str | None,
        Query(description="Our extension: only the posts of this edition (`campaign.edition`)."),
    ] = None,
    flow_run_id: Annotated[
        str | None,
        Query(
            alias="flowRunId",
            description="Our extension: only the posts this Prefect flow run sent "
            "(`campaign.flowRunId`).",
        ),
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
        campaign=campaign,
        edition=edition,
        flow_run_id=flow_run_id,
    )
    parts = PostRepository(db).parts_of([p.id for p in posts])
    return PostListResponse(
        posts=[_record(p, parts.get(p.id, [])) for p in posts], next_cursor=next_cursor
    )


@posts_router.get(
    "/{recordId}", response_model=PostResponse, responses=responses(error_codes.POST_NOT_FOUND)
)
def get_post(recordId: str, account: CurrentAccount, db: DbSession) -> PostResponse:
    """One post record by the `recordId` of its publish result."""
    post = service.get_post(db, account, recordId)
    parts = PostRepository(db).parts_of([post.id]).get(post.id, [])
    return PostResponse(post=_record(post, parts))


router = APIRouter()
router.include_router(publish_router)
router.include_router(posts_router)
