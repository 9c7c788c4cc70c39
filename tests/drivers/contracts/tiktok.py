"""TikTok's contract: one typed model per endpoint, written from TikTok's pages.

TikTok publishes no machine-readable description of its API (no OpenAPI document, no
official SDK on PyPI), so each request the short_video driver sends is held to a
pydantic model that forbids unknown fields, each field with the page it comes from
(pages read 2026-11-26):

- TOKEN: https://developers.tiktok.com/doc/oauth-user-access-token-management
- USER_INFO: https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info and the
  scope migration, https://developers.tiktok.com/bulletin/user-info-scope-migration
- CREATOR_INFO: https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info
- DIRECT_POST: https://developers.tiktok.com/doc/content-posting-api-reference-direct-post
- PHOTO_POST: https://developers.tiktok.com/doc/content-posting-api-reference-photo-post
- MEDIA_TRANSFER: https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide
- POST_STATUS: https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status
- VIDEO_LIST: https://developers.tiktok.com/doc/tiktok-api-v2-video-list
- VIDEO_QUERY: https://developers.tiktok.com/doc/tiktok-api-v2-video-query and the
  fields of https://developers.tiktok.com/doc/tiktok-api-v2-video-object
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, model_validator

from tests.drivers.contract import Contract, Endpoint, bearer, form_body, json_body, query

TOKEN = "https://developers.tiktok.com/doc/oauth-user-access-token-management"
USER_INFO = "https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info"
CREATOR_INFO = "https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info"
DIRECT_POST = "https://developers.tiktok.com/doc/content-posting-api-reference-direct-post"
PHOTO_POST = "https://developers.tiktok.com/doc/content-posting-api-reference-photo-post"
MEDIA_TRANSFER = "https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide"
POST_STATUS = "https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status"
VIDEO_LIST = "https://developers.tiktok.com/doc/tiktok-api-v2-video-list"
VIDEO_QUERY = "https://developers.tiktok.com/doc/tiktok-api-v2-video-query"
VIDEO_OBJECT = "https://developers.tiktok.com/doc/tiktok-api-v2-video-object"
VIDEO_FIELDS = frozenset(
    {
        # VIDEO_OBJECT: every field of the Video Object.
        "id",
        "create_time",
        "cover_image_url",
        "share_url",
        "video_description",
        "duration",
        "height",
        "width",
        "title",
        "embed_html",
        "embed_link",
        "like_count",
        "comment_count",
        "share_count",
        "view_count",
    }
)

API_HOST = "open.tiktokapis.com"
MB = 1024 * 1024

PrivacyLevel = Literal[
    "PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"
]
"""DIRECT_POST, ``post_info.privacy_level``: "Enum of" these four."""

USER_FIELD_SCOPES: dict[str, str] = {
    # USER_INFO, "User Object", column "Authorized Scope"; the bulletin moved
    # username, bio_description, profile_deep_link and is_verified to user.info.profile.
    "open_id": "user.info.basic",
    "union_id": "user.info.basic",
    "avatar_url": "user.info.basic",
    "avatar_url_100": "user.info.basic",
    "avatar_large_url": "user.info.basic",
    "display_name": "user.info.basic",
    "bio_description": "user.info.profile",
    "profile_deep_link": "user.info.profile",
    "is_verified": "user.info.profile",
    "username": "user.info.profile",
    "follower_count": "user.info.stats",
    "following_count": "user.info.stats",
    "likes_count": "user.info.stats",
    "video_count": "user.info.stats",
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CodeExchange(_Strict):
    """TOKEN, "Fetch an access token using an authorization code"."""

    client_key: str  # TOKEN: "The unique identification key provisioned to the partner"
    client_secret: str  # TOKEN: "The unique identification secret ..."
    code: str  # TOKEN: "The authorization code from the web, iOS, Android or desktop ..."
    grant_type: Literal["authorization_code"]  # TOKEN: "Its value should always be set as ..."
    redirect_uri: str  # TOKEN: "Its value must be the same as the redirect_uri ..."
    code_verifier: str | None = None  # TOKEN: "Required for mobile and desktop app only"


class Refresh(_Strict):
    """TOKEN, "Refresh an access token using a refresh token"."""

    client_key: str  # TOKEN
    client_secret: str  # TOKEN
    grant_type: Literal["refresh_token"]  # TOKEN: "Its value should always be ..."
    refresh_token: str  # TOKEN: "The user's refresh token"


class CreatorInfoQuery(_Strict):
    """CREATOR_INFO: the request has headers only; an empty JSON object is all it takes."""


class PostInfo(_Strict):
    """DIRECT_POST, request body, ``post_info``."""

    privacy_level: PrivacyLevel  # DIRECT_POST: required; one of privacy_level_options
    title: str | None = None  # DIRECT_POST: "The video caption" (optional)
    disable_duet: bool | None = None  # DIRECT_POST
    disable_stitch: bool | None = None  # DIRECT_POST
    disable_comment: bool | None = None  # DIRECT_POST
    video_cover_timestamp_ms: int | None = None  # DIRECT_POST (int32)
    brand_content_toggle: bool  # DIRECT_POST: "Required: true" (the examples omit it)
    brand_organic_toggle: bool | None = None  # DIRECT_POST
    is_aigc: bool | None = None  # DIRECT_POST: "Required: false"


class SourceInfo(_Strict):
    """DIRECT_POST, request body, ``source_info``; the chunk rules from MEDIA_TRANSFER."""

    source: Literal["FILE_UPLOAD", "PULL_FROM_URL"]  # DIRECT_POST
    video_url: str | None = None  # DIRECT_POST: "true for PULL_FROM_URL"
    video_size: int | None = Field(None, gt=0)  # DIRECT_POST: "true for FILE_UPLOAD" (int64)
    chunk_size: int | None = Field(None, gt=0)  # DIRECT_POST (int64)
    total_chunk_count: int | None = Field(None, ge=1, le=1000)  # DIRECT_POST; 1-1000 chunks

    @model_validator(mode="after")
    def _chunks(self) -> SourceInfo:
        if self.source == "PULL_FROM_URL":
            assert self.video_url, "PULL_FROM_URL needs video_url"
            return self
        size, chunk, count = self.video_size, self.chunk_size, self.total_chunk_count
        assert size and chunk and count, "FILE_UPLOAD needs video_size, chunk_size, count"
        # MEDIA_TRANSFER, "Chunk restrictions".
        assert count == size // chunk, "total_chunk_count is video_size / chunk_size, down"
        if size < 5 * MB:
            assert chunk == size, "a video under 5 MB is uploaded whole"
        else:
            assert 5 * MB <= chunk <= 64 * MB, "chunks are 5 to 64 MB"
        return self


class VideoInit(_Strict):
    """DIRECT_POST, ``POST /v2/post/publish/video/init/``."""

    post_info: PostInfo  # DIRECT_POST
    source_info: SourceInfo  # DIRECT_POST


class PhotoPostInfo(_Strict):
    """PHOTO_POST, request body, ``post_info`` (no Duet or Stitch flags for photos)."""

    title: str | None = None  # PHOTO_POST: optional, "90 in UTF-16 runes"
    description: str | None = None  # PHOTO_POST: optional, "4000 in UTF-16 runes"
    privacy_level: PrivacyLevel | None = None  # PHOTO_POST: "Required for DIRECT POST"
    disable_comment: bool | None = None  # PHOTO_POST: DIRECT_POST only
    auto_add_music: bool | None = None  # PHOTO_POST: DIRECT_POST only
    brand_content_toggle: bool | None = None  # PHOTO_POST
    brand_organic_toggle: bool | None = None  # PHOTO_POST


class PhotoSourceInfo(_Strict):
    """PHOTO_POST, request body, ``source_info``."""

    source: Literal["PULL_FROM_URL"]  # PHOTO_POST: "Only PULL_FROM_URL"
    photo_images: list[str] = Field(min_length=1, max_length=35)  # PHOTO_POST: "up to 35"
    photo_cover_index: int = Field(ge=0)  # PHOTO_POST: the index of the cover in photo_images

    @model_validator(mode="after")
    def _cover_is_an_image(self) -> PhotoSourceInfo:
        assert self.photo_cover_index < len(self.photo_images), "the cover is one of the images"
        assert all(u.startswith("https://") for u in self.photo_images), (
            "photo_images are publicly accessible URLs TikTok pulls (PHOTO_POST)"
        )
        return self


class ContentInit(_Strict):
    """PHOTO_POST, ``POST /v2/post/publish/content/init/``."""

    media_type: Literal["PHOTO"]  # PHOTO_POST: "Currently only PHOTO is allowed"
    post_mode: Literal["DIRECT_POST", "MEDIA_UPLOAD"]  # PHOTO_POST
    post_info: PhotoPostInfo  # PHOTO_POST
    source_info: PhotoSourceInfo  # PHOTO_POST

    @model_validator(mode="after")
    def _direct_post_has_a_privacy(self) -> ContentInit:
        if self.post_mode == "DIRECT_POST":
            assert self.post_info.privacy_level, "privacy_level: required for DIRECT_POST"
        return self


class StatusFetch(_Strict):
    """POST_STATUS, ``POST /v2/post/publish/status/fetch/``."""

    publish_id: str = Field(min_length=1, max_length=64)  # DIRECT_POST: "max length ... 64"


class VideoList(_Strict):
    """VIDEO_LIST, the request body."""

    cursor: int | None = None  # VIDEO_LIST
    max_count: int | None = Field(None, ge=1, le=20)  # VIDEO_LIST: "The maximum value is 20"


class VideoIds(_Strict):
    video_ids: list[str] = Field(min_length=1, max_length=20)
    """VIDEO_QUERY, ``filters.video_ids``: "up to 20" video ids."""


class VideoQuery(_Strict):
    """VIDEO_QUERY's body: ``filters`` with ``video_ids``, nothing else."""

    filters: VideoIds


