"""Facebook Graph API for Pages (graph.facebook.com), as Meta's pages describe it (read
2026-11-26).

The token: Meta's pages for this host pass it as the ``access_token`` parameter (``-F
access_token=`` on POSTs in the Video API publishing guide) and document no header, so
it is checked in the body of a POST; a documented GET is sent as a POST with
``method=GET`` (see ``pressroom.service.drivers.meta``). Token endpoint, as chosen:

- ``/oauth/access_token``, both the code exchange and ``fb_exchange_token``: shown as
  GETs with the app secret in the query (MANUAL_FLOW, LONG_LIVED); it is the app's OAuth
  2.0 token endpoint, sent as RFC 6749 sends token requests, a POST with a form body
  (no ``method`` override). That Facebook takes the POST is not shown on those pages.

Videos go to graph.facebook.com only: the Video API overview calls graph-video.facebook.com
deprecated (VIDEO_OVERVIEW), so that host is not in this contract.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar, Literal

import httpx
from pydantic import ConfigDict, Field, ValidationError, model_validator

from tests.drivers.contract import Contract, Endpoint, query
from tests.drivers.contracts.meta_graph import GRAPH_PAGES, Read, Request, edge, token_endpoint

HOST = "graph.facebook.com"
MANUAL_FLOW = "https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow"
LONG_LIVED = (
    "https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived"
)
ACCOUNTS = "https://developers.facebook.com/docs/graph-api/reference/user/accounts"
PERMISSIONS = "https://developers.facebook.com/docs/graph-api/reference/user/permissions"
USER = "https://developers.facebook.com/docs/graph-api/reference/user"
PAGE = "https://developers.facebook.com/docs/graph-api/reference/page"
PHOTOS = "https://developers.facebook.com/docs/graph-api/reference/page/photos"
VIDEOS = "https://developers.facebook.com/docs/graph-api/reference/page/videos"
VIDEO_OVERVIEW = "https://developers.facebook.com/docs/video-api/overview"
VIDEO_PUBLISHING = "https://developers.facebook.com/docs/video-api/guides/publishing"
VIDEO = "https://developers.facebook.com/docs/graph-api/reference/video"
FEED = "https://developers.facebook.com/docs/graph-api/reference/page/feed"
PUBLISHED_POSTS = "https://developers.facebook.com/docs/graph-api/reference/page/published_posts"
DEBUG_TOKEN = "https://developers.facebook.com/docs/graph-api/reference/debug_token"
COMMENTS_GUIDE = "https://developers.facebook.com/docs/pages-api/comments-mentions"
COMMENTS = "https://developers.facebook.com/docs/graph-api/reference/object/comments"
ATTACHMENTS = "https://developers.facebook.com/docs/graph-api/reference/page-post/attachments"
COMMENT = "https://developers.facebook.com/docs/graph-api/reference/comment"
REELS = "https://developers.facebook.com/docs/video-api/guides/reels-publishing"
STORIES = "https://developers.facebook.com/docs/page-stories-api"
RUPLOAD = "rupload.facebook.com"
POST = "https://developers.facebook.com/docs/graph-api/reference/post/"
REACTIONS = "https://developers.facebook.com/docs/graph-api/reference/object/reactions"
FIELD_EXPANSION = "https://developers.facebook.com/docs/graph-api/guides/field-expansion"
INSIGHTS = "https://developers.facebook.com/docs/graph-api/reference/insights"
PAGES_CHANGELOG = "https://developers.facebook.com/docs/pages-api/changelog/"
INSIGHTS_GUIDE = (
    "https://developers.facebook.com/blog/post/2022/11/08/getting-started-with-page-insights-api/"
)
POST_ID = r"[0-9]+(_[0-9]+)?"
"""A Page post's id (``{page-id}_{story-id}``) or a video's (digits)."""
COMMENT_ID = r"[0-9]+_[0-9]+"
ID = r"[0-9]+"
VERSION = r"/v[0-9]+\.[0-9]+"
SHOW = frozenset({"pages_show_list"})
POSTING = frozenset({"pages_show_list", "pages_manage_posts", "pages_read_engagement"})
READING = frozenset({"pages_show_list", "pages_read_engagement"})
COMMENTING = frozenset({"pages_manage_engagement", "pages_read_engagement"})
"""COMMENTS_GUIDE, "Permissions": a comment as the Page (``pages_read_user_engagement``,
also listed there, is for reading people's comments and @mentions)."""
BOOL = Literal["true", "false"]


class CodeExchange(Request):
    client_id: str  # MANUAL_FLOW, "Exchanging Code for an Access Token"
    client_secret: str  # MANUAL_FLOW
    redirect_uri: str  # MANUAL_FLOW
    code: str  # MANUAL_FLOW


class LongLivedExchange(Request):
    grant_type: Literal["fb_exchange_token"]  # LONG_LIVED
    client_id: str  # LONG_LIVED
    client_secret: str  # LONG_LIVED
    fb_exchange_token: str  # LONG_LIVED


class AccountsRead(Read):
    """GET /me/accounts: the Pages the person granted (ACCOUNTS), paged (GRAPH_PAGES)."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "name", "access_token", "tasks", "category", "category_list", "perms"}
    )  # ACCOUNTS, "Fields" (a Page's fields, PAGE)
    limit: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES
    after: str | None = None  # GRAPH_PAGES, cursor-based pagination
    before: str | None = None  # GRAPH_PAGES
    is_place: BOOL | None = None  # ACCOUNTS, "Parameters"
    is_promotable: BOOL | None = None  # ACCOUNTS


class PermissionsRead(Request):
    permission: str | None = None  # PERMISSIONS, "Parameters"
    status: Literal["granted", "declined", "expired"] | None = None  # PERMISSIONS


class MeRead(Read):
    FIELDS: ClassVar[frozenset[str]] = frozenset({"id", "name"})  # USER (or PAGE for a Page)


class DebugTokenRead(Request):
    """GET /debug_token (DEBUG_TOKEN, "Reading"), asked with the app's token."""

    input_token: str = Field(min_length=1)  # DEBUG_TOKEN, "Parameters": the token to inspect


class PhotoCreate(Request):
    """POST /{page-id}/photos (PHOTOS, "Creating")."""

    url: str  # PHOTOS: "The URL of a photo that is already uploaded to the Internet"
    message: str | None = None  # PHOTOS
    caption: str | None = None  # PHOTOS
    published: BOOL | None = None  # PHOTOS
    no_story: BOOL | None = None  # PHOTOS
    alt_text_custom: str | None = None  # PHOTOS
    scheduled_publish_time: str | None = None  # PHOTOS
    temporary: BOOL | None = None  # PHOTOS


class VideoCreate(Request):
    """POST /{page-id}/videos on graph.facebook.com (VIDEOS; host per VIDEO_OVERVIEW)."""

    file_url: str | None = None  # VIDEOS: "Accessible URL of a video file"
    fbuploader_video_file_chunk: str | None = None  # VIDEO_PUBLISHING (a Resumable upload)
    description: str | None = None  # VIDEOS
    title: str | None = None  # VIDEOS
    published: BOOL | None = None  # VIDEOS
    scheduled_publish_time: str | None = None  # VIDEOS

    @model_validator(mode="after")
    def _one_source(self) -> VideoCreate:
        assert (self.file_url is None) != (self.fbuploader_video_file_chunk is None), (
            "a video has a file_url or an uploaded file handle (VIDEOS)"
        )
        return self


class FeedCreate(Request):
    message: str | None = None  # FEED, "Publishing"
    link: str | None = None  # FEED
    published: BOOL | None = None  # FEED
    scheduled_publish_time: str | None = None  # FEED
    attached_media: list[AttachedMedia] | None = None  # FEED: "attached_media[i]" fields

    @model_validator(mode="before")
    @classmethod
    def _attached_media(cls, data: Any) -> Any:
        """``attached_media[0]``, ``attached_media[1]`` …: each a JSON object with the
        ``media_fbid`` of a photo uploaded unpublished (FEED, "attached_media"; PHOTOS,
        "published"), numbered from 0 without a gap."""
        if not isinstance(data, dict):
            return data
        keys = [k for k in data if re.fullmatch(r"attached_media\[[0-9]+\]", k)]
        if not keys:
            return data
        assert keys == [f"attached_media[{i}]" for i in range(len(keys))], (
            f"attached_media numbered from 0 in order (FEED): {keys}"
        )
        rest = {k: v for k, v in data.items() if k not in keys}
        return rest | {"attached_media": [json.loads(data[k]) for k in keys]}


class AttachedMedia(Request):
    media_fbid: str = Field(pattern=r"^[0-9]+$")  # FEED, "attached_media"


class AttachmentsRead(Read):
    """GET /{page-post-id}/attachments (ATTACHMENTS): the post's story attachments."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"description", "media", "media_type", "subattachments", "target", "title", "type"}
        | {"url", "unshimmed_url", "description_tags"}
    )  # ATTACHMENTS, a StoryAttachment's fields


class VideoRead(Read):
    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "status", "description", "title", "created_time", "permalink_url"}
    )  # VIDEO, "Fields"


class PostsRead(Read):
    """GET /{page-id}/published_posts (PUBLISHED_POSTS), time-paged (GRAPH_PAGES)."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "message", "created_time", "permalink_url", "story"}
    )  # PUBLISHED_POSTS, a Page Post's fields
    since: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES, time-based
    until: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES
    limit: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES


