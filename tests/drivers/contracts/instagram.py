"""Instagram API with Instagram Login (graph.instagram.com), as Meta's pages describe it
(read 2026-11-26).

The token: this host documents ``Authorization: Bearer <INSTAGRAM_USER_ACCESS_TOKEN>``
(Instagram Platform reference examples), so every API call carries it there and never
as a parameter. Token endpoints, each as chosen:

- ``POST api.instagram.com/oauth/access_token`` (code exchange): documented as a POST
  with form fields (``-F``), sent so (LOGIN);
- ``GET graph.instagram.com/access_token`` (``ig_exchange_token``): documented as a GET
  with the app secret in the query; no other place for the secret is documented, so it
  is sent as a POST body with ``method=GET`` (whether Instagram honours the override is
  not confirmed by its pages) (ACCESS_TOKEN);
- ``GET graph.instagram.com/refresh_access_token`` (``ig_refresh_token``): documented as
  a GET with the token in the query; sent as that GET with the token in the Bearer header
  this host documents, ``grant_type`` in the query (REFRESH).
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import Field, model_validator

from tests.drivers.contract import Contract
from tests.drivers.contracts.meta_graph import (
    GRAPH_PAGES,
    ContainerOrder,
    Read,
    Request,
    edge,
    token_endpoint,
)

HOST = "graph.instagram.com"
LOGIN = "https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login"
ACCESS_TOKEN = "https://developers.facebook.com/docs/instagram-platform/reference/access_token"
REFRESH = "https://developers.facebook.com/docs/instagram-platform/reference/refresh_access_token"
PUBLISHING = "https://developers.facebook.com/docs/instagram-platform/content-publishing"
USER_MEDIA = "https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media"
CONTAINER = "https://developers.facebook.com/docs/instagram-platform/reference/ig-container"
LIMIT = "https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/content_publishing_limit"
MEDIA = "https://developers.facebook.com/docs/instagram-platform/reference/instagram-media"
ME = "https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/get-started"
COMMENTS = "https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments"
CHILDREN = "https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/children"
INSIGHTS = (
    "https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights"
)
CAROUSEL_ITEMS = 10
"""PUBLISHING, "Carousel posts": up to 10 images, videos, or a mix."""
ID = r"[0-9]+"
VERSION = r"/v[0-9]+\.[0-9]+"
BASIC = frozenset({"instagram_business_basic"})
PUBLISH = frozenset({"instagram_business_basic", "instagram_business_content_publish"})
COMMENT = frozenset({"instagram_business_basic", "instagram_business_manage_comments"})
READ_INSIGHTS = frozenset({"instagram_business_basic", "instagram_business_manage_insights"})
"""INSIGHTS, "Requirements", Instagram API with Instagram Login."""
"""COMMENTS, "Requirements", Instagram API with Instagram Login."""


class CodeExchange(Request):
    client_id: str  # LOGIN, "Exchange the code for a token"
    client_secret: str  # LOGIN
    grant_type: Literal["authorization_code"]  # LOGIN
    redirect_uri: str  # LOGIN
    code: str  # LOGIN


class LongLivedExchange(Request):
    grant_type: Literal["ig_exchange_token"]  # ACCESS_TOKEN
    client_secret: str  # ACCESS_TOKEN
    access_token: str  # ACCESS_TOKEN: the short-lived token


class Refresh(Request):
    grant_type: Literal["ig_refresh_token"]  # REFRESH; the token itself in Authorization


class MediaCreate(Request):
    """POST /{ig-user-id}/media (USER_MEDIA, "Creating"; PUBLISHING)."""

    image_url: str | None = None  # USER_MEDIA: a JPEG on a public server (PUBLISHING)
    video_url: str | None = None  # USER_MEDIA
    media_type: Literal["CAROUSEL", "REELS", "STORIES", "VIDEO"] | None = None  # USER_MEDIA
    caption: str | None = None  # USER_MEDIA
    alt_text: str | None = None  # USER_MEDIA
    children: str | None = None  # USER_MEDIA (carousel)
    collaborators: str | None = None  # USER_MEDIA
    cover_url: str | None = None  # USER_MEDIA (reels)
    is_carousel_item: Literal["true", "false"] | None = None  # USER_MEDIA
    location_id: str | None = None  # USER_MEDIA
    share_to_feed: Literal["true", "false"] | None = None  # USER_MEDIA (reels)
    thumb_offset: str | None = None  # USER_MEDIA (reels)
    upload_type: Literal["resumable"] | None = None  # USER_MEDIA
    user_tags: str | None = None  # USER_MEDIA
    audio_name: str | None = None  # USER_MEDIA (reels)

    @model_validator(mode="after")
    def _one_medium(self) -> MediaCreate:
        item = self.is_carousel_item == "true"
        if self.media_type == "CAROUSEL":
            assert self.image_url is None and self.video_url is None, (
                "a carousel container carries no media of its own, only children (PUBLISHING)"
            )
            children = (self.children or "").split(",")
            assert all(re.fullmatch(ID, c) for c in children), (
                "children: the item containers' ids, comma-separated (PUBLISHING)"
            )
            assert 2 <= len(children) <= CAROUSEL_ITEMS, (
                f"a carousel has 2 to {CAROUSEL_ITEMS} children (PUBLISHING)"
            )
        else:
            assert self.children is None, "children belong to a CAROUSEL container"
            assert (self.image_url is None) != (self.video_url is None), (
                "a container has an image_url or a video_url (USER_MEDIA)"
            )
        if item:
            assert self.caption is None, "a carousel item carries no caption (PUBLISHING)"
        if self.video_url is not None:
            allowed = ("VIDEO",) if item else ("REELS", "STORIES")
            assert self.media_type in allowed, (
                "a carousel's video item is media_type=VIDEO (PUBLISHING, carousel posts); "
                "any other video container is REELS or STORIES (USER_MEDIA: VIDEO was "
                "retired for single videos)"
            )
        elif self.media_type == "VIDEO":
            raise AssertionError("media_type=VIDEO goes with a video_url (PUBLISHING)")
        if self.media_type == "REELS":
            assert self.video_url is not None, "a reel is a video_url (USER_MEDIA, reels)"
        if self.share_to_feed is not None:
            assert self.media_type == "REELS", "share_to_feed is a reel's (USER_MEDIA)"
        if self.alt_text is not None:
            assert self.image_url is not None and self.media_type is None, (
                "alt_text is for image posts; reels and stories are not supported "
                "(PUBLISHING, 2025-03-24)"
            )
        return self


class ChildrenRead(Read):
    """GET /{ig-media-id}/children (CHILDREN): a carousel's media, in order."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "media_type", "media_url", "permalink", "thumbnail_url", "timestamp"}
        | {"username", "shortcode"}
    )  # CHILDREN, and the IG Media fields it links to


