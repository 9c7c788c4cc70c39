"""Threads API (graph.threads.net), as Meta's pages describe it (read 2026-11-26).

The token: Threads documents only the ``access_token`` parameter (every example on the
pages below puts it in the query), and no ``Authorization`` header. It is checked in
the body of a POST; a documented GET is sent as a POST with ``method=GET`` (see
``pressroom.service.drivers.meta``). Token endpoints, each as chosen:

- ``POST /oauth/access_token`` (code exchange): documented as a POST with form fields
  (``-F``), sent so (GET_TOKENS);
- ``GET /access_token`` (``th_exchange_token``) and ``GET /refresh_access_token``
  (``th_refresh_token``): documented as GETs with the app secret or the token in the
  query (LONG_LIVED); sent as a POST body with ``method=GET``, whether Threads honours
  the override being not confirmed by its pages.
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

HOST = "graph.threads.net"
GET_TOKENS = (
    "https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions"
)
LONG_LIVED = "https://developers.facebook.com/docs/threads/get-started/long-lived-tokens"
POSTS = "https://developers.facebook.com/docs/threads/posts"
PUBLISHING = "https://developers.facebook.com/docs/threads/reference/publishing"
TROUBLESHOOTING = "https://developers.facebook.com/docs/threads/troubleshooting"
OVERVIEW = "https://developers.facebook.com/docs/threads/overview"
PROFILES = "https://developers.facebook.com/docs/threads/threads-profiles"
MEDIA = "https://developers.facebook.com/docs/threads/threads-media"
INSIGHTS = "https://developers.facebook.com/docs/threads/insights"
ACCESSIBILITY = "https://developers.facebook.com/docs/threads/posts/accessibility"
REPLIES = (
    "https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/"
    "replies-and-conversations"
)
REPLIES_PERMISSION = "https://developers.facebook.com/docs/threads/retrieve-and-manage-replies"
CAROUSEL_ITEMS = 20
"""POSTS, "Carousel posts": up to 20 images, videos, or a mix."""
ID = r"[0-9]+"
VERSION = r"/v1\.0"
BASIC = frozenset({"threads_basic"})
PUBLISH = frozenset({"threads_basic", "threads_content_publish"})
READ_INSIGHTS = frozenset({"threads_basic", "threads_manage_insights"})
"""INSIGHTS, "Permissions": threads_basic for every call, threads_manage_insights for the
insights endpoints."""
READ_REPLIES = frozenset({"threads_basic", "threads_read_replies"})  # REPLIES_PERMISSION


class CodeExchange(Request):
    client_id: str  # GET_TOKENS, step 2
    client_secret: str  # GET_TOKENS
    code: str  # GET_TOKENS
    grant_type: Literal["authorization_code"]  # GET_TOKENS
    redirect_uri: str  # GET_TOKENS


class LongLivedExchange(Request):
    grant_type: Literal["th_exchange_token"]  # LONG_LIVED, "Get a long-lived token"
    client_secret: str  # LONG_LIVED
    access_token: str  # LONG_LIVED: the short-lived token


class Refresh(Request):
    grant_type: Literal["th_refresh_token"]  # LONG_LIVED, "Refresh a long-lived token"
    access_token: str  # LONG_LIVED: the long-lived token, still valid


class ContainerCreate(Request):
    """POST /{threads-user-id}/threads (PUBLISHING, "Create a media container")."""

    media_type: Literal["TEXT", "IMAGE", "VIDEO", "CAROUSEL"]  # PUBLISHING
    text: str | None = None  # PUBLISHING; POSTS: required for TEXT
    image_url: str | None = None  # PUBLISHING
    video_url: str | None = None  # PUBLISHING
    is_carousel_item: Literal["true", "false"] | None = None  # PUBLISHING
    children: str | None = None  # PUBLISHING (carousel)
    reply_to_id: str | None = None  # PUBLISHING
    reply_control: (
        Literal["everyone", "accounts_you_follow", "mentioned_only", "parent_post_author_only"]
        | None
    ) = None  # PUBLISHING
    quote_post_id: str | None = None  # PUBLISHING
    link_attachment: str | None = None  # PUBLISHING
    alt_text: str | None = None  # PUBLISHING; ACCESSIBILITY: "for images and videos only"
    topic_tag: str | None = None  # PUBLISHING
    location_id: str | None = None  # PUBLISHING
    auto_publish_text: Literal["true", "false"] | None = None  # PUBLISHING

    @model_validator(mode="after")
    def _text_post_has_text(self) -> ContainerCreate:
        if self.media_type == "TEXT":
            assert self.text, "a TEXT container needs text (POSTS, step 1)"
            assert not (self.image_url or self.video_url), "a TEXT container takes no media"
        if self.media_type == "IMAGE":
            assert self.image_url and not self.video_url, "an IMAGE container has image_url"
        if self.media_type == "VIDEO":
            assert self.video_url and not self.image_url, "a VIDEO container has video_url"
        if self.media_type == "CAROUSEL":
            assert not (self.image_url or self.video_url), (
                "a CAROUSEL container carries no media of its own, only children (POSTS)"
            )
            children = (self.children or "").split(",")
            assert all(re.fullmatch(ID, c) for c in children), (
                "children: the item containers' ids, comma-separated (POSTS, carousel step 2)"
            )
            assert 2 <= len(children) <= CAROUSEL_ITEMS, (
                f"a carousel has 2 to {CAROUSEL_ITEMS} children (POSTS)"
            )
        else:
            assert self.children is None, "children belong to a CAROUSEL container"
        if self.is_carousel_item == "true":
            assert self.media_type in ("IMAGE", "VIDEO"), (
                "a carousel item is an IMAGE or VIDEO container (POSTS, carousel step 1)"
            )
        if self.alt_text is not None:
            assert self.media_type in ("IMAGE", "VIDEO"), (
                "alt_text is for images and videos only, not text-only posts "
                "(ACCESSIBILITY); a carousel's is on its items"
            )
        return self


class Publish(Request):
    creation_id: str = Field(pattern=r"^[0-9A-Za-z_]+$")  # PUBLISHING, "Publish a container"


class NodeRead(Read):
    """GET /{id}: a container's status (TROUBLESHOOTING) or a post's fields (MEDIA)."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "status", "error_message"}  # TROUBLESHOOTING, "Publishing does not return…"
        | {"media_product_type", "media_type", "media_url", "permalink", "owner"}  # MEDIA
        | {"username", "text", "timestamp", "shortcode", "thumbnail_url", "children"}  # MEDIA
        | {"is_quote_post", "quoted_post", "reposted_post", "alt_text", "link_attachment_url"}
    )

    @model_validator(mode="after")
    def _one_kind(self) -> NodeRead:
        asked = set((self.fields or "").split(","))
        status = {"status", "error_message"}
        assert not (asked & status) or asked <= status | {"id"}, (
            "a container's status and a post's fields are different nodes"
        )
        return self