class VideosRead(Read):
    """GET /{page-id}/videos (VIDEOS, "Reading"), time-paged (GRAPH_PAGES)."""

    FIELDS: ClassVar[frozenset[str]] = VideoRead.FIELDS
    type: Literal["tagged", "uploaded"] | None = None  # VIDEOS
    since: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES
    until: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES
    limit: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES


class ReelSession(Request):
    """POST /{page-id}/video_reels (REELS): "Step 1: Initialize an upload session"
    (``upload_phase=start``) and "Step 3: Publish the reel" (``upload_phase=finish``)."""

    upload_phase: Literal["start", "finish"]  # REELS
    video_id: str | None = Field(None, pattern=r"^[0-9]+$")  # REELS, finish: the session's
    video_state: Literal["DRAFT", "PUBLISHED", "SCHEDULED"] | None = None  # REELS, finish
    description: str | None = None  # REELS, finish
    title: str | None = None  # REELS, finish
    scheduled_publish_time: str | None = None  # REELS, finish with SCHEDULED
    place: str | None = None  # REELS, finish

    @model_validator(mode="after")
    def _phase(self) -> ReelSession:
        if self.upload_phase == "start":
            assert self.model_fields_set == {"upload_phase"}, (
                "a reel's session starts with upload_phase alone (REELS, step 1)"
            )
        else:
            assert self.video_id and self.video_state, (
                "a reel is published with its video_id and video_state (REELS, step 3)"
            )
        return self


