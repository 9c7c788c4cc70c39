"""page_social on Facebook: a Page's photos and videos through the Graph API.

Set ``PRESSROOM_PAGE_SOCIAL_CLIENT_ID`` (the Meta app id) and ``_CLIENT_SECRET`` from a Meta
app with Facebook Login for Business, ``{PRESSROOM_BASE_URL}/oauth/callback/page_social``
as a valid OAuth redirect URI, and the permissions below approved for it.

What the driver does, and the pages it follows (read 2026-11-25):

- consent at ``https://www.facebook.com/{version}/dialog/oauth`` asking for
  ``pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement``
  (the last for a first comment only); the code is exchanged at
  ``/oauth/access_token`` (its secrets in a POST body: ``meta.token_form``), then for a
  long-lived user token (``fb_exchange_token``)
  (https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow,
  https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived);
- every call carries the token as graph.facebook.com documents it, the ``access_token``
  parameter, in a POST body (a read as a POST with ``method=GET``: ``meta.GraphAccess``);
- Pages: ``GET /me/accounts`` lists the Pages the person granted, each with its own Page
  access token (which does not expire when taken from a long-lived user token), a page
  of results at a time: every page is read, following ``paging.cursors.after`` while
  ``paging.next`` is there (https://developers.facebook.com/docs/graph-api/reference/user/accounts,
  https://developers.facebook.com/docs/graph-api/results). ``granted_pages`` gives them
  all, for the person to choose which to connect (the dashboard's Page choice after
  consent; each chosen Page is a connection of its own, keeping that Page's token).
  ``GET /me/permissions`` says whether ``pages_manage_posts`` was granted: without it a
  Page is connected without the Pages permission and publishing answers
  ``pages_permission_missing``, as the spec says. A person who granted no Page connects
  a profile, which the spec refuses to publish to (``not_a_page``)
  (https://developers.facebook.com/docs/pages-api/overview);
- a photo: ``POST /{page-id}/photos`` with ``url``, a signed link Facebook fetches
  (https://developers.facebook.com/docs/graph-api/reference/page/photos/);
- a video: ``POST /{page-id}/videos`` on graph.facebook.com with ``file_url``, a signed
  link Facebook fetches, then ``GET /{video-id}?fields=status`` polled until ``ready``
  or ``error``. The Video API overview calls the graph-video.facebook.com host of the
  publishing guide's examples deprecated ("Use the graph.facebook.com host"), and
  ``file_url`` is a documented parameter of the Page videos edge
  (https://developers.facebook.com/docs/video-api/overview,
  https://developers.facebook.com/docs/graph-api/reference/page/videos/,
  https://developers.facebook.com/docs/video-api/guides/publishing);
- a multi-photo post (``Delivery.items``): each photo ``POST /{page-id}/photos`` with
  ``url`` and ``published=false`` (unpublished: nothing shows yet), then ``POST
  /{page-id}/feed`` with the ``message`` and ``attached_media[i]={"media_fbid": …}`` in
  order; the items are the photos' ids, each at its photo page; an unknown one is found
  among ``published_posts`` by its message, its photos read from the post's
  ``attachments`` (``subattachments``)
  (https://developers.facebook.com/docs/graph-api/reference/page/feed, "attached_media";
  https://developers.facebook.com/docs/graph-api/reference/page/photos, "published";
  https://developers.facebook.com/docs/graph-api/reference/page-post/attachments);
- a reel (the body's ``format``): the Reels Publishing API's session on ``POST
  /{page-id}/video_reels`` (``upload_phase=start``), the video fetched by Facebook from
  its signed link at the ``upload_url`` on rupload.facebook.com (``file_url`` header),
  then ``upload_phase=finish`` with ``video_state=PUBLISHED`` and the message as
  ``description``, its status awaited as a video's; an unknown one is found among the
  Page's ``video_reels`` by its description
  (https://developers.facebook.com/docs/video-api/guides/reels-publishing);
- a story: a photo uploaded unpublished then ``POST /{page-id}/photo_stories`` with its
  ``photo_id``, or a video through a session on ``/{page-id}/video_stories`` as a reel's;
  the story's ``post_id`` as answered. A story's unknown outcome is not looked up (its
  listing has nothing to tell it from another) (https://developers.facebook.com/docs/page-stories-api);
- a first comment (``Delivery.comment_on``): ``POST /{post-id}/comments`` with
  ``message``, as the Page, which needs ``pages_manage_engagement`` (and
  ``pages_read_engagement``); its URL the comment's ``permalink_url``
  (https://developers.facebook.com/docs/pages-api/comments-mentions,
  https://developers.facebook.com/docs/graph-api/reference/object/comments,
  https://developers.facebook.com/docs/graph-api/reference/comment);
- look-up of an unknown outcome: ``GET /{page-id}/published_posts`` (photos) or
  ``/{page-id}/videos`` since the send, matched on the message; a comment among the
  post's ``comments``, matched on its message;
- metrics (``fetch_metrics``): the post's own counts in one read with field expansion,
  ``GET /{post-id}?fields=shares,reactions.limit(0).summary(total_count),
  comments.limit(0).summary(true)`` (a video: no ``shares``, which is a Page Post
  field), under ``pages_read_engagement``, already asked for at consent
  (https://developers.facebook.com/docs/graph-api/reference/post/,
  https://developers.facebook.com/docs/graph-api/reference/object/reactions,
  https://developers.facebook.com/docs/graph-api/reference/object/comments,
  https://developers.facebook.com/docs/graph-api/guides/field-expansion). A Page
  post's impressions are its insights' ``post_media_view``, the metric Meta names in
  place of ``post_impressions``, which it deprecated on 2025-11-15 for every API version
  (https://developers.facebook.com/docs/pages-api/changelog/), read with ``GET
  /{post-id}/insights?metric=post_media_view`` under ``read_insights``
  (https://developers.facebook.com/docs/graph-api/reference/insights). Meta gives
  insights only for Pages with 100 likes or more (the same page, "Limitations"; error
  code 2874008, https://developers.facebook.com/documentation/pages-api/error-codes):
  a smaller Page's post, one whose grant predates ``read_insights``, or any other
  refusal of the insights read leaves impressions None (not counted) with the other
  figures kept; a rate limit, a refused token or Meta being unavailable fails the read
  as for the counts. A video (known by its own id, not a Page post's) has no Page post
  insights: impressions None. Facebook leaves ``shares`` out of a post nobody shared;
  the Post reference does not say so, so it stays None too. A post Facebook no longer
  has is ``MetricsUnsupported`` (``meta_insights``);
- errors: ``meta.failure``.

The Page has no refresh token and needs none: a Page token lasts until the person
removes the app or loses the Page, which Facebook answers with code 190 and the
connection turns inactive.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import httpx

from pressroom import error_codes
from pressroom.platforms import MediaKind, Platform, PostFormat
from pressroom.service.db.base import utcnow
from pressroom.service.drivers import meta, meta_insights
from pressroom.service.drivers.answers import aware, json_of, parse_time
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    LookupUnsupported,
    Media,
    MediaSource,
    MetricsUnsupported,
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

PAGES_PERMISSION_SCOPE = "pages_manage_posts"
"""The spec's "Pages permission": a Page granted without it is connected without it."""
PUBLISH_SCOPES = ("pages_show_list", PAGES_PERMISSION_SCOPE, "pages_read_engagement")
"""All three: a Page's photos and videos are published with ``pages_manage_posts`` and
``pages_read_engagement``, on a Page listed by ``pages_show_list``
(https://developers.facebook.com/docs/graph-api/reference/page/photos/)."""
COMMENT_SCOPES = ("pages_manage_engagement", "pages_read_engagement")
"""A comment as the Page (https://developers.facebook.com/docs/pages-api/comments-mentions);
``pages_read_user_engagement``, which that page lists for reading people's comments and
mentions, is not needed to write one and is not asked for."""
INSIGHTS_SCOPE = "read_insights"
"""A Page post's insights, for its impressions: Meta's Page Insights guide lists
``read_insights``, ``pages_show_list`` and ``pages_read_engagement``
(https://developers.facebook.com/blog/post/2022/11/08/getting-started-with-page-insights-api/),
on the token of a person who can do ANALYZE on the Page
(https://developers.facebook.com/docs/graph-api/reference/insights)."""
SCOPES = (*PUBLISH_SCOPES, COMMENT_SCOPES[0], INSIGHTS_SCOPE)
METRICS_SCOPES: dict[str, tuple[str, ...]] = {INSIGHTS_SCOPE: ("impressions",)}
"""The figures (``PostMetrics``'s names) read under a scope publishing does not need: a
grant without ``read_insights`` leaves impressions not counted, the rest read
(``fetch_metrics``; https://developers.facebook.com/docs/graph-api/reference/insights)."""
IMPRESSIONS_METRIC = "post_media_view"
"""The Page post insights metric read as impressions (module docstring)."""
TOO_FEW_LIKES = 2874008
""""Facebook Page insights are only available for Pages with at least [100 likes]"
(https://developers.facebook.com/documentation/pages-api/error-codes; whether Meta sends
it as the code or the subcode is not shown there: both are read)."""
METRICS_REQUESTS_PER_HOUR = 200
"""Calls within one hour = 200 times the number of users (the Graph API's platform rate
limit, the floor: a Page token's own business use case limit, 4800 times the Page's
engaged users a day, can be lower for a Page nobody engages with, which Meta answers
code 32 or 80001, a rate limit).
Source: https://developers.facebook.com/docs/graph-api/overview/rate-limiting"""
COUNTS = ("reactions.limit(0).summary(total_count)", "comments.limit(0).summary(true)")
"""A post's reactions and comments, counted without listing them (field expansion)."""
VIDEO_WAIT_SECONDS = 120.0
POLL_SECONDS = 3.0
CLOCK_SLACK = timedelta(minutes=2)
ACCESS = meta.GraphAccess.PARAMETER
PAGES_PER_READ = 100
"""Pages asked for per read of ``/me/accounts`` (its ``limit``; Meta's default is smaller)."""
MOST_PAGE_READS = 50
"""A person with more Pages than this many reads is shown the first ones only."""


