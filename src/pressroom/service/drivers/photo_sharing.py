"""photo_sharing on Instagram: content publishing with Instagram Login (professional accounts).

Set ``PRESSROOM_PHOTO_SHARING_CLIENT_ID`` (the Instagram app id) and ``_CLIENT_SECRET`` from
a Meta app with the "Instagram API with Instagram Login" product, and
``{PRESSROOM_BASE_URL}/oauth/callback/photo_sharing`` among its OAuth redirect URIs.

What the driver does, and the pages it follows (read 2026-11-25):

- consent at ``https://www.instagram.com/oauth/authorize`` with
  ``instagram_business_basic,instagram_business_content_publish,
  instagram_business_manage_comments``; the code at
  ``POST https://api.instagram.com/oauth/access_token``, then a long-lived token (60 days,
  ``ig_exchange_token``), renewed before it lapses with ``ig_refresh_token``: the
  long-lived token is its own refresh token. Meta shows both as GETs with the secret
  and the token in the query: the exchange, whose app secret has no other documented
  place, is sent as a POST body (``meta.token_form``); the renewal, which carries only
  the token, is a GET with the token in ``Authorization: Bearer``, as this host
  documents for every call
  (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login,
  https://developers.facebook.com/docs/instagram-platform/reference/refresh_access_token);
- profile: ``GET /me?fields=user_id,username,account_type``: business and creator
  accounts publish, a personal one connects and is refused by the spec's rule
  (``account_type_not_allowed``);
- publish: the account's quota first (``GET /{ig-user-id}/content_publishing_limit``:
  100 API posts in a moving 24 hours; a used-up quota is a rate limit and nothing is
  sent). The read is made before every post: one call of the account's 200 an hour,
  against a container Instagram would fetch and process for nothing, and a refusal
  that would otherwise come only at ``media_publish``. Then a media container
  (``POST /{ig-user-id}/media`` with ``image_url``, or ``media_type=REELS`` and
  ``video_url``: signed links Instagram fetches), its ``status_code`` read until
  ``FINISHED`` (``ERROR`` or ``EXPIRED`` is refused with Instagram's ``status``; the
  reads start a second apart and slow to Meta's once a minute, up to
  ``PRESSROOM_META_CONTAINER_WAIT_SECONDS``: ``meta.poll_delays``), then ``POST
  /{ig-user-id}/media_publish``, and the post's ``permalink`` read back
  (https://developers.facebook.com/docs/instagram-platform/content-publishing);
- a carousel (``Delivery.items``): an item container per file (``is_carousel_item=true``
  with ``image_url``, or ``media_type=VIDEO`` and ``video_url``), each awaited, then a
  ``media_type=CAROUSEL`` container with ``children`` (the item containers' ids in
  order) and the caption, awaited and published as above; the items' media ids read
  back in order from ``GET /{ig-media-id}/children``, each item's URL the post's
  permalink at ``img_index`` (Instagram gives a carousel's items no permalink)
  (content-publishing page, "Carousel posts";
  https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/children);
- a story or a reel (the body's ``format``): the container is ``media_type=STORIES``
  with ``image_url`` or ``video_url``, or ``media_type=REELS`` with ``video_url`` and
  ``share_to_feed=true``, awaited and published as above (``_container_form``); a
  story's outcome cannot be looked up (its edge needs Facebook Login), a reel's is found
  among the account's media;
- a first comment (``Delivery.comment_on``): ``POST /{ig-media-id}/comments`` with
  ``message``, which needs ``instagram_business_manage_comments``, asked for at consent
  with the rest; its URL is the post's ``permalink`` (Instagram documents none for a
  comment)
  (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments);
- look-up of an unknown outcome: ``GET /{ig-user-id}/media``, a post since the send with
  the same caption; a comment among ``GET /{ig-media-id}/comments``, one since the send
  with the same text;
- metrics (``fetch_metrics``): the post's ``media_product_type``, ``like_count`` and
  ``comments_count`` (``GET /{ig-media-id}``, basic scope), then its insights
  (``GET /{ig-media-id}/insights``, ``instagram_business_manage_insights``, asked for at
  consent for this) with the metrics its kind has: ``views``, ``shares`` and, but for a
  story, ``saved``. ``impressions`` is not asked for: Meta retired it for media made
  after 2024-07-02 (an error since 2025-04-21 for them), ``views`` replacing it
  (https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights);
  an insights read refused for a permission the grant lacks leaves those three not
  counted (None) and the likes and comments read; other refusals as ``meta_insights``
  reads them;
- errors: ``meta.failure``; a permission the grant lacks turns the connection inactive.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import httpx

from pressroom.platforms import MediaKind, Platform, PostFormat
from pressroom.service.db.base import utcnow
from pressroom.service.drivers import meta, meta_insights
from pressroom.service.drivers.answers import aware, json_of, parse_time
from pressroom.service.drivers.base import (
    Account,
    Delivery,
    LookupUnsupported,
    Media,
    MediaSource,
    PlatformRefused,
    PlatformUnavailable,
    PostMetrics,
    Profile,
    Published,
    ThumbnailChange,
    ThumbnailSet,
    TokenRefused,
    TokenSet,
    check_before_sending,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import (
    Finding,
    Inspection,
    Standing,
    quota_finding,
    scope_finding,
    scope_states,
)
from pressroom.service.drivers.oauth2 import consent_url, token_set_of
from pressroom.service.drivers.tokens import TokenSource

AUTHORIZE_URL = "https://www.instagram.com/oauth/authorize"
CODE_URL = "https://api.instagram.com/oauth/access_token"
PUBLISH_SCOPES = ("instagram_business_basic", "instagram_business_content_publish")
"""Both: the account's id, its quota and the container all need the basic scope, the
container and ``media_publish`` the publishing one (content-publishing page)."""
COMMENT_SCOPES = ("instagram_business_basic", "instagram_business_manage_comments")
"""A first comment: the comments edge needs both (its reference page)."""
INSIGHTS_SCOPE = "instagram_business_manage_insights"
"""What a media object's insights need (Instagram Media Insights, "Requirements")."""
SCOPES = (*PUBLISH_SCOPES, COMMENT_SCOPES[1], INSIGHTS_SCOPE)
METRICS_SCOPES: dict[str, tuple[str, ...]] = {INSIGHTS_SCOPE: ("impressions", "shares", "saves")}
"""The figures (``PostMetrics``'s names) read under a scope publishing does not need:
views (as impressions), shares and saves come from the insights edge, so a grant without
its scope leaves them not counted; likes and comments come from the media object under
the basic scope and are still read (``fetch_metrics``). The insights guide lists
``instagram_business_basic`` and ``instagram_business_manage_insights`` for Instagram Login
(https://developers.facebook.com/docs/instagram-platform/insights); the Facebook Login
flavour's ``instagram_manage_insights`` is not this driver's."""
INSIGHTS: dict[str, tuple[str, ...]] = {
    "FEED": ("views", "shares", "saved"),
    "REELS": ("views", "shares", "saved"),
    "STORY": ("views", "shares"),
}
"""The insights asked for by ``media_product_type``: among the metrics Instagram lists
for each (FEED, REELS, STORY), those pressroom counts; a story has no ``saved``
(https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights)."""
METRICS_REQUESTS_PER_HOUR = 200
"""Calls within one hour = 200 times the number of users (the Graph API's platform rate
limit, the floor for one connected account; a post's figures take two calls).
Source: https://developers.facebook.com/docs/graph-api/overview/rate-limiting#platform-rate-limits"""
CONTAINER_WAIT_SECONDS = 300.0
"""Meta's "no more than 5 minutes" of status reads; a reel may take that long."""
ACCESS = meta.GraphAccess.BEARER
CLOCK_SLACK = timedelta(minutes=2)
ACCOUNT_TYPES = {"business": "business", "media_creator": "creator", "creator": "creator"}