class ReelsRead(Read):
    """GET /{page-id}/video_reels (REELS, "Get a list of reels"), time-paged."""

    FIELDS: ClassVar[frozenset[str]] = VideoRead.FIELDS
    since: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES
    until: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES
    limit: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES


class PhotoStory(Request):
    """POST /{page-id}/photo_stories (STORIES, "Publish a photo story")."""

    photo_id: str = Field(pattern=r"^[0-9]+$")  # STORIES: a photo uploaded published=false


class VideoStorySession(Request):
    """POST /{page-id}/video_stories (STORIES, "Publish a video story"): start, then
    finish with the session's ``video_id``."""

    upload_phase: Literal["start", "finish"]  # STORIES
    video_id: str | None = Field(None, pattern=r"^[0-9]+$")  # STORIES, finish

    @model_validator(mode="after")
    def _phase(self) -> VideoStorySession:
        assert (self.upload_phase == "finish") == (self.video_id is not None), (
            "video_id goes with the finish, not the start (STORIES)"
        )
        return self


def _rupload(request: httpx.Request) -> None:
    """REELS, "Step 2: Upload the video", a hosted file: ``Authorization: OAuth
    <token>`` and the file's ``file_url`` header, no body and no query."""
    authorization = request.headers.get("authorization", "")
    assert authorization.startswith("OAuth ") and len(authorization) > 6, (
        f"the upload host takes Authorization: OAuth <token> ({REELS})"
    )
    assert request.headers.get("file_url", "").startswith("https://"), (
        f"a hosted video is named by its file_url header ({REELS})"
    )
    assert not query(request) and not request.content, f"the link is all it takes ({REELS})"


class CommentCreate(Request):
    """POST /{object-id}/comments (COMMENTS, "Publishing"; COMMENTS_GUIDE, "Comments")."""

    message: str = Field(min_length=1)  # COMMENTS
    attachment_id: str | None = None  # COMMENTS
    attachment_share_url: str | None = None  # COMMENTS
    attachment_url: str | None = None  # COMMENTS
    source: str | None = None  # COMMENTS