class MediaPublish(Request):
    creation_id: str = Field(pattern=r"^[0-9]+$")  # PUBLISHING, step 2


class NodeRead(Read):
    """GET /{id}: a container's status (CONTAINER) or a media object's fields (MEDIA)."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "status", "status_code", "copyright_check_status"}  # CONTAINER
        | {"caption", "comments_count", "like_count", "media_product_type", "media_type"}
        | {"media_url", "permalink", "shortcode", "thumbnail_url", "timestamp", "username"}
    )  # MEDIA

    @model_validator(mode="after")
    def _one_kind(self) -> NodeRead:
        asked = set((self.fields or "").split(","))
        status = {"status", "status_code", "copyright_check_status"}
        assert not (asked & status) or asked <= status | {"id"}, (
            "a container's status and a media object's fields are different nodes"
        )
        return self


class MediaInsightsRead(Request):
    """GET /{instagram-media-id}/insights (INSIGHTS): ``metric``, a comma-separated list
    of the metrics of the media's kind; ``impressions``, ``plays``,
    ``clips_replays_count``, ``ig_reels_aggregated_all_plays_count`` and ``video_views``
    are deprecated and refused here."""

    METRICS: ClassVar[frozenset[str]] = frozenset(
        {"comments", "follows", "likes", "profile_activity", "profile_visits", "reach"}
        | {"saved", "shares", "total_interactions", "views", "navigation", "replies"}
        | {"ig_reels_avg_watch_time", "ig_reels_video_view_total_time"}
    )  # INSIGHTS, "Metrics" (FEED, REELS, STORY)

    metric: str
    period: str | None = None  # INSIGHTS
    breakdown: str | None = None  # INSIGHTS

    @model_validator(mode="after")
    def _known_metrics(self) -> MediaInsightsRead:
        unknown = set(self.metric.split(",")) - self.METRICS
        assert not unknown, f"Instagram media insights have no metric {sorted(unknown)}"
        return self


class CommentCreate(Request):
    """POST /{ig-media-id}/comments (COMMENTS, "Creating")."""

    message: str = Field(min_length=1)  # COMMENTS: required, the comment's text


class CommentList(Read):
    """GET /{ig-media-id}/comments (COMMENTS, "Reading": a list of IG Comments)."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "from", "hidden", "like_count", "media", "parent_id", "replies", "text"}
        | {"timestamp", "user", "username"}
    )  # COMMENTS, and the IG Comment's fields it links to
    limit: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES
    after: str | None = None  # GRAPH_PAGES
    before: str | None = None  # GRAPH_PAGES