class InstagramDriver:
    platform = Platform.PHOTO_SHARING
    refresh_ahead = timedelta(days=7)
    """Meta renews a long-lived token only while it is valid: well before it lapses."""

    def __init__(
        self,
        app_id: str,
        app_secret: str,
        tokens: TokenSource,
        http: NetworkClient,
        media: MediaSource,
        *,
        version: str = "v23.0",
        container_wait_seconds: float = CONTAINER_WAIT_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.app_id = app_id
        self._app_secret = app_secret
        self.tokens = tokens
        self.http = http
        self.media = media
        self.host = "https://graph.instagram.com"
        self.graph = f"{self.host}/{version}"
        self.container_wait_seconds = container_wait_seconds
        self._sleep = sleep
        self._users: dict[str, str] = {}
        """Connection id → Instagram user id, read once per process."""

    # --- connect ---------------------------------------------------------------
    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        return consent_url(
            AUTHORIZE_URL,
            {
                "client_id": self.app_id,
                "redirect_uri": redirect_uri,
                "response_type": "code",
                "scope": ",".join(SCOPES),
                "state": state,
            },
        )

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        response = self.http.request(
            "POST",
            CODE_URL,
            data={
                "client_id": self.app_id,
                "client_secret": self._app_secret,
                "grant_type": "authorization_code",
                "redirect_uri": redirect_uri,
                "code": code,
            },
        )
        body = json_of(response)
        granted = (body.get("data") or [body])[0] if isinstance(body.get("data"), list) else body
        if response.status_code != 200 or "access_token" not in granted:
            raise TokenRefused(
                str(body.get("error_type") or meta.error_of(response).get("type") or "invalid_code")
            )
        long = self._long_lived(
            "/access_token",
            {
                "grant_type": "ig_exchange_token",
                "client_secret": self._app_secret,
                "access_token": str(granted["access_token"]),
            },
        )
        return TokenSet(long.access_token, long.access_token, long.expires_at)

    def refresh(self, refresh_token: str) -> TokenSet:
        renewed = self._token_of(
            meta.call(
                self.http,
                ACCESS,
                "GET",
                f"{self.host}/refresh_access_token",
                refresh_token,
                {"grant_type": "ig_refresh_token"},
            )
        )
        return TokenSet(renewed.access_token, renewed.access_token, renewed.expires_at)

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        me = self._get(tokens.access_token, "/me", {"fields": "user_id,username,name,account_type"})
        kind = str(me.get("account_type") or "").lower()
        return Profile(
            name=str(me["username"]),
            display_name=str(me.get("name") or me["username"]),
            account_type=ACCOUNT_TYPES.get(kind, "personal"),
        )

    def inspect(self, account: Account) -> Inspection:
        """The account (``/me``: its type) and its publishing quota
        (``content_publishing_limit``, which needs both scopes: its answer shows
        ``instagram_business_content_publish`` granted, Graph code 10 or 200-299 that it
        is not). Instagram Login has no token introspection."""
        token = self.tokens.access_token(account.connection_id)
        me = self._get(token, "/me", {"fields": "user_id,username,name,account_type"}, sent=False)
        user = str(me["user_id"])
        response = self._call(
            "GET", f"/{user}/content_publishing_limit", token, {"fields": "quota_usage,config"}
        )
        quota, publishing = meta.publishing_limit_of(response, "Instagram")
        basic, content = PUBLISH_SCOPES
        scopes = scope_states(
            SCOPES, granted=[basic, *([content] if publishing else [])], missing=[content]
        )
        source = "which of /me and content_publishing_limit answered"
        kind = ACCOUNT_TYPES.get(str(me.get("account_type") or "").lower(), "personal")
        professional = kind != "personal"
        return Inspection(
            network="Instagram",
            account=str(me["username"]),
            scopes=scopes,
            scopes_source=source,
            account_type=kind,
            audit="not readable with the account's token (Meta's App Review)",
            quota=quota,
            findings=(
                scope_finding(scopes, PUBLISH_SCOPES, source),
                Finding(
                    "account type",
                    f"{kind} account",
                    "a professional account: it may publish through the API"
                    if professional
                    else "a personal account cannot publish through the API (403 "
                    "account_type_not_allowed): switch it to a business or creator account "
                    "in Instagram, then reconnect",
                    Standing.OK if professional else Standing.BLOCKED,
                ),
                Finding(
                    "audit",
                    "Meta does not tell an account's token whether the app passed App Review",
                    "without Advanced Access to instagram_business_content_publish, only "
                    "people with a role on the app can publish through it",
                    Standing.UNKNOWN,
                ),
                quota_finding("Instagram", quota),
            ),
        )

    # --- publish ---------------------------------------------------------------
    def publish(self, delivery: Delivery) -> Published:
        check_before_sending(delivery)
        if delivery.comment_on is not None:
            return self._comment(delivery, delivery.comment_on)
        token = self.tokens.access_token(delivery.account.connection_id)
        user = self._user_id(delivery.account.connection_id, token)
        limit = self._get(
            token, f"/{user}/content_publishing_limit", {"fields": "quota_usage,config"}, sent=False
        )
        quota = meta.quota_of(limit)
        if quota is not None and quota.exhausted:
            raise meta.quota_exhausted("Instagram", quota)
        if delivery.items:
            return self._carousel(delivery, token, user)
        media = delivery.media
        assert media is not None
        form = self._container_form(delivery, media)
        response = self._call("POST", f"/{user}/media", token, form)
        if response.status_code != 200:
            raise meta.failure(response, "Instagram", sent=False, field="fileId")
        container = str(json_of(response)["id"])
        self._await_container(token, container)
        response = self._call(
            "POST", f"/{user}/media_publish", token, {"creation_id": container}, creates=True
        )
        if response.status_code != 200:
            raise meta.failure(response, "Instagram", sent=True)
        media_id = str(json_of(response)["id"])
        post = self._get(token, f"/{media_id}", {"fields": "permalink,timestamp"})
        return Published(
            media_id,
            str(post.get("permalink") or ""),
            parse_time(post.get("timestamp")) or utcnow(),
        )

    def _container_form(self, delivery: Delivery, media: Media) -> dict[str, str]:
        """The container for one file, by the post's ``format``
        (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media,
        "Creating"; content-publishing page, "Reels posts" and "Story posts"):

        - a post: ``image_url``, or a video as ``media_type=REELS`` (single feed videos
          are reels since 2023-07-01);
        - a story: ``media_type=STORIES`` with ``image_url`` or ``video_url``, and no
          caption (the reference lists ``caption`` for images, carousels and reels only);
        - a reel: ``media_type=REELS``, ``video_url``, the caption, and
          ``share_to_feed=true``: the reel also shows in the profile's feed, as a video
          posted as ``post`` does (the reference's default, sent so it does not depend on
          one).
        """
        link = self.media.url(media.file_id, media.storage_key, media.content_type)
        medium = "image_url" if media.kind is MediaKind.IMAGE else "video_url"
        kind = str(delivery.fields.get("format") or PostFormat.POST)
        form: dict[str, str]
        if kind == PostFormat.STORY:
            return {"media_type": "STORIES", medium: link}
        if kind == PostFormat.REEL:
            form = {"media_type": "REELS", "video_url": link, "share_to_feed": "true"}
        elif media.kind is MediaKind.IMAGE:
            form = {"image_url": link} | _alt_text(media)
        else:
            form = {"media_type": "REELS", "video_url": link}
        if delivery.fields.get("caption"):
            form["caption"] = str(delivery.fields["caption"])
        return form

    def _carousel(self, delivery: Delivery, token: str, user: str) -> Published:
        """An item container per file (``is_carousel_item``; a video's ``media_type``
        VIDEO), each awaited, then the CAROUSEL container with ``children`` in order,
        awaited and published; the items' ids read back from the media's ``children``."""
        children = []
        for i, item in enumerate(delivery.items):
            link = self.media.url(item.file_id, item.storage_key, item.content_type)
            form = (
                {"image_url": link} | _alt_text(item)
                if item.kind is MediaKind.IMAGE
                else {"media_type": "VIDEO", "video_url": link}
            )
            form["is_carousel_item"] = "true"
            field = f"fileIds[{i}]"
            response = self._call("POST", f"/{user}/media", token, form)
            if response.status_code != 200:
                raise meta.failure(response, "Instagram", sent=False, field=field)
            children.append(str(json_of(response)["id"]))
        for i, child in enumerate(children):
            self._await_container(token, child, field=f"fileIds[{i}]")
        form = {"media_type": "CAROUSEL", "children": ",".join(children)}
        if delivery.fields.get("caption"):
            form["caption"] = str(delivery.fields["caption"])
        response = self._call("POST", f"/{user}/media", token, form)
        if response.status_code != 200:
            raise meta.failure(response, "Instagram", sent=False, field="fileIds")
        container = str(json_of(response)["id"])
        self._await_container(token, container, field="fileIds")
        response = self._call(
            "POST", f"/{user}/media_publish", token, {"creation_id": container}, creates=True
        )
        if response.status_code != 200:
            raise meta.failure(response, "Instagram", sent=True)
        media_id = str(json_of(response)["id"])
        return self._published_carousel(token, media_id)

    def _published_carousel(self, token: str, media_id: str) -> Published:
        """The carousel ``media_id`` with its items in order (its ``children`` edge);
        an item has no permalink of its own: the post's, opened at the item."""
        post = self._get(token, f"/{media_id}", {"fields": "permalink,timestamp"})
        url = str(post.get("permalink") or "")
        made = parse_time(post.get("timestamp")) or utcnow()
        listed = self._get(token, f"/{media_id}/children", {"fields": "id"})
        items = tuple(
            Published(str(child["id"]), f"{url}?img_index={n}", made)
            for n, child in enumerate(listed.get("data") or [], start=1)
        )
        return Published(media_id, url, made, items=items)

    def _await_container(self, token: str, container: str, *, field: str = "fileId") -> None:
        for delay in meta.poll_delays(self.container_wait_seconds):
            self._sleep(delay)
            state = self._get(token, f"/{container}", {"fields": "status_code,status"}, sent=False)
            code = state.get("status_code")
            if code == "FINISHED":
                return
            if code in ("ERROR", "EXPIRED"):
                reason = state.get("status") or code
                raise PlatformRefused(f"Instagram could not take the media ({reason})", field=field)
        # Nothing is published until media_publish: a later retry starts again.
        raise PlatformUnavailable(
            "Instagram is still processing the media; nothing was published yet",
            retry_after=60,
            sent=False,
        )

    def _comment(self, delivery: Delivery, media_id: str) -> Published:
        """A first comment on the post ``media_id``, at the post's permalink."""
        token = self.tokens.access_token(delivery.account.connection_id)
        message = {"message": str(delivery.fields["text"])}
        response = self._call("POST", f"/{media_id}/comments", token, message, creates=True)
        if response.status_code != 200:
            raise meta.failure(response, "Instagram", sent=True, field="text")
        comment_id = str(json_of(response)["id"])
        post = self._get(token, f"/{media_id}", {"fields": "permalink"})
        return Published(comment_id, str(post.get("permalink") or ""), utcnow())

    def _find_comment(self, delivery: Delivery, media_id: str, since: datetime) -> Published | None:
        token = self.tokens.access_token(delivery.account.connection_id)
        listed = self._get(token, f"/{media_id}/comments", {"fields": "id,text,timestamp"})
        wanted = str(delivery.fields.get("text") or "")
        for comment in listed.get("data") or []:
            made = parse_time(comment.get("timestamp"))
            if made is not None and made >= since and str(comment.get("text") or "") == wanted:
                post = self._get(token, f"/{media_id}", {"fields": "permalink"})
                return Published(str(comment["id"]), str(post.get("permalink") or ""), made)
        return None

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        since = aware(sent_at) - CLOCK_SLACK
        if delivery.comment_on is not None:
            return self._find_comment(delivery, delivery.comment_on, since)
        if delivery.fields.get("format") == PostFormat.STORY:
            # Stories are not in the media edge, and the stories edge
            # (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/stories)
            # is documented for a Facebook User token only (Facebook Login on
            # graph.facebook.com), not for Instagram Login's: the outcome cannot be read.
            raise LookupUnsupported(
                "Instagram lists no stories to an app using Instagram Login: whether the "
                "story was published can only be seen in Instagram"
            )
        token = self.tokens.access_token(delivery.account.connection_id)
        user = self._user_id(delivery.account.connection_id, token)
        fields = "id,caption,timestamp,permalink" + (",media_type" if delivery.items else "")
        listed = self._get(token, f"/{user}/media", {"fields": fields, "limit": "50"})
        wanted = str(delivery.fields.get("caption") or "")
        for post in listed.get("data") or []:
            made = parse_time(post.get("timestamp"))
            if made is not None and made >= since and str(post.get("caption") or "") == wanted:
                if delivery.items:
                    if post.get("media_type") != "CAROUSEL_ALBUM":
                        continue
                    return self._published_carousel(token, str(post["id"]))
                return Published(str(post["id"]), str(post.get("permalink") or ""), made)
        return None

    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """Likes and comments from the media object, views (shown), shares and saves
        from its insights (module docstring); Instagram counts no clicks of a post. A
        grant without the insights scope (a connection made before it was asked for,
        or one whose owner withheld it) keeps its likes and comments, the insights'
        figures not counted, as Facebook's driver does with ``read_insights``."""
        token = self.tokens.access_token(account.connection_id)
        node = self._call(
            "GET",
            f"/{platform_post_id}",
            token,
            {"fields": "media_product_type,like_count,comments_count"},
        )
        if node.status_code != 200:
            raise meta_insights.metrics_failure(node, "Instagram", permission=INSIGHTS_SCOPE)
        media = json_of(node)
        kind = str(media.get("media_product_type") or "FEED")
        asked = INSIGHTS.get(kind, INSIGHTS["FEED"])
        insights = self._call(
            "GET", f"/{platform_post_id}/insights", token, {"metric": ",".join(asked)}
        )
        if meta.is_permission_refusal(insights):
            figures: dict[str, int] = {}  # a grant without the insights scope: METRICS_SCOPES
        else:
            figures = meta_insights.read_insights(insights, "Instagram", permission=INSIGHTS_SCOPE)
        return PostMetrics(
            impressions=figures.get("views"),
            likes=_count(media, "like_count"),
            comments=_count(media, "comments_count"),
            shares=figures.get("shares"),
            saves=figures.get("saved"),
        )

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        raise PlatformRefused("photo_sharing posts take no custom thumbnail")

    # --- helpers ---------------------------------------------------------------
    def _long_lived(self, path: str, form: dict[str, str]) -> TokenSet:
        return self._token_of(
            meta.token_form(self.http, f"{self.host}{path}", form, read_edge=True)
        )

    def _token_of(self, response: httpx.Response) -> TokenSet:
        if response.status_code != 200:
            raise TokenRefused(
                str(meta.error_of(response).get("type") or f"http_{response.status_code}")
            )
        return token_set_of(response)

    def _user_id(self, connection_id: str, token: str) -> str:
        if connection_id not in self._users:
            self._users[connection_id] = str(
                self._get(token, "/me", {"fields": "user_id"}, sent=False)["user_id"]
            )
        return self._users[connection_id]

    def _call(
        self, method: str, path: str, token: str, params: dict[str, str], *, creates: bool = False
    ) -> httpx.Response:
        return meta.call(
            self.http, ACCESS, method, f"{self.graph}{path}", token, params, creates=creates
        )

    def _get(
        self, token: str, path: str, params: dict[str, str], *, sent: bool = True
    ) -> dict[str, Any]:
        """A read; ``sent`` says whether the post may exist if it fails (see ``meta``)."""
        response = self._call("GET", path, token, params)
        if response.status_code != 200:
            raise meta.failure(response, "Instagram", sent=sent)
        return json_of(response)


def _count(media: dict[str, Any], name: str) -> int | None:
    value = media.get(name)
    return value if isinstance(value, int) else None


def _alt_text(media: Media) -> dict[str, str]:
    """An image's alt text as Instagram takes it: ``alt_text`` on the image container,
    for image posts only, reels and stories not (content-publishing page, 2025-03-24,
    https://developers.facebook.com/docs/instagram-platform/content-publishing). A
    carousel's image item is an image container on the same endpoint; the page does not
    say it in words, integrators send it there (the API refuses alt text on anything
    but an image of a feed post or carousel before this is reached)."""
    return {"alt_text": media.alt_text} if media.alt_text is not None else {}