class CommentRead(Read):
    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "attachment", "can_comment", "can_remove", "can_hide", "can_like"}
        | {"can_reply_privately", "comment_count", "created_time", "from", "like_count"}
        | {"message", "message_tags", "object", "parent", "permalink_url", "user_likes"}
    )  # COMMENT, "Fields"


class CommentsRead(Read):
    """GET /{object-id}/comments (COMMENTS, "Reading")."""

    FIELDS: ClassVar[frozenset[str]] = CommentRead.FIELDS
    filter: Literal["toplevel", "stream"] | None = None  # COMMENTS
    order: Literal["chronological", "reverse_chronological"] | None = None  # COMMENTS
    summary: BOOL | None = None  # COMMENTS
    limit: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES
    after: str | None = None  # GRAPH_PAGES


class CountsRead(Read):
    """GET /{post-id} (or a video's id) for a post's counts: its ``shares`` (POST, a Page
    Post's field) and its reactions and comments counted with field expansion, limit 0
    and a summary (FIELD_EXPANSION; REACTIONS ``summary=total_count``; COMMENTS
    ``summary``, a bool)."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "shares"}
        | {"reactions.limit(0).summary(total_count)", "comments.limit(0).summary(true)"}
    )


READ_INSIGHTS = frozenset({"read_insights", "pages_show_list", "pages_read_engagement"})
"""INSIGHTS_GUIDE: "The permissions you need for this API are: read_insights,
pages_show_list, pages_read_engagement"."""


class PostInsightsRead(Request):
    """GET /{page-post-id}/insights (INSIGHTS): ``metric``, a comma-separated list of
    Page post metrics. Only the two that PAGES_CHANGELOG names as replacements are known
    here (``post_media_view`` for ``post_impressions``, ``post_total_media_view_unique``
    for ``post_impressions_unique``); the ``post_impressions*`` metrics, deprecated for
    every API version on 2025-11-15, are refused by name."""

    METRICS: ClassVar[frozenset[str]] = frozenset(
        {"post_media_view", "post_total_media_view_unique"}
    )  # PAGES_CHANGELOG, the alternatives to the deprecated metrics

    metric: str
    period: str | None = None  # INSIGHTS
    breakdown: str | None = None  # PAGES_CHANGELOG: is_from_ads, is_from_followers
    since: str | None = None  # INSIGHTS
    until: str | None = None  # INSIGHTS

    @model_validator(mode="after")
    def _known_metrics(self) -> PostInsightsRead:
        asked = set(self.metric.split(","))
        gone = {name for name in asked if name.startswith("post_impressions")}
        assert not gone, f"deprecated on 2025-11-15 ({PAGES_CHANGELOG}): {sorted(gone)}"
        unknown = asked - self.METRICS
        assert not unknown, f"Facebook Page post insights have no metric {sorted(unknown)}"
        return self


def _or_counts(model: type[Request]) -> type[Request]:
    """A node edge's read (``model``) that also takes a read of a post's counts: a Page
    post's id has the shape of a comment's, a video's that of any node's."""

    class NodeOrCounts(Request):
        model_config = ConfigDict(title=f"{model.__name__}OrCounts")

        fields: str | None = None

        @model_validator(mode="before")
        @classmethod
        def _one_of(cls, values: Any) -> Any:
            asked = str((values or {}).get("fields") or "")
            chosen = CountsRead if ".summary(" in asked else model
            try:
                chosen.model_validate(values)
            except ValidationError as exc:
                raise ValueError(f"{chosen.__name__}: {exc}") from None
            return {"fields": asked or None}

    NodeOrCounts.__name__ = NodeOrCounts.__qualname__ = f"{model.__name__}OrCounts"
    return NodeOrCounts