class PublishingLimitRead(Read):
    """GET /{threads-user-id}/threads_publishing_limit (OVERVIEW, "Rate limiting")."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"quota_usage", "config", "reply_quota_usage", "reply_config"}
        | {"delete_quota_usage", "delete_config"}
        | {"location_search_quota_usage", "location_search_config"}
    )


class MediaInsightsRead(Request):
    """GET /{threads-media-id}/insights (INSIGHTS, "Media Insights"): ``metric``, a
    comma-separated list of the available metrics."""

    METRICS: ClassVar[frozenset[str]] = frozenset(
        {"views", "likes", "replies", "reposts", "quotes", "shares"}  # "Available Metrics"
    )

    metric: str

    @model_validator(mode="after")
    def _known_metrics(self) -> MediaInsightsRead:
        unknown = set(self.metric.split(",")) - self.METRICS
        assert not unknown, f"Threads media insights have no metric {sorted(unknown)}"
        return self


class ProfileRead(Read):
    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "username", "name", "threads_profile_picture_url", "threads_biography"}
        | {"is_verified"}
    )  # PROFILES, "Fields"


class ThreadsList(Read):
    """GET /{threads-user-id}/threads (MEDIA, "Retrieve a list of all a user's threads")."""

    FIELDS: ClassVar[frozenset[str]] = NodeRead.FIELDS - {"status", "error_message"}
    since: str | None = Field(None, pattern=r"^[0-9]+$")  # MEDIA; GRAPH_PAGES
    until: str | None = Field(None, pattern=r"^[0-9]+$")  # MEDIA; GRAPH_PAGES
    limit: str | None = Field(None, pattern=r"^[0-9]+$")  # MEDIA; GRAPH_PAGES
    after: str | None = None  # GRAPH_PAGES
    before: str | None = None  # GRAPH_PAGES


class RepliesRead(Read):
    """GET /{threads-media-id}/replies (REPLIES: "Parameters", "Fields")."""

    FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"id", "text", "username", "permalink", "timestamp", "media_product_type"}
        | {"media_type", "media_url", "shortcode", "thumbnail_url", "children"}
        | {"is_quote_post", "quoted_post", "has_replies", "root_post", "replied_to", "is_reply"}
        | {"is_reply_owned_by_me", "hide_status", "reply_audience"}
    )
    reverse: Literal["true", "false"] | None = None  # REPLIES, "Parameters"


def contract(granted: frozenset[str] | None = None) -> Contract:
    """Threads' documented endpoints; ``granted``: the scopes asked for at consent."""
    order = ContainerOrder("status", f"{POSTS}, step 2; {TROUBLESHOOTING}")
    return Contract(
        "Threads",
        (
            token_endpoint(
                HOST, "/oauth/access_token", GET_TOKENS, (CodeExchange,), override=False
            ),
            token_endpoint(HOST, "/access_token", LONG_LIVED, (LongLivedExchange,), override=True),
            token_endpoint(HOST, "/refresh_access_token", LONG_LIVED, (Refresh,), override=True),
            *edge(HOST, f"{VERSION}/me", PROFILES, "parameter", get=ProfileRead, scopes=BASIC),
            *edge(
                HOST,
                f"{VERSION}/{ID}/threads",
                f"{PUBLISHING}; {MEDIA}",
                "parameter",
                get=ThreadsList,
                post=ContainerCreate,
                scopes=PUBLISH,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/threads_publish",
                PUBLISHING,
                "parameter",
                post=Publish,
                scopes=PUBLISH,
                then=order.published,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/threads_publishing_limit",
                OVERVIEW,
                "parameter",
                get=PublishingLimitRead,
                scopes=PUBLISH,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/insights",
                INSIGHTS,
                "parameter",
                get=MediaInsightsRead,
                scopes=READ_INSIGHTS,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}/replies",
                REPLIES,
                "parameter",
                get=RepliesRead,
                scopes=READ_REPLIES,
            ),
            *edge(
                HOST,
                f"{VERSION}/{ID}",
                f"{TROUBLESHOOTING}; {MEDIA}",
                "parameter",
                get=NodeRead,
                scopes=BASIC,
                then=order.read,
            ),
        ),
        granted=granted,
    )


__all__ = ["GRAPH_PAGES", "contract"]