def _video_query(request: httpx.Request) -> None:
    # VIDEO_QUERY: "Content-Type: application/json", the user's bearer token, the fields
    # in the query.
    bearer(request)
    sent = query(request)
    assert set(sent) == {"fields"}, f"video/query takes the query parameter fields only: {sent}"
    unknown = set(sent["fields"].split(",")) - VIDEO_FIELDS
    assert not unknown, f"the Video Object has no field {sorted(unknown)} ({VIDEO_OBJECT})"
    assert request.headers.get("content-type", "").startswith("application/json")
    VideoQuery.model_validate(json_body(request))


def _json_header(request: httpx.Request) -> None:
    # Every Content Posting page: "Content-Type: application/json; charset=UTF-8", with
    # the user's bearer token.
    bearer(request)
    assert request.headers.get("content-type") == "application/json; charset=UTF-8", (
        request.headers.get("content-type")
    )


def _token(request: httpx.Request) -> None:
    form = form_body(request)
    model = CodeExchange if form.get("grant_type") == "authorization_code" else Refresh
    model.model_validate(form)


def _posting(model: type[_Strict]) -> Callable[[httpx.Request], None]:
    def check(request: httpx.Request) -> None:
        _json_header(request)
        assert not query(request), "the Content Posting endpoints take no query"
        model.model_validate(json_body(request))

    return check