class UnpublishedPhotos:
    """A rule across requests: every ``attached_media`` of a Page post, and the photo
    of a photo story, is a photo uploaded unpublished before it (FEED, "attached_media":
    the ``media_fbid`` of a photo uploaded with ``published=false``; PHOTOS,
    "published"; STORIES). The contract sees requests, not answers, so it counts: each
    ``POST /{page-id}/photos`` with ``published=false`` adds one photo waiting; a feed
    post with k attached photos, or a photo story, takes that many."""

    def __init__(self) -> None:
        self.waiting = 0

    def __call__(self, method: str, path: str, params: dict[str, str]) -> None:
        if method != "POST":
            return
        if path.endswith("/photos"):
            if params.get("published") == "false":
                self.waiting += 1
            return
        taken = (
            1
            if path.endswith("/photo_stories")
            else sum(re.fullmatch(r"attached_media\[[0-9]+\]", k) is not None for k in params)
        )
        assert taken <= self.waiting, (
            f"{path} attaches {taken} photo(s), {self.waiting} uploaded with published=false "
            f"before it: attached photos are unpublished uploads ({FEED}, attached_media)"
        )
        self.waiting -= taken


def contract(granted: frozenset[str] | None = None) -> Contract:
    """Facebook's documented endpoints; ``granted``: the scopes asked for at consent."""
    unpublished = UnpublishedPhotos()
    return Contract(
        "Facebook",
        (
            token_endpoint(
                HOST,
                f"{VERSION}/oauth/access_token",
                f"{MANUAL_FLOW}; {LONG_LIVED}",
                (CodeExchange, LongLivedExchange),
                override=False,
            ),
            *edge(
                HOST, f"{VERSION}/me/accounts", ACCOUNTS, "parameter", get=AccountsRead, scopes=SHOW
            ),
            *edge(HOST, f"{VERSION}/me/permissions", PERMISSIONS, "parameter", get=PermissionsRead),
            *edge(HOST, f"{VERSION}/me", USER, "parameter", get=MeRead),
            *edge(HOST, f"{VERSION}/debug_token", DEBUG_TOKEN, "parameter", get=DebugTokenRead),
            *edge(
                HOST,
                f"{VERSION}/{ID}/photos",
                PHOTOS,
                "parameter",
                post=PhotoCreate,
                scopes=POSTING,
                then=unpublished,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/videos",
                f"{VIDEOS}; {VIDEO_OVERVIEW}",
                "parameter",
                get=VideosRead,
                post=VideoCreate,
                scopes=POSTING,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/feed",
                FEED,
                "parameter",
                post=FeedCreate,
                scopes=POSTING,
                then=unpublished,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/video_reels",
                REELS,
                "parameter",
                get=ReelsRead,
                post=ReelSession,
                # REELS, "Before You Start": these three, and CREATE_CONTENT on the Page.
                scopes=POSTING,
            ),
            Endpoint("POST", RUPLOAD, rf"/video-upload{VERSION}/{ID}", REELS, _rupload, POSTING),
            *edge(
                HOST,
                f"{VERSION}/{ID}/photo_stories",
                STORIES,
                "parameter",
                post=PhotoStory,
                scopes=POSTING,  # STORIES, "Requirements"
                then=unpublished,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/video_stories",
                STORIES,
                "parameter",
                post=VideoStorySession,
                scopes=POSTING,
            ),
            *edge(
                HOST,
                f"{VERSION}/{POST_ID}/attachments",
                ATTACHMENTS,
                "parameter",
                get=AttachmentsRead,
                scopes=READING,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/published_posts",
                PUBLISHED_POSTS,
                "parameter",
                get=PostsRead,
                scopes=READING,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}",
                f"{VIDEO}; {POST}; {REACTIONS}; {FIELD_EXPANSION}",
                "parameter",
                get=_or_counts(VideoRead),
                scopes=READING,
            ),
            *edge(
                HOST,
                f"{VERSION}/{COMMENT_ID}/insights",
                f"{INSIGHTS}; {PAGES_CHANGELOG}; {INSIGHTS_GUIDE}",
                "parameter",
                get=PostInsightsRead,
                scopes=READ_INSIGHTS,
            ),
            *edge(
                HOST,
                f"{VERSION}/{POST_ID}/comments",
                f"{COMMENTS}; {COMMENTS_GUIDE}",
                "parameter",
                get=CommentsRead,
                post=CommentCreate,
                scopes=COMMENTING,
            ),
            *edge(
                HOST,
                f"{VERSION}/{COMMENT_ID}",
                f"{COMMENT}; {POST}; {REACTIONS}; {FIELD_EXPANSION}",
                "parameter",
                get=_or_counts(CommentRead),
                scopes=READING,
            ),
        ),
        granted=granted,
    )


__all__ = ["GRAPH_PAGES", "contract"]