@dataclass(frozen=True)
class GrantedPage:
    """A Page the person granted at consent, as ``/me/accounts`` lists it."""

    id: str
    name: str
    token: str = field(repr=False)
    tasks: tuple[str, ...]
    """What the person may do on the Page; ``CREATE_CONTENT`` is needed to post."""


class FacebookPagesDriver:
    platform = Platform.PAGE_SOCIAL
    refresh_ahead = timedelta(minutes=10)

    def __init__(
        self,
        app_id: str,
        app_secret: str,
        tokens: TokenSource,
        http: NetworkClient,
        media: MediaSource,
        *,
        version: str = "v23.0",
        video_wait_seconds: float = VIDEO_WAIT_SECONDS,
        poll_seconds: float = POLL_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.app_id = app_id
        self._app_secret = app_secret
        self.tokens = tokens
        self.http = http
        self.media = media
        self.graph = f"https://graph.facebook.com/{version}"
        self.dialog = f"https://www.facebook.com/{version}/dialog/oauth"
        self.video_wait_seconds = video_wait_seconds
        self.poll_seconds = poll_seconds
        self._sleep = sleep
        self._pages: dict[str, str] = {}
        """Connection id → Page id, read once per process from the Page token."""

    # --- connect ---------------------------------------------------------------
    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        return consent_url(
            self.dialog,
            {
                "client_id": self.app_id,
                "redirect_uri": redirect_uri,
                "state": state,
                "response_type": "code",
                "scope": ",".join(SCOPES),
            },
        )

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        short = self._token(
            {
                "client_id": self.app_id,
                "client_secret": self._app_secret,
                "redirect_uri": redirect_uri,
                "code": code,
            }
        )
        return self.refresh(short.access_token)

    def refresh(self, refresh_token: str) -> TokenSet:
        """A long-lived user token for a user token (Meta has no refresh tokens)."""
        return self._token(
            {
                "grant_type": "fb_exchange_token",
                "client_id": self.app_id,
                "client_secret": self._app_secret,
                "fb_exchange_token": refresh_token,
            }
        )

    def granted_pages(self, tokens: TokenSet) -> list[GrantedPage]:
        """Every Page the person granted, in Facebook's order, read page by page."""
        pages: list[GrantedPage] = []
        params = {"fields": "id,name,access_token,tasks", "limit": str(PAGES_PER_READ)}
        for _ in range(MOST_PAGE_READS):
            listed = self._get(tokens.access_token, "/me/accounts", params)
            pages += [
                GrantedPage(
                    str(p["id"]),
                    str(p.get("name") or p["id"]),
                    str(p["access_token"]),
                    tuple(str(t) for t in p.get("tasks") or ()),
                )
                for p in listed.get("data") or []
                if isinstance(p, dict) and p.get("access_token")
            ]
            paging = listed.get("paging") or {}
            after = (paging.get("cursors") or {}).get("after")
            if not paging.get("next") or not after:
                break
            params = {**params, "after": str(after)}
        return pages

    def page_profile(self, tokens: TokenSet, page: GrantedPage) -> Profile:
        """The connection ``page`` becomes, with whether posting was granted."""
        granted = {
            p.get("permission")
            for p in self._get(tokens.access_token, "/me/permissions", {}).get("data") or []
            if p.get("status") == "granted"
        }
        return Profile(
            name=page.name,
            display_name=page.name,
            page_kind="page",
            pages_permission=PAGES_PERMISSION_SCOPE in granted,
            page_token=page.token,
        )

    def person_profile(self, tokens: TokenSet) -> Profile:
        """The person who granted no Page: a profile, which the spec will not post to."""
        me = self._get(tokens.access_token, "/me", {"fields": "id,name"})
        return Profile(
            name=str(me.get("name") or me["id"]),
            display_name=str(me.get("name") or ""),
            page_kind="profile",
        )

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        """The connection for a caller that offers no choice of Page: the only Page
        granted, or the person when none was. Connecting with several Pages granted
        goes through ``granted_pages`` and the person's choice instead."""
        pages = self.granted_pages(tokens)
        return self.page_profile(tokens, pages[0]) if pages else self.person_profile(tokens)

    def inspect(self, account: Account) -> Inspection:
        """The Page token as Facebook's token debugger sees it (``/debug_token``, asked
        with the app's own token, ``{app-id}|{app-secret}``, both in the POST body): the
        scopes granted, each narrowed to the Pages it was granted for
        (``granular_scopes``), and whether it is a Page's token at all."""
        token = self.tokens.access_token(account.connection_id)
        response = self._call(
            "GET", "/debug_token", f"{self.app_id}|{self._app_secret}", {"input_token": token}
        )
        if response.status_code != 200:
            raise meta.failure(response, "Facebook", sent=False)
        data = json_of(response).get("data") or {}
        if not data.get("is_valid"):
            raise AccessRevoked("Facebook says the Page's token is no longer valid")
        page_id = str(data.get("profile_id") or "")
        granted = {str(s) for s in data.get("scopes") or []}
        for narrowed in data.get("granular_scopes") or []:
            targets = narrowed.get("target_ids")
            if targets is not None and page_id and page_id not in {str(t) for t in targets}:
                granted.discard(str(narrowed.get("scope")))  # granted for other Pages only
        scopes = scope_states(SCOPES, granted=granted, missing=set(SCOPES) - granted)
        source = "Facebook's debug_token"
        is_page = str(data.get("type") or "").upper() == "PAGE"
        name = str(self._get(token, "/me", {"fields": "id,name"}).get("name") or account.name)
        return Inspection(
            network="Facebook",
            account=name,
            scopes=scopes,
            scopes_source=source,
            account_type="page" if is_page else "profile",
            audit="not readable with a Page's token (Meta's App Review)",
            findings=(
                scope_finding(scopes, PUBLISH_SCOPES, source),
                Finding(
                    "account type",
                    "a Page's token" if is_page else f"a {data.get('type') or 'non-Page'} token",
                    "pressroom publishes to this Page"
                    if is_page
                    else "only a Page can be published to (403 not_a_page): reconnect and "
                    "grant a Page",
                    Standing.OK if is_page else Standing.BLOCKED,
                ),
                Finding(
                    "Page role",
                    "not readable with a Page's token",
                    "the person who connected the Page needs its CREATE_CONTENT task; "
                    "without it Facebook refuses the post",
                    Standing.UNKNOWN,
                ),
                Finding(
                    "audit",
                    "Meta does not tell a Page's token whether the app passed App Review",
                    "without Advanced Access to pages_manage_posts, only people with a role "
                    "on the app can publish through it",
                    Standing.UNKNOWN,
                ),
                quota_finding("Facebook", None),
            ),
        )

    # --- publish ---------------------------------------------------------------
    def publish(self, delivery: Delivery) -> Published:
        check_before_sending(delivery)
        if delivery.comment_on is not None:
            return self._comment(delivery, delivery.comment_on)
        token = self.tokens.access_token(delivery.account.connection_id)
        page_id = self._page_id(delivery.account.connection_id, token)
        if delivery.items:
            return self._multi_photo(delivery, token, page_id)
        media = delivery.media
        assert media is not None
        post_format = delivery.fields.get("format")
        if post_format == PostFormat.REEL:
            return self._reel(delivery, media, token, page_id)
        if post_format == PostFormat.STORY:
            return self._story(media, token, page_id)
        link = self.media.url(media.file_id, media.storage_key, media.content_type)
        message = delivery.fields.get("message")
        if media.kind is MediaKind.IMAGE:
            form = {"url": link, "published": "true", **({"message": message} if message else {})}
            form |= _alt_text(media)
            response = self._call("POST", f"/{page_id}/photos", token, form, creates=True)
            if response.status_code != 200:
                raise meta.failure(
                    response,
                    "Facebook",
                    sent=True,
                    field="fileId",
                    permission=error_codes.PAGES_PERMISSION,
                )
            created = json_of(response)
            post_id = str(created.get("post_id") or created["id"])
            return Published(post_id, f"https://www.facebook.com/{post_id}", utcnow())
        form = {"file_url": link, **({"description": message} if message else {})}
        response = self._call("POST", f"/{page_id}/videos", token, form, creates=True)
        if response.status_code != 200:
            raise meta.failure(
                response,
                "Facebook",
                sent=True,
                field="fileId",
                permission=error_codes.PAGES_PERMISSION,
            )
        video_id = str(json_of(response)["id"])
        self._await_video(token, video_id)
        return Published(
            video_id, f"https://www.facebook.com/{page_id}/videos/{video_id}/", utcnow()
        )

    def _multi_photo(self, delivery: Delivery, token: str, page_id: str) -> Published:
        """A multi-photo post: each photo uploaded unpublished (``published=false``:
        nothing shows until the post does), then one Page post with the message and the
        photos as ``attached_media``, in order; the items are the photos."""
        photos = []
        for i, item in enumerate(delivery.items):
            link = self.media.url(item.file_id, item.storage_key, item.content_type)
            form = {"url": link, "published": "false"} | _alt_text(item)
            response = self._call("POST", f"/{page_id}/photos", token, form)
            if response.status_code != 200:
                raise meta.failure(
                    response,
                    "Facebook",
                    sent=False,
                    field=f"fileIds[{i}]",
                    permission=error_codes.PAGES_PERMISSION,
                )
            photos.append(str(json_of(response)["id"]))
        form = {
            f"attached_media[{i}]": json.dumps({"media_fbid": photo}, separators=(",", ":"))
            for i, photo in enumerate(photos)
        }
        message = delivery.fields.get("message")
        if message:
            form["message"] = str(message)
        response = self._call("POST", f"/{page_id}/feed", token, form, creates=True)
        if response.status_code != 200:
            raise meta.failure(
                response,
                "Facebook",
                sent=True,
                field="fileIds",
                permission=error_codes.PAGES_PERMISSION,
            )
        post_id = str(json_of(response)["id"])
        now = utcnow()
        return Published(
            post_id, f"https://www.facebook.com/{post_id}", now, items=_photos(photos, now)
        )

    def _reel(self, delivery: Delivery, media: Media, token: str, page_id: str) -> Published:
        """A reel, by the Reels Publishing API: an upload session (``POST
        /{page-id}/video_reels`` ``upload_phase=start``, answering ``video_id`` and
        ``upload_url``), the video fetched by Facebook from its signed link
        (``rupload.facebook.com``, the link in the ``file_url`` header), then ``upload_phase
        =finish`` with ``video_state=PUBLISHED`` and the message as ``description``, and
        the video's status awaited as for a video. Nothing shows before the finish, so
        only its failure may have published
        (https://developers.facebook.com/docs/video-api/guides/reels-publishing)."""
        video_id = self._video_session(f"/{page_id}/video_reels", media, token)
        form = {"upload_phase": "finish", "video_id": video_id, "video_state": "PUBLISHED"}
        if delivery.fields.get("message"):
            form["description"] = str(delivery.fields["message"])
        response = self._call("POST", f"/{page_id}/video_reels", token, form, creates=True)
        if response.status_code != 200:
            raise meta.failure(
                response,
                "Facebook",
                sent=True,
                field="fileId",
                permission=error_codes.PAGES_PERMISSION,
            )
        self._await_video(token, video_id)
        return Published(video_id, f"https://www.facebook.com/reel/{video_id}", utcnow())

    def _story(self, media: Media, token: str, page_id: str) -> Published:
        """A Page story (https://developers.facebook.com/docs/page-stories-api): a photo
        uploaded unpublished (``POST /{page-id}/photos`` ``published=false``), then
        ``POST /{page-id}/photo_stories`` with its ``photo_id``; a video through an
        upload session on ``/{page-id}/video_stories`` (start, Facebook fetching the
        signed link, finish). Either answers the story's ``post_id``. A story carries no
        message (neither edge takes one)."""
        if media.kind is MediaKind.IMAGE:
            link = self.media.url(media.file_id, media.storage_key, media.content_type)
            response = self._call(
                "POST", f"/{page_id}/photos", token, {"url": link, "published": "false"}
            )
            if response.status_code != 200:
                raise meta.failure(
                    response,
                    "Facebook",
                    sent=False,
                    field="fileId",
                    permission=error_codes.PAGES_PERMISSION,
                )
            photo_id = str(json_of(response)["id"])
            edge, form = "photo_stories", {"photo_id": photo_id}
        else:
            video_id = self._video_session(f"/{page_id}/video_stories", media, token)
            edge, form = "video_stories", {"upload_phase": "finish", "video_id": video_id}
        response = self._call("POST", f"/{page_id}/{edge}", token, form, creates=True)
        if response.status_code != 200:
            raise meta.failure(
                response,
                "Facebook",
                sent=True,
                field="fileId",
                permission=error_codes.PAGES_PERMISSION,
            )
        answer = json_of(response)
        post_id = str(answer.get("post_id") or "")
        if not post_id:
            raise PlatformUnavailable(
                "Facebook took the story but did not say its post_id",
                retry_after=60,
                sent=True,
            )
        # The story's post_id opens it as any Page post does; Meta's stories page names
        # no other URL for a story (not confirmed beyond that).
        return Published(post_id, f"https://www.facebook.com/{post_id}", utcnow())

    def _video_session(self, edge: str, media: Media, token: str) -> str:
        """An upload session on ``edge`` (``video_reels`` or ``video_stories``) and the
        video fetched into it by Facebook from its signed link: the session's
        ``video_id``. Nothing is published yet (the finish publishes), so a failure here
        is ``sent=False``. The upload host takes the token as ``Authorization: OAuth``
        and a hosted file's link as the ``file_url`` header (Reels Publishing API,
        "Upload a hosted file")."""
        response = self._call("POST", edge, token, {"upload_phase": "start"})
        if response.status_code != 200:
            raise meta.failure(
                response,
                "Facebook",
                sent=False,
                field="fileId",
                permission=error_codes.PAGES_PERMISSION,
            )
        session = json_of(response)
        video_id = str(session.get("video_id") or "")
        upload_url = str(session.get("upload_url") or "")
        if not (video_id and upload_url):
            raise PlatformUnavailable(
                "Facebook opened no upload session", retry_after=60, sent=False
            )
        link = self.media.url(media.file_id, media.storage_key, media.content_type)
        response = self.http.request(
            "POST", upload_url, headers={"Authorization": f"OAuth {token}", "file_url": link}
        )
        if response.status_code != 200 or json_of(response).get("success") is not True:
            said = (json_of(response).get("debug_info") or {}).get("message")
            raise PlatformRefused(
                f"Facebook could not fetch the video ({said or f'HTTP {response.status_code}'})",
                field="fileId",
            )
        return video_id

    def _await_video(self, token: str, video_id: str) -> None:
        deadline = time.monotonic() + self.video_wait_seconds
        while True:
            status = self._get(token, f"/{video_id}", {"fields": "status"}).get("status") or {}
            if status.get("video_status") == "ready":
                return
            if status.get("video_status") == "error":
                phase = status.get("processing_phase") or {}
                errors = phase.get("errors") or [{}]
                reason = errors[0].get("message") or "no reason given"
                raise PlatformRefused(
                    f"Facebook could not process the video ({reason})", field="fileId"
                )
            if time.monotonic() >= deadline:
                raise PlatformUnavailable(
                    "Facebook is still processing the video; its outcome is looked up later",
                    retry_after=60,
                    sent=True,
                )
            self._sleep(self.poll_seconds)

    def draft_post(self, account: Account, text: str) -> str:
        """An unpublished Page post (``published=false``): seen by the Page's admins
        only, for ``drivers check``."""
        token = self.tokens.access_token(account.connection_id)
        page_id = self._page_id(account.connection_id, token)
        response = self._call(
            "POST", f"/{page_id}/feed", token, {"message": text, "published": "false"}
        )
        if response.status_code != 200:
            raise meta.failure(
                response, "Facebook", sent=False, permission=error_codes.PAGES_PERMISSION
            )
        return str(json_of(response)["id"])

    def _comment(self, delivery: Delivery, post_id: str) -> Published:
        """A first comment, as the Page, on its post ``post_id``."""
        token = self.tokens.access_token(delivery.account.connection_id)
        message = {"message": str(delivery.fields["text"])}
        response = self._call("POST", f"/{post_id}/comments", token, message, creates=True)
        if response.status_code != 200:
            raise meta.failure(
                response,
                "Facebook",
                sent=True,
                field="text",
                permission=error_codes.PAGES_PERMISSION,
            )
        comment_id = str(json_of(response)["id"])
        comment = self._get(token, f"/{comment_id}", {"fields": "permalink_url,created_time"})
        return Published(
            comment_id,
            str(comment.get("permalink_url") or ""),
            parse_time(comment.get("created_time")) or utcnow(),
        )

    def _find_comment(self, delivery: Delivery, post_id: str, since: datetime) -> Published | None:
        token = self.tokens.access_token(delivery.account.connection_id)
        listed = self._get(
            token,
            f"/{post_id}/comments",
            {"fields": "id,message,created_time,permalink_url", "filter": "stream"},
        )
        wanted = str(delivery.fields.get("text") or "")
        for comment in listed.get("data") or []:
            made = parse_time(comment.get("created_time"))
            if made is not None and made >= since and (comment.get("message") or "") == wanted:
                return Published(str(comment["id"]), str(comment.get("permalink_url") or ""), made)
        return None

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        since = aware(sent_at) - CLOCK_SLACK
        if delivery.comment_on is not None:
            return self._find_comment(delivery, delivery.comment_on, since)
        token = self.tokens.access_token(delivery.account.connection_id)
        page_id = self._page_id(delivery.account.connection_id, token)
        if delivery.items:
            return self._find_multi_photo(delivery, token, page_id, since)
        if delivery.fields.get("format") == PostFormat.STORY:
            # A story has no message to know it by: the Page's stories edge lists each
            # with its time and kind only, so another story sent meanwhile would be
            # taken for this one. The outcome stays unknown rather than be guessed.
            raise LookupUnsupported(
                "Facebook lists a Page's stories with nothing to tell this one from "
                "another: whether it was published can only be seen on the Page"
            )
        assert delivery.media is not None
        if delivery.fields.get("format") == PostFormat.REEL:
            return self._find_reel(delivery, token, page_id, since)
        video = delivery.media.kind is MediaKind.VIDEO
        edge, text = ("videos", "description") if video else ("published_posts", "message")
        found = self._get(
            token,
            f"/{page_id}/{edge}",
            {"fields": f"id,{text},created_time", "since": str(int(since.timestamp()))},
        )
        wanted = delivery.fields.get("message") or ""
        for item in found.get("data") or []:
            made = parse_time(item.get("created_time"))
            if made is not None and made >= since and (item.get(text) or "") == wanted:
                item_id = str(item["id"])
                url = (
                    f"https://www.facebook.com/{page_id}/videos/{item_id}/"
                    if video
                    else f"https://www.facebook.com/{item_id}"
                )
                return Published(item_id, url, made)
        return None

    def _find_reel(
        self, delivery: Delivery, token: str, page_id: str, since: datetime
    ) -> Published | None:
        """A reel among the Page's reels (``GET /{page-id}/video_reels``, Reels
        Publishing API) since the send, by its description."""
        found = self._get(
            token,
            f"/{page_id}/video_reels",
            {"fields": "id,description,created_time", "since": str(int(since.timestamp()))},
        )
        wanted = delivery.fields.get("message") or ""
        for reel in found.get("data") or []:
            made = parse_time(reel.get("created_time"))
            if made is not None and made >= since and (reel.get("description") or "") == wanted:
                return Published(
                    str(reel["id"]), f"https://www.facebook.com/reel/{reel['id']}", made
                )
        return None

    def _find_multi_photo(
        self, delivery: Delivery, token: str, page_id: str, since: datetime
    ) -> Published | None:
        """A multi-photo post among the Page's posts since the send, by its message,
        whose attachment holds as many photos as were sent: the photos its items."""
        found = self._get(
            token,
            f"/{page_id}/published_posts",
            {"fields": "id,message,created_time", "since": str(int(since.timestamp()))},
        )
        wanted = delivery.fields.get("message") or ""
        for post in found.get("data") or []:
            made = parse_time(post.get("created_time"))
            if made is None or made < since or (post.get("message") or "") != wanted:
                continue
            post_id = str(post["id"])
            attached = self._get(token, f"/{post_id}/attachments", {"fields": "subattachments"})
            photos = [
                str((sub.get("target") or {}).get("id"))
                for attachment in attached.get("data") or []
                for sub in (attachment.get("subattachments") or {}).get("data") or []
                if (sub.get("target") or {}).get("id")
            ]
            if len(photos) == len(delivery.items):
                return Published(
                    post_id,
                    f"https://www.facebook.com/{post_id}",
                    made,
                    items=_photos(photos, made),
                )
        return None

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        raise PlatformRefused("page_social posts take no custom thumbnail")

    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """Reactions as likes, comments and shares, and a Page post's impressions from
        its insights (module docstring); views, saves and clicks are not read: None."""
        token = self.tokens.access_token(account.connection_id)
        page_post = "_" in platform_post_id  # a video is known by its own id
        fields = ("shares", *COUNTS) if page_post else COUNTS
        response = self._call("GET", f"/{platform_post_id}", token, {"fields": ",".join(fields)})
        if response.status_code != 200:
            raise meta_insights.metrics_failure(
                response, "Facebook", permission="pages_read_engagement"
            )
        post = json_of(response)
        return PostMetrics(
            impressions=self._impressions(token, platform_post_id) if page_post else None,
            likes=_summary_count(post, "reactions"),
            comments=_summary_count(post, "comments"),
            shares=_shares(post),
        )

    def _impressions(self, token: str, post_id: str) -> int | None:
        """The post's ``post_media_view``, or None where Meta gives no insights of it
        (module docstring)."""
        response = self._call("GET", f"/{post_id}/insights", token, {"metric": IMPRESSIONS_METRIC})
        if response.status_code == 200:
            return meta_insights.insight_values(json_of(response)).get(IMPRESSIONS_METRIC)
        error = meta.error_of(response)
        if TOO_FEW_LIKES in (error.get("code"), error.get("error_subcode")):
            return None  # a Page under 100 likes: Meta counts none of its posts' views
        failure = meta_insights.metrics_failure(response, "Facebook", permission=INSIGHTS_SCOPE)
        if isinstance(failure, MetricsUnsupported):
            return None
        raise failure

    # --- helpers ---------------------------------------------------------------
    def _token(self, form: dict[str, str]) -> TokenSet:
        response = meta.token_form(self.http, f"{self.graph}/oauth/access_token", form)
        if response.status_code != 200:
            raise TokenRefused(
                str(meta.error_of(response).get("type") or f"http_{response.status_code}")
            )
        return token_set_of(response)

    def _page_id(self, connection_id: str, token: str) -> str:
        if connection_id not in self._pages:
            self._pages[connection_id] = str(self._get(token, "/me", {"fields": "id"})["id"])
        return self._pages[connection_id]

    def _call(
        self, method: str, path: str, token: str, params: dict[str, str], *, creates: bool = False
    ) -> httpx.Response:
        return meta.call(
            self.http, ACCESS, method, f"{self.graph}{path}", token, params, creates=creates
        )

    def _get(self, token: str, path: str, params: dict[str, str]) -> dict[str, Any]:
        response = self._call("GET", path, token, params)
        if response.status_code != 200:
            raise meta.failure(
                response, "Facebook", sent=True, permission=error_codes.PAGES_PERMISSION
            )
        return json_of(response)


def _summary_count(post: dict[str, Any], edge: str) -> int | None:
    """``{edge: {"summary": {"total_count": n}}}`` of a field-expanded read."""
    found = post.get(edge)
    summary = found.get("summary") if isinstance(found, dict) else None
    count = summary.get("total_count") if isinstance(summary, dict) else None
    return count if isinstance(count, int) else None


def _shares(post: dict[str, Any]) -> int | None:
    shares = post.get("shares")
    count = shares.get("count") if isinstance(shares, dict) else None
    return count if isinstance(count, int) else None


def _photos(photo_ids: list[str], at: datetime) -> tuple[Published, ...]:
    """A multi-photo post's photos as its items, each at its own photo page."""
    return tuple(
        Published(photo, f"https://www.facebook.com/photo/?fbid={photo}", at) for photo in photo_ids
    )


def _alt_text(photo: Media) -> dict[str, str]:
    """A photo's alt text as Facebook takes it: ``alt_text_custom`` on the photo's
    upload ("Accessible alternative description for an image", the Photo reference's
    creating parameters, https://developers.facebook.com/docs/graph-api/reference/photo/),
    so on a feed photo and on each photo of a multi-photo post; ``/feed`` takes none."""
    return {"alt_text_custom": photo.alt_text} if photo.alt_text is not None else {}