_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+)")


def _chunk(request: httpx.Request) -> None:
    """DIRECT_POST, "Send Video to TikTok Servers": the whole upload_url, a video type
    and ``Content-Range`` of this chunk's bytes."""
    content_type = request.headers.get("content-type")
    assert content_type in {"video/mp4", "video/quicktime", "video/webm"}, content_type
    found = _CONTENT_RANGE.fullmatch(request.headers.get("content-range", ""))
    assert found, request.headers.get("content-range")
    first, last, total = (int(g) for g in found.groups())
    assert first <= last < total and len(request.content) == last - first + 1


def contract(granted: frozenset[str] | None) -> Contract:
    """TikTok's endpoints the short_video driver may call; ``granted`` the scopes of its
    consent. A user/info field needs its own scope, so that check knows the grant."""

    def user_info(request: httpx.Request) -> None:
        bearer(request)
        sent = query(request)
        assert set(sent) == {"fields"}, sent
        for name in sent["fields"].split(","):
            assert name in USER_FIELD_SCOPES, f"the User Object has no field {name!r}"
            scope = USER_FIELD_SCOPES[name]
            assert granted is None or scope in granted, (
                f"user/info field {name!r} needs the scope {scope}, not granted ({USER_INFO})"
            )

    def video_list(request: httpx.Request) -> None:
        bearer(request)  # VIDEO_LIST's example: "Content-Type: application/json"
        assert set(query(request)) == {"fields"}
        VideoList.model_validate(json_body(request))

    publish = frozenset({"video.publish"})
    return Contract(
        "TikTok",
        (
            Endpoint("POST", API_HOST, r"/v2/oauth/token/", TOKEN, check=_token),
            Endpoint("GET", API_HOST, r"/v2/user/info/", USER_INFO, check=user_info),
            Endpoint(
                "POST",
                API_HOST,
                r"/v2/post/publish/creator_info/query/",
                CREATOR_INFO,
                check=_posting(CreatorInfoQuery),
                scopes=publish,
            ),
            Endpoint(
                "POST",
                API_HOST,
                r"/v2/post/publish/video/init/",
                DIRECT_POST,
                check=_posting(VideoInit),
                scopes=publish,
            ),
            Endpoint(
                "POST",
                API_HOST,
                r"/v2/post/publish/content/init/",
                PHOTO_POST,
                check=_posting(ContentInit),
                # PHOTO_POST, "Scope": video.publish (a direct post) or video.upload.
                scopes=publish,
            ),
            # upload_url's host and path are TikTok's to choose (open-upload... in the
            # examples); the token is in its query, not a scope.
            Endpoint("PUT", r"open-upload.tiktokapis.com", r"/video/", DIRECT_POST, check=_chunk),
            Endpoint(
                "POST",
                API_HOST,
                r"/v2/post/publish/status/fetch/",
                POST_STATUS,
                check=_posting(StatusFetch),
                any_scope=frozenset({"video.publish", "video.upload"}),
            ),
            Endpoint(
                "POST",
                API_HOST,
                r"/v2/video/list/",
                VIDEO_LIST,
                check=video_list,
                scopes=frozenset({"video.list"}),
            ),
            Endpoint(
                "POST",
                API_HOST,
                r"/v2/video/query/",
                VIDEO_QUERY,
                check=_video_query,
                scopes=frozenset({"video.list"}),
            ),
        ),
        granted=granted,
    )