class PublishingLimitRead(Read):
    FIELDS: ClassVar[frozenset[str]] = frozenset({"quota_usage", "config"})  # LIMIT
    since: str | None = None  # LIMIT


class ProfileRead(Read):
    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "user_id", "username", "name", "account_type", "profile_picture_url"}
        | {"followers_count", "follows_count", "media_count"}
    )  # ME, "Get the app user's profile"


class MediaList(Read):
    FIELDS: ClassVar[frozenset[str]] = NodeRead.FIELDS - {"status", "status_code"}
    since: str | None = None  # USER_MEDIA, "Reading"; GRAPH_PAGES
    until: str | None = None  # USER_MEDIA; GRAPH_PAGES
    limit: str | None = Field(None, pattern=r"^[0-9]+$")  # GRAPH_PAGES
    after: str | None = None  # GRAPH_PAGES
    before: str | None = None  # GRAPH_PAGES


def contract(granted: frozenset[str] | None = None) -> Contract:
    """Instagram's documented endpoints; ``granted``: the scopes asked for at consent."""
    order = ContainerOrder("status_code", f"{PUBLISHING}#troubleshooting; {CONTAINER}")
    return Contract(
        "Instagram",
        (
            token_endpoint(
                "api.instagram.com", "/oauth/access_token", LOGIN, (CodeExchange,), override=False
            ),
            token_endpoint(
                HOST, "/access_token", ACCESS_TOKEN, (LongLivedExchange,), override=True
            ),
            token_endpoint(
                HOST,
                "/refresh_access_token",
                REFRESH,
                (Refresh,),
                override=False,
                bearer_token=True,
                method="GET",
            ),
            *edge(HOST, f"{VERSION}/me", ME, "bearer", get=ProfileRead, scopes=BASIC),
            *edge(
                HOST,
                f"{VERSION}/{ID}/media",
                USER_MEDIA,
                "bearer",
                get=MediaList,
                post=MediaCreate,
                scopes=PUBLISH,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/media_publish",
                PUBLISHING,
                "bearer",
                post=MediaPublish,
                scopes=PUBLISH,
                then=order.published,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/comments",
                COMMENTS,
                "bearer",
                get=CommentList,
                post=CommentCreate,
                scopes=COMMENT,
            ),
            *edge(
                HOST, f"{VERSION}/{ID}/children", CHILDREN, "bearer", get=ChildrenRead, scopes=BASIC
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/insights",
                INSIGHTS,
                "bearer",
                get=MediaInsightsRead,
                scopes=READ_INSIGHTS,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/content_publishing_limit",
                LIMIT,
                "bearer",
                get=PublishingLimitRead,
                scopes=PUBLISH,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}",
                f"{CONTAINER}; {MEDIA}",
                "bearer",
                get=NodeRead,
                scopes=BASIC,
                then=order.read,
            ),
        ),
        granted=granted,
    )


__all__ = ["GRAPH_PAGES", "contract"]
