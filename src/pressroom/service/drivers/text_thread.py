"""text_thread on Threads: the Threads API, text posts, consent chained after photo_sharing.

Set ``PRESSROOM_TEXT_THREAD_CLIENT_ID`` (the Threads app id) and ``_CLIENT_SECRET`` from a
Meta app with the Threads use case, and ``{PRESSROOM_BASE_URL}/oauth/callback/text_thread``
as its redirect callback URL.

The spec has a text_thread connection appear with its photo_sharing account, with no
authorisation step of its own. Threads needs its own consent, so connecting
photo_sharing goes on to Threads' consent screen in the same Connect (``oauth.service``
chains it), and the Threads token is kept on the twin; the twin's state still follows
its photo_sharing account. A Threads token that stops working turns the photo_sharing
account inactive with it, and reconnecting that account asks for both again.

What the driver does, and the pages it follows (read 2026-11-25):

- consent at ``https://threads.net/oauth/authorize`` with
  ``threads_basic,threads_content_publish,threads_manage_insights,threads_read_replies``
  (the insights one for the metrics below, the replies one for looking a reply up); the code at ``POST
  https://graph.threads.net/oauth/access_token``, then a 60-day token
  (``th_exchange_token``) renewed with ``th_refresh_token``: the long-lived token is its
  own refresh token; Meta shows both as GETs with the secrets in the query, and they are
  sent in a POST body (``meta.token_form``) (https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions,
  https://developers.facebook.com/docs/threads/get-started/long-lived-tokens);
- every call carries the token as Threads documents it, the ``access_token`` parameter,
  in a POST body (a read as a POST with ``method=GET``: ``meta.GraphAccess``); Threads
  documents no ``Authorization`` header;
- profile: ``GET /v1.0/me?fields=id,username,name``;
- publish: the account's quota first (``GET /{user}/threads_publishing_limit``: 250 API
  posts in a moving 24 hours; a used-up quota is a rate limit and nothing is sent), a
  text container (``POST /v1.0/{user}/threads`` with ``media_type=TEXT``), its
  ``status`` read until ``FINISHED`` (``ERROR`` and ``EXPIRED`` are refusals with
  Threads' ``error_message``; the reads start a second apart and slow to once a minute,
  ``meta.poll_delays``), then ``POST /v1.0/{user}/threads_publish``, then the post's
  ``permalink``; a thread's later part is a container
  with ``reply_to_id``, the part before it, which the owner of the thread's first post
  may send, with its files as any post's: one (``IMAGE``/``VIDEO`` with the link, awaited
  ``FINISHED`` as every container) or a carousel as below (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/create-replies)
  (https://developers.facebook.com/docs/threads/posts: "wait on average 30 seconds
  before publishing a Threads media container"; https://developers.facebook.com/docs/threads/troubleshooting;
  https://developers.facebook.com/docs/threads/overview#rate-limiting);
- a carousel (``Delivery.items``): an item container per file (``is_carousel_item=true``,
  ``media_type=IMAGE`` with ``image_url`` or ``VIDEO`` with ``video_url``: signed links
  Threads fetches), each awaited, then a ``CAROUSEL`` container with ``children`` (their
  ids in order) and the text, awaited and published as above; the items' ids read back
  in order from the post's ``children`` field, each at the post's permalink
  (https://developers.facebook.com/docs/threads/posts#carousel-posts);
- look-up of an unknown outcome: ``GET /v1.0/{user}/threads`` since the send, by text
  (https://developers.facebook.com/docs/threads/threads-media); a thread's later part,
  a reply, among the replies of the part before (``GET /v1.0/{id}/replies``), which
  Threads lists only to ``threads_read_replies``, asked at consent for it
  (https://developers.facebook.com/docs/threads/retrieve-and-manage-replies);
- metrics (``fetch_metrics``): ``GET /v1.0/{media_id}/insights`` with
  ``metric=views,likes,replies,reposts,quotes,shares``, which needs
  ``threads_manage_insights`` (https://developers.facebook.com/docs/threads/insights);
  refusals as ``meta_insights`` reads them (a post Threads no longer has is
  ``MetricsUnsupported``);
- errors: ``meta.failure``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import httpx

from pressroom.platforms import MediaKind, Platform
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

AUTHORIZE_URL = "https://threads.net/oauth/authorize"
HOST = "https://graph.threads.net"
API = f"{HOST}/v1.0"
PUBLISH_SCOPES = ("threads_basic", "threads_content_publish")
"""Both: every Threads call needs ``threads_basic``, the quota, the container and
``threads_publish`` ``threads_content_publish`` too (overview, posts page)."""
INSIGHTS_SCOPE = "threads_manage_insights"
"""What ``GET /{media_id}/insights`` needs (https://developers.facebook.com/docs/threads/insights)."""
METRICS = ("views", "likes", "replies", "reposts", "quotes", "shares")
"""The media insights metrics (https://developers.facebook.com/docs/threads/insights,
"Available Metrics")."""
METRICS_REQUESTS_PER_HOUR = 2000
"""Threads counts calls per app and user over a rolling 24 hours: 4800 times the
account's impressions, at least 10 of them, so 48,000 a day (2,000 an hour) for the
least seen account. Source: https://developers.facebook.com/docs/threads/overview#rate-limiting"""
REPLIES_SCOPE = "threads_read_replies"
"""What ``GET /{media-id}/replies`` needs: asked at consent so a thread's later part
whose outcome is unknown can be looked up under the part before
(https://developers.facebook.com/docs/threads/retrieve-and-manage-replies)."""
SCOPES = (*PUBLISH_SCOPES, INSIGHTS_SCOPE, REPLIES_SCOPE)
METRICS_SCOPES: dict[str, tuple[str, ...]] = {
    INSIGHTS_SCOPE: ("impressions", "likes", "comments", "shares")
}
"""The figures (``PostMetrics``'s names) read under a scope publishing does not need:
every one comes from the insights edge, so a grant without its scope gets no figures
at all (``MetricsUnsupported``, ``fetch_metrics``;
https://developers.facebook.com/docs/threads/insights)."""
REPLIES_DOC = (
    "https://developers.facebook.com/docs/threads/retrieve-and-manage-replies/"
    "replies-and-conversations"
)
CLOCK_SLACK = timedelta(minutes=2)
CONTAINER_WAIT_SECONDS = 300.0
"""Meta's "no more than 5 minutes" of status reads (troubleshooting page)."""
ACCESS = meta.GraphAccess.PARAMETER


class ThreadsDriver:
    platform = Platform.TEXT_THREAD
    refresh_ahead = timedelta(days=7)
    """Meta renews a long-lived token only while it is valid: well before it lapses."""

    def __init__(
        self,
        app_id: str,
        app_secret: str,
        tokens: TokenSource,
        http: NetworkClient,
        *,
        media: MediaSource | None = None,
        container_wait_seconds: float = CONTAINER_WAIT_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.app_id = app_id
        self._app_secret = app_secret
        self.tokens = tokens
        self.http = http
        self.media = media
        """Links Threads fetches a carousel's files from (``Delivery.items``)."""
        self.container_wait_seconds = container_wait_seconds
        self._sleep = sleep
        self._users: dict[str, str] = {}

    # --- connect ---------------------------------------------------------------
    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        return consent_url(
            AUTHORIZE_URL,
            {
                "client_id": self.app_id,
                "redirect_uri": redirect_uri,
                "scope": ",".join(SCOPES),
                "response_type": "code",
                "state": state,
            },
        )

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        response = self.http.request(
            "POST",
            f"{HOST}/oauth/access_token",
            data={
                "client_id": self.app_id,
                "client_secret": self._app_secret,
                "code": code,
                "grant_type": "authorization_code",
                "redirect_uri": redirect_uri,
            },
        )
        short = self._token_of(response)
        long = self._token_of(
            meta.token_form(
                self.http,
                f"{HOST}/access_token",
                {
                    "grant_type": "th_exchange_token",
                    "client_secret": self._app_secret,
                    "access_token": short.access_token,
                },
                read_edge=True,
            )
        )
        return TokenSet(long.access_token, long.access_token, long.expires_at)

    def refresh(self, refresh_token: str) -> TokenSet:
        renewed = self._token_of(
            meta.token_form(
                self.http,
                f"{HOST}/refresh_access_token",
                {"grant_type": "th_refresh_token", "access_token": refresh_token},
                read_edge=True,
            )
        )
        return TokenSet(renewed.access_token, renewed.access_token, renewed.expires_at)

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        me = self._get(tokens.access_token, "/me", {"fields": "id,username,name"})
        return Profile(name=str(me["username"]), display_name=str(me.get("name") or me["username"]))

    def inspect(self, account: Account) -> Inspection:
        """The profile with its verification (``/me``, ``threads_basic``) and the
        publishing quota (``threads_publishing_limit``, which needs both scopes: its
        answer shows ``threads_content_publish`` granted, Graph code 10 or 200-299 that
        it is not). Threads has no token introspection."""
        token = self.tokens.access_token(account.connection_id)
        me = self._get(token, "/me", {"fields": "id,username,name,is_verified"}, sent=False)
        response = self._call(
            "GET",
            f"/{me['id']}/threads_publishing_limit",
            token,
            {"fields": "quota_usage,config"},
        )
        quota, publishing = meta.publishing_limit_of(response, "Threads")
        basic, content = PUBLISH_SCOPES
        scopes = scope_states(
            SCOPES, granted=[basic, *([content] if publishing else [])], missing=[content]
        )
        source = "which of /me and threads_publishing_limit answered"
        verified = me.get("is_verified") is True
        return Inspection(
            network="Threads",
            account=str(me["username"]),
            scopes=scopes,
            scopes_source=source,
            account_type="profile",
            audit=f"is_verified {str(verified).lower()}",
            quota=quota,
            findings=(
                scope_finding(scopes, PUBLISH_SCOPES, source),
                Finding(
                    "verification",
                    f"is_verified {str(verified).lower()}",
                    "publishing does not depend on it",
                    Standing.OK,
                ),
                Finding(
                    "audit",
                    "Meta does not tell a profile's token whether the app passed App Review",
                    "without Advanced Access to threads_content_publish, only people with a "
                    "role on the app (and Threads testers) can publish through it",
                    Standing.UNKNOWN,
                ),
                quota_finding("Threads", quota),
            ),
        )

    # --- publish ---------------------------------------------------------------
    def publish(self, delivery: Delivery) -> Published:
        check_before_sending(delivery)
        token = self.tokens.access_token(delivery.account.connection_id)
        user = self._user_id(delivery.account.connection_id, token)
        quota = meta.quota_of(
            self._get(
                token,
                f"/{user}/threads_publishing_limit",
                {"fields": "quota_usage,config"},
                sent=False,
            )
        )
        if quota is not None and quota.exhausted:
            raise meta.quota_exhausted("Threads", quota)
        container: dict[str, str] = {"media_type": "TEXT", "text": str(delivery.fields["text"])}
        if delivery.reply_to is not None:  # a thread's later part
            container["reply_to_id"] = delivery.reply_to
        if delivery.items:
            children = self._item_containers(delivery, token, user)
            container = {"media_type": "CAROUSEL", "children": ",".join(children)} | {
                k: v for k, v in container.items() if k != "media_type"
            }
        elif delivery.media is not None:  # a thread part's one file
            container |= self._media_form(delivery.media)
        response = self._call("POST", f"/{user}/threads", token, container)
        if response.status_code != 200:
            field = "fileId" if delivery.media is not None else "text"
            raise meta.failure(response, "Threads", sent=False, field=field)
        made = str(json_of(response)["id"])
        self._await_container(token, made)
        response = self._call(
            "POST", f"/{user}/threads_publish", token, {"creation_id": made}, creates=True
        )
        if response.status_code != 200:
            raise meta.failure(response, "Threads", sent=True, field="text")
        post_id = str(json_of(response)["id"])
        return self._read_back(token, post_id, carousel=bool(delivery.items))

    def _read_back(self, token: str, post_id: str, *, carousel: bool) -> Published:
        """The post's permalink; a carousel's items too, in order (its ``children``),
        each at the post's permalink (Threads gives an item none of its own)."""
        fields = "permalink,timestamp" + (",children" if carousel else "")
        post = self._get(token, f"/{post_id}", {"fields": fields})
        url = str(post.get("permalink") or "")
        made = parse_time(post.get("timestamp")) or utcnow()
        children = (post.get("children") or {}).get("data") or []
        items = tuple(
            Published(str(child["id"]), f"{url}?img_index={n}", made)
            for n, child in enumerate(children, start=1)
        )
        return Published(post_id, url, made, items=items)

    def _item_containers(self, delivery: Delivery, token: str, user: str) -> list[str]:
        """A carousel's item containers (``is_carousel_item``, ``IMAGE`` with
        ``image_url`` or ``VIDEO`` with ``video_url``), in order, each awaited."""
        assert self.media is not None, "a carousel needs the service's media links"
        children = []
        for i, item in enumerate(delivery.items):
            form = self._media_form(item)
            form["is_carousel_item"] = "true"
            response = self._call("POST", f"/{user}/threads", token, form)
            if response.status_code != 200:
                raise meta.failure(response, "Threads", sent=False, field=f"fileIds[{i}]")
            children.append(str(json_of(response)["id"]))
        for i, child in enumerate(children):
            self._await_container(token, child, field=f"fileIds[{i}]")
        return children

    def _media_form(self, item: Media) -> dict[str, str]:
        """A file as a container takes it: ``IMAGE`` with ``image_url`` or ``VIDEO`` with
        ``video_url``, a signed link Threads fetches (posts page, "Single thread posts")."""
        assert self.media is not None, "a post with files needs the service's media links"
        link = self.media.url(item.file_id, item.storage_key, item.content_type)
        # Alt text on an image or a video container, a carousel's items included
        # ("alt_text ... for images and videos only",
        # https://developers.facebook.com/docs/threads/posts/accessibility).
        alt = {"alt_text": item.alt_text} if item.alt_text is not None else {}
        if item.kind is MediaKind.IMAGE:
            return {"media_type": "IMAGE", "image_url": link} | alt
        return {"media_type": "VIDEO", "video_url": link} | alt

    def _await_container(self, token: str, container: str, *, field: str = "text") -> None:
        """Until Threads says the container is ready, as Meta's pages ask (what Threads
        answers to publishing a container not yet ready is not documented)."""
        for delay in meta.poll_delays(self.container_wait_seconds):
            self._sleep(delay)
            state = self._get(
                token, f"/{container}", {"fields": "status,error_message"}, sent=False
            )
            status = state.get("status")
            if status == "FINISHED":
                return
            if status in ("ERROR", "EXPIRED"):
                reason = state.get("error_message") or status
                raise PlatformRefused(f"Threads could not take the post ({reason})", field=field)
        # Nothing is published until threads_publish: a later retry starts again.
        raise PlatformUnavailable(
            "Threads is still processing the post; nothing was published yet",
            retry_after=60,
            sent=False,
        )

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        if delivery.reply_to is not None:
            return self._find_reply(delivery, sent_at)
        token = self.tokens.access_token(delivery.account.connection_id)
        user = self._user_id(delivery.account.connection_id, token)
        since = aware(sent_at) - CLOCK_SLACK
        listed = self._get(
            token,
            f"/{user}/threads",
            {
                "fields": "id,text,timestamp,permalink" + (",media_type" if delivery.items else ""),
                "since": str(int(since.timestamp())),
                "limit": "50",
            },
        )
        wanted = str(delivery.fields["text"])
        for post in listed.get("data") or []:
            made = parse_time(post.get("timestamp"))
            if made is not None and made >= since and str(post.get("text") or "") == wanted:
                if delivery.items:
                    if post.get("media_type") != "CAROUSEL_ALBUM":
                        continue
                    return self._read_back(token, str(post["id"]), carousel=True)
                return Published(str(post["id"]), str(post.get("permalink") or ""), made)
        return None

    def _find_reply(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        """A thread's later part, among the replies of the part before
        (``GET /{reply_to}/replies``, newest first, its first page: the part was sent
        minutes ago), by its author, its text and when it was made (REPLIES_DOC). A
        token without ``threads_read_replies`` (a connection made before it was asked)
        is refused by Threads: the part stays unknown and is never sent again."""
        token = self.tokens.access_token(delivery.account.connection_id)
        since = aware(sent_at) - CLOCK_SLACK
        # The profile's own username, as Threads shows it on the replies (the
        # connection's name is its photo_sharing account's).
        username = self._get(token, "/me", {"fields": "username"}, sent=False).get("username")
        response = self._call(
            "GET",
            f"/{delivery.reply_to}/replies",
            token,
            {"fields": "id,text,username,timestamp,permalink,media_type", "reverse": "true"},
        )
        if meta.is_permission_refusal(response):
            raise LookupUnsupported(
                "Threads lists replies only to tokens granted threads_read_replies: "
                "reconnect the account to grant it"
            )
        if response.status_code != 200:
            raise meta.failure(response, "Threads", sent=True)
        wanted = str(delivery.fields["text"])
        for reply in json_of(response).get("data") or []:
            made = parse_time(reply.get("timestamp"))
            if (
                made is not None
                and made >= since
                and str(reply.get("text") or "") == wanted
                and reply.get("username") == username
                and (not delivery.items or reply.get("media_type") == "CAROUSEL_ALBUM")
            ):
                if delivery.items:
                    return self._read_back(token, str(reply["id"]), carousel=True)
                return Published(str(reply["id"]), str(reply.get("permalink") or ""), made)
        return None

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        raise PlatformRefused("text_thread posts have no thumbnails")

    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """The post's insights (module docstring): ``views`` are the times it was
        shown, ``replies`` its comments, reposts, quotes and shares together its
        passing on; Threads counts no saves or clicks of a post."""
        token = self.tokens.access_token(account.connection_id)
        response = self._call(
            "GET", f"/{platform_post_id}/insights", token, {"metric": ",".join(METRICS)}
        )
        figures = meta_insights.read_insights(response, "Threads", permission=INSIGHTS_SCOPE)
        return PostMetrics(
            impressions=figures.get("views"),
            likes=figures.get("likes"),
            comments=figures.get("replies"),
            shares=meta_insights.total(figures, "reposts", "quotes", "shares"),
        )

    # --- helpers ---------------------------------------------------------------
    def _token_of(self, response: httpx.Response) -> TokenSet:
        if response.status_code != 200:
            error = meta.error_of(response)
            raise TokenRefused(str(error.get("type") or f"http_{response.status_code}"))
        return token_set_of(response)

    def _user_id(self, connection_id: str, token: str) -> str:
        if connection_id not in self._users:
            self._users[connection_id] = str(
                self._get(token, "/me", {"fields": "id"}, sent=False)["id"]
            )
        return self._users[connection_id]

    def _call(
        self, method: str, path: str, token: str, params: dict[str, str], *, creates: bool = False
    ) -> httpx.Response:
        return meta.call(self.http, ACCESS, method, f"{API}{path}", token, params, creates=creates)

    def _get(
        self, token: str, path: str, params: dict[str, str], *, sent: bool = True
    ) -> dict[str, Any]:
        """A read; ``sent`` says whether the post may exist if it fails (see ``meta``)."""
        response = self._call("GET", path, token, params)
        if response.status_code != 200:
            raise meta.failure(response, "Threads", sent=sent)
        return json_of(response)
