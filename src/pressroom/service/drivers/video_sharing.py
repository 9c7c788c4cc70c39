"""video_sharing on YouTube: the Data API v3, a resumable upload streamed from storage.

Set ``PRESSROOM_VIDEO_SHARING_CLIENT_ID`` and ``_CLIENT_SECRET`` from a Google Cloud OAuth
client of type "Web application" in a project with the YouTube Data API v3 enabled, with
``{PRESSROOM_BASE_URL}/oauth/callback/video_sharing`` as an authorized redirect URI.

What the driver does, and the pages it follows (read 2026-11-25):

- consent at ``https://accounts.google.com/o/oauth2/v2/auth`` with ``youtube.upload``,
  ``youtube.readonly`` and ``youtube.force-ssl`` (a first comment's only),
  ``access_type=offline`` and ``prompt=consent`` (so Google issues
  a refresh token) and PKCE; code and refresh at ``POST https://oauth2.googleapis.com/token``
  (https://developers.google.com/identity/protocols/oauth2/web-server). A refresh
  answer carries no new refresh token: the one kept stays;
- profile: ``GET /youtube/v3/channels?part=snippet,status&mine=true``; a channel whose
  ``status.longUploadsStatus`` is ``allowed`` is verified, which custom thumbnails need
  (https://developers.google.com/youtube/v3/docs/channels/list);
- publish: ``videos.insert`` as a resumable upload: a session is opened with the
  metadata (``snippet``, ``status``: the privacy asked, and ``selfDeclaredMadeForKids``
  only when the owner declared it), then the bytes are PUT from storage in chunks of
  ``CHUNK_BYTES`` (a multiple of 256 KiB, as the protocol requires) with
  ``Content-Range``; after a failed chunk the session is asked where it stands
  (``Content-Range: bytes */size``, answered 308 with ``Range``) and the upload resumes
  there (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol).
  Requests are checked against the discovery document google-api-python-client ships;
- thumbnails: ``thumbnails.set``, the image's bytes as the body; the 403 saying the
  user may not set custom thumbnails means an unverified channel
  (``channel_not_verified``), while its other 403s (a quota, a grant without the scope,
  a video the thumbnail cannot go on) keep their own meaning
  (https://developers.google.com/youtube/v3/docs/thumbnails/set);
- a first comment (``Delivery.comment_on``): ``commentThreads.insert`` (``part=snippet``)
  with ``snippet.videoId``, ``snippet.channelId`` (the channel's, which the reference
  page lists as required) and ``snippet.topLevelComment.snippet.textOriginal``; it takes
  ``youtube.force-ssl``, the one scope the discovery document gives the method. Its URL
  is the video's watch page with ``lc=`` the thread's id, as YouTube links a comment
  (https://developers.google.com/youtube/v3/docs/commentThreads/insert). A comment
  whose outcome is unknown is looked up among the video's comment threads
  (``commentThreads.list``, newest first) by its text since the send;
- look-up of an unknown outcome: the channel's uploads playlist
  (``channels.list`` ``contentDetails.relatedPlaylists.uploads``, then
  ``playlistItems.list``), a video since the send with the same title; one quota unit
  per call where ``search.list`` costs a hundred
  (https://developers.google.com/youtube/v3/docs/playlistItems/list).

After the upload, ``videos.list`` (``status,processingDetails``) is polled until YouTube
has processed the video, for up to two minutes; the privacy and audience YouTube reports
there (or in the insert answer) are the answer's ``appliedPrivacyStatus`` and
``appliedMadeForKids``. A refusal names the body's field where YouTube's
``errors[].reason`` does (``invalidTitle``, ``invalidDescription``). A video it rejects
or cannot process (``uploadStatus`` ``rejected``/``failed``, ``processingStatus``
``failed``/``terminated``) is refused with its ``rejectionReason``, ``failureReason`` or
``processingFailureReason``. A long video still processing after the wait counts as
published: it exists, with its id and URL, and YouTube finishes it on its own.

Metrics (``fetch_metrics``): ``videos.list`` with ``part=statistics`` and the video's id,
under ``youtube.readonly``, already asked for at consent
(https://developers.google.com/youtube/v3/docs/videos/list): ``viewCount``,
``likeCount`` and ``commentCount`` (strings in the answer; ``likeCount`` left out when
the owner hides it, ``dislikeCount`` private since 2021, ``favoriteCount`` always 0, so
neither is read) (https://developers.google.com/youtube/v3/docs/videos#statistics). A
video YouTube no longer has is answered with no items: ``MetricsUnsupported``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import httpx

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service.db.base import utcnow
from pressroom.service.drivers.answers import aware, json_of, parse_time
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    MediaSource,
    MetricsUnsupported,
    PermissionMissing,
    PlatformRateLimited,
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
    check_thumbnail_before_sending,
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
from pressroom.service.drivers.oauth2 import code_challenge, consent_url, token_call
from pressroom.service.drivers.tokens import TokenSource

AUTHORIZE_URL = "https://accounts.google.com/o/oauth2/v2/auth"
TOKEN_URL = "https://oauth2.googleapis.com/token"
API = "https://www.googleapis.com/youtube/v3"
UPLOAD_API = "https://www.googleapis.com/upload/youtube/v3"
TOKENINFO_URL = "https://www.googleapis.com/oauth2/v2/tokeninfo"
"""Google's token information (``oauth2.tokeninfo`` in the discovery document
google-api-python-client ships, ``oauth2.v2``): the scopes a token was granted."""
UPLOAD_SCOPE = "https://www.googleapis.com/auth/youtube.upload"
COMMENT_SCOPE = "https://www.googleapis.com/auth/youtube.force-ssl"
SCOPES = (UPLOAD_SCOPE, "https://www.googleapis.com/auth/youtube.readonly", COMMENT_SCOPE)
PUBLISH_SCOPES = (UPLOAD_SCOPE,)
"""``videos.insert`` and ``thumbnails.set`` take ``youtube.upload`` (the discovery
document's scopes per method); the read-only scope serves the channel and the look-up."""
COMMENT_SCOPES = (COMMENT_SCOPE,)
"""``commentThreads.insert`` and ``.list`` take ``youtube.force-ssl`` only (the
discovery document): a first comment needs it, a post does not."""
UPLOAD_QUANTUM = 256 * 1024
CHUNK_BYTES = 32 * UPLOAD_QUANTUM
"""8 MiB per PUT: in memory at once, and a multiple of 256 KiB as resumable uploads need."""
CHUNK_ATTEMPTS = 4
"""Tries of one chunk (asking the session where it stands between them)."""
CLOCK_SLACK = timedelta(minutes=2)
PROCESSING_WAIT_SECONDS = 120.0
POLL_SECONDS = 5.0
QUOTA_REASONS = frozenset(
    {"quotaExceeded", "rateLimitExceeded", "userRateLimitExceeded", "uploadLimitExceeded"}
)
"""The project's daily quota, the per-user rates, and the channel's own upload limit
("The user has exceeded the number of videos they may upload"): limits that pass, not
refusals of the video (https://developers.google.com/youtube/v3/docs/errors)."""
REFUSED_FIELDS = {
    "invalidTitle": "title",
    "invalidDescription": "description",
    "commentTextRequired": "text",
    "commentTextTooLong": "text",
}
"""``errors[].reason`` of a 400 → the publish body's field it refuses (same page; a first
comment's text is its ``text``, commentThreads.insert's errors)."""
UNSENT_FIELDS = {"invalidTags": "tags", "invalidCategoryId": "category"}
"""Refusals of fields the publish body has none of (pressroom sends no tags and no
category): named in the message, with no body field to point at."""
METRICS_REQUESTS_PER_HOUR = 104
"""A project's Data API quota is 10,000 units a day and ``videos.list`` costs 1
(https://developers.google.com/youtube/v3/getting-started#quota,
https://developers.google.com/youtube/v3/determine_quota_cost); uploads draw on the same
quota (``videos.insert`` costs far more), so metrics keep to a quarter of it:
2,500 a day, 104 an hour."""
_RANGE = re.compile(r"bytes=0-(\d+)")


class YouTubeDriver:
    platform = Platform.VIDEO_SHARING
    refresh_ahead = timedelta(minutes=10)

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        tokens: TokenSource,
        http: NetworkClient,
        media: MediaSource,
        *,
        chunk_bytes: int = CHUNK_BYTES,
        processing_wait_seconds: float = PROCESSING_WAIT_SECONDS,
        poll_seconds: float = POLL_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if chunk_bytes <= 0 or chunk_bytes % UPLOAD_QUANTUM:
            raise ValueError("resumable upload chunks are multiples of 256 KiB")
        self.client_id = client_id
        self._client_secret = client_secret
        self.tokens = tokens
        self.http = http
        self.media = media
        self.chunk_bytes = chunk_bytes
        self.processing_wait_seconds = processing_wait_seconds
        self.poll_seconds = poll_seconds
        self._sleep = sleep

    # --- connect ---------------------------------------------------------------
    def authorization_url(self, *, redirect_uri: str, state: str, code_verifier: str) -> str:
        return consent_url(
            AUTHORIZE_URL,
            {
                "client_id": self.client_id,
                "redirect_uri": redirect_uri,
                "response_type": "code",
                "scope": " ".join(SCOPES),
                "access_type": "offline",
                "prompt": "consent",
                "include_granted_scopes": "true",
                "state": state,
                "code_challenge": code_challenge(code_verifier),
                "code_challenge_method": "S256",
            },
        )

    def exchange_code(self, *, code: str, redirect_uri: str, code_verifier: str) -> TokenSet:
        form = {
            "code": code,
            "client_id": self.client_id,
            "client_secret": self._client_secret,
            "redirect_uri": redirect_uri,
            "grant_type": "authorization_code",
            "code_verifier": code_verifier,
        }
        return token_call(self.http, TOKEN_URL, form)

    def refresh(self, refresh_token: str) -> TokenSet:
        form = {
            "client_id": self.client_id,
            "client_secret": self._client_secret,
            "refresh_token": refresh_token,
            "grant_type": "refresh_token",
        }
        return token_call(self.http, TOKEN_URL, form)

    def fetch_profile(self, tokens: TokenSet) -> Profile:
        channel = self._channel(tokens.access_token, "snippet,status")
        if channel is None:
            raise TokenRefused("no_youtube_channel")
        snippet, status = channel.get("snippet") or {}, channel.get("status") or {}
        title = str(snippet.get("title") or channel["id"])
        return Profile(
            name=str(snippet.get("customUrl") or title),
            display_name=title,
            verified=status.get("longUploadsStatus") == "allowed",
        )

    def inspect(self, account: Account) -> Inspection:
        """The token's scopes from Google's ``tokeninfo`` (the one call whose token goes
        in the query, where Google's description places it; pressroom's logs never
        carry a query), and the channel's status from ``channels.list``."""
        token = self.tokens.access_token(account.connection_id)
        response = self.http.request(
            "POST", TOKENINFO_URL, params={"access_token": token}, read=True
        )
        if response.status_code == 400:
            raise AccessRevoked("Google no longer knows the channel's token: reconnect it")
        if response.status_code != 200:
            raise _unavailable(response, "describe the channel's token")
        granted = str(json_of(response).get("scope") or "").split()
        scopes = scope_states(SCOPES, granted=granted, missing=set(SCOPES) - set(granted))
        source = "Google's tokeninfo"
        channel = self._channel(token, "snippet,status")
        if channel is None:
            raise AccessRevoked("the Google account has no YouTube channel")
        snippet, status = channel.get("snippet") or {}, channel.get("status") or {}
        long_uploads = str(status.get("longUploadsStatus") or "not said")
        verified = long_uploads == "allowed"
        for_kids = status.get("madeForKids") is True
        kind = "channel made for kids" if for_kids else "channel"
        return Inspection(
            network="YouTube",
            account=str(snippet.get("customUrl") or snippet.get("title") or channel["id"]),
            scopes=scopes,
            scopes_source=source,
            account_type=kind,
            audit=f"longUploadsStatus {long_uploads}",
            findings=(
                scope_finding(scopes, PUBLISH_SCOPES, source),
                Finding(
                    "account type",
                    kind,
                    "the channel is set as made for children, and YouTube treats its "
                    "videos so (no comments, no personalised ads)"
                    if for_kids
                    else "each video's audience is the owner's madeForKids, or the channel's setting",
                    Standing.WARNING if for_kids else Standing.OK,
                ),
                Finding(
                    "verification",
                    f"longUploadsStatus {long_uploads}",
                    "verified: custom thumbnails and videos over 15 minutes are allowed"
                    if verified
                    else "not verified: a custom thumbnail is refused (403 channel_not_verified) "
                    "and so is a video over 15 minutes; verify the channel at "
                    "https://www.youtube.com/verify",
                    Standing.OK if verified else Standing.WARNING,
                ),
                Finding(
                    "audit",
                    "Google does not tell an app whether its API project passed YouTube's audit",
                    "uploads from an unverified project may be made private (YouTube's pages "
                    "disagree): each answer's appliedPrivacyStatus says what YouTube applied",
                    Standing.UNKNOWN,
                ),
                quota_finding("YouTube", None),
            ),
        )

    # --- publish ---------------------------------------------------------------
    def publish(self, delivery: Delivery) -> Published:
        check_before_sending(delivery)
        if delivery.comment_on is not None:
            return self._comment(delivery, delivery.comment_on)
        media = delivery.media
        assert media is not None and media.size is not None  # a ready video
        token = self.tokens.access_token(delivery.account.connection_id)
        session = self._open_session(token, delivery, media.content_type, media.size)
        video = self._send_bytes(token, session, media.storage_key, media.size)
        video_id = str(video["id"])
        _refuse_if_failed(video)
        status = {**(video.get("status") or {}), **(self._await_processing(token, video_id) or {})}
        published = parse_time((video.get("snippet") or {}).get("publishedAt"))
        return Published(
            video_id, _watch_url(video_id), published or utcnow(), extra=_as_applied(status)
        )

    def _await_processing(self, token: str, video_id: str) -> dict[str, Any] | None:
        """Poll ``videos.list`` until YouTube has processed the video or failed it (its
        reason is the refusal); the video's last ``status`` read, if any. A long video
        may take longer than ``processing_wait``: it exists, with its id and URL, so the
        post counts as published then, and YouTube finishes processing it on its own."""
        deadline = time.monotonic() + self.processing_wait_seconds
        status: dict[str, Any] | None = None
        while time.monotonic() < deadline:
            response = self.http.request(
                "GET",
                f"{API}/videos",
                token=token,
                params={"part": "status,processingDetails", "id": video_id},
            )
            if response.status_code != 200:
                break  # it was uploaded: a status we cannot read does not unmake it
            items = json_of(response).get("items") or []
            if not items:
                break
            _refuse_if_failed(items[0])
            status = items[0].get("status") or status
            processing = (items[0].get("processingDetails") or {}).get("processingStatus")
            upload = (status or {}).get("uploadStatus")
            if upload == "processed" or processing == "succeeded":
                break
            self._sleep(self.poll_seconds)
        return status

    def _comment(self, delivery: Delivery, video_id: str) -> Published:
        """A first comment by the channel on its video ``video_id``."""
        token = self.tokens.access_token(delivery.account.connection_id)
        channel = self._channel(token, "id")
        if channel is None:
            raise AccessRevoked("the Google account has no YouTube channel")
        thread = {
            "snippet": {
                "channelId": str(channel["id"]),
                "videoId": video_id,
                "topLevelComment": {"snippet": {"textOriginal": str(delivery.fields["text"])}},
            }
        }
        response = self.http.request(
            "POST",
            f"{API}/commentThreads",
            token=token,
            creates=True,
            params={"part": "snippet"},
            json=thread,
        )
        if response.status_code != 200:
            raise failure_of(response, sent=True)
        made = json_of(response)
        if not made.get("id"):
            raise PlatformUnavailable(
                "YouTube took the comment but did not say its id", retry_after=60, sent=True
            )
        return _comment_of(made, video_id, utcnow())

    def _find_comment(self, delivery: Delivery, video_id: str, since: datetime) -> Published | None:
        token = self.tokens.access_token(delivery.account.connection_id)
        response = self.http.request(
            "GET",
            f"{API}/commentThreads",
            token=token,
            params={
                "part": "snippet",
                "videoId": video_id,
                "order": "time",
                "textFormat": "plainText",
                "maxResults": "50",
            },
        )
        if response.status_code != 200:
            raise _unavailable(response, "list the video's comments")
        wanted = str(delivery.fields.get("text") or "")
        for thread in json_of(response).get("items") or []:
            comment = _top_comment(thread)
            made = parse_time(comment.get("publishedAt"))
            if made is not None and made >= since and comment.get("textOriginal") == wanted:
                return _comment_of(thread, video_id, made)
        return None

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        if delivery.comment_on is not None:
            return self._find_comment(delivery, delivery.comment_on, aware(sent_at) - CLOCK_SLACK)
        token = self.tokens.access_token(delivery.account.connection_id)
        channel = self._channel(token, "contentDetails")
        if channel is None:
            return None
        uploads = channel["contentDetails"]["relatedPlaylists"]["uploads"]
        response = self.http.request(
            "GET",
            f"{API}/playlistItems",
            token=token,
            params={"part": "snippet,status", "playlistId": uploads, "maxResults": "50"},
        )
        if response.status_code != 200:
            raise _unavailable(response, "list the channel's uploads")
        since = aware(sent_at) - CLOCK_SLACK
        for item in json_of(response).get("items") or []:
            snippet = item.get("snippet") or {}
            made = parse_time(snippet.get("publishedAt"))
            if (
                made is not None
                and made >= since
                and snippet.get("title") == delivery.fields.get("title")
            ):
                video_id = str((snippet.get("resourceId") or {}).get("videoId"))
                applied = _as_applied(item.get("status") or {})
                return Published(video_id, _watch_url(video_id), made, extra=applied)
        return None

    def fetch_metrics(self, account: Account, platform_post_id: str) -> PostMetrics:
        """The video's ``statistics`` (module docstring): views, likes, comments;
        YouTube reports no impressions, shares, saves or clicks there: None."""
        token = self.tokens.access_token(account.connection_id)
        response = self.http.request(
            "GET",
            f"{API}/videos",
            token=token,
            params={"part": "statistics", "id": platform_post_id},
        )
        if response.status_code != 200:
            failure = failure_of(response, sent=False)
            if isinstance(failure, PlatformRefused):
                raise MetricsUnsupported(f"YouTube will not give the video's figures ({failure})")
            raise failure
        items = json_of(response).get("items") or []
        if not items:
            raise MetricsUnsupported("deleted on the network: YouTube has no such video")
        statistics = items[0].get("statistics") or {}
        return PostMetrics(
            views=_statistic(statistics, "viewCount"),
            likes=_statistic(statistics, "likeCount"),
            comments=_statistic(statistics, "commentCount"),
        )

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        check_thumbnail_before_sending(self.platform, change)
        image = change.image
        assert image.size is not None
        token = self.tokens.access_token(change.account.connection_id)
        body = b"".join(self.media.read(image.storage_key, 0, image.size))
        response = self.http.request(
            "POST",
            f"{UPLOAD_API}/thumbnails/set",
            token=token,
            params={"videoId": change.video_id, "uploadType": "media"},
            headers={"Content-Type": image.content_type},
            content=body,
        )
        if response.status_code == 403:
            raise _thumbnail_refusal(response)
        if response.status_code == 404:
            raise PlatformRefused("YouTube has no such video on this channel", field="videoId")
        if response.status_code != 200:
            raise failure_of(response, sent=True)
        sizes = (json_of(response).get("items") or [{}])[0]
        best: dict[str, Any] = next(
            (sizes[k] for k in ("maxres", "high", "medium", "default") if k in sizes), {}
        )
        return ThumbnailSet(change.video_id, str(best.get("url", "")), utcnow())

    # --- the resumable upload --------------------------------------------------
    def _open_session(self, token: str, delivery: Delivery, content_type: str, size: int) -> str:
        fields = delivery.fields
        snippet: dict[str, Any] = {"title": fields["title"]}
        if fields.get("description"):
            snippet["description"] = fields["description"]
        status: dict[str, Any] = {"privacyStatus": fields.get("privacyStatus", "public")}
        if fields.get("madeForKids") is not None:
            # The owner's own declaration (COPPA); without it YouTube applies the
            # channel's audience setting rather than one pressroom would make for them.
            status["selfDeclaredMadeForKids"] = bool(fields["madeForKids"])
        metadata = {"snippet": snippet, "status": status}
        response = self.http.request(
            "POST",
            f"{UPLOAD_API}/videos",
            token=token,
            params={"uploadType": "resumable", "part": "snippet,status"},
            headers={
                "X-Upload-Content-Length": str(size),
                "X-Upload-Content-Type": content_type,
            },
            json=metadata,
        )
        location = response.headers.get("Location")
        if response.status_code != 200 or not location:
            raise failure_of(response, sent=False)  # no video exists before the bytes
        return str(location)

    def _send_bytes(self, token: str, session: str, key: str, size: int) -> dict[str, Any]:
        """PUT the file chunk by chunk; the video resource once the last one is in.

        A chunk that fails (a 5xx, a broken connection) is not simply sent again: the
        session is asked how much it holds, and the upload goes on from there."""
        offset, failures = 0, 0
        while True:
            stop = min(offset + self.chunk_bytes, size)
            last = stop == size
            try:
                if failures:
                    response = self._where_it_stands(token, session, size, last=last)
                else:
                    response = self.http.request(
                        "PUT",
                        session,
                        token=token,
                        creates=last,
                        headers={"Content-Range": f"bytes {offset}-{stop - 1}/{size}"},
                        content=b"".join(self.media.read(key, offset, stop)),
                    )
            except PlatformRateLimited:
                raise
            except PlatformUnavailable:
                failures += 1
                if failures >= CHUNK_ATTEMPTS:
                    raise
                continue
            if response.status_code in (200, 201):
                video: dict[str, Any] = json_of(response)
                return video
            if response.status_code != 308:
                raise failure_of(response, sent=last)
            offset, failures = _received(response), 0

    def _where_it_stands(
        self, token: str, session: str, size: int, *, last: bool
    ) -> httpx.Response:
        """Ask an interrupted session how much it has (308 with ``Range``), or for the
        video when the upload completed after all."""
        return self.http.request(
            "PUT",
            session,
            token=token,
            creates=last,
            headers={"Content-Range": f"bytes */{size}"},
            content=b"",
        )

    def _channel(self, token: str, parts: str) -> dict[str, Any] | None:
        response = self.http.request(
            "GET", f"{API}/channels", token=token, params={"part": parts, "mine": "true"}
        )
        if response.status_code != 200:
            raise _unavailable(response, "read the channel")
        items = json_of(response).get("items") or []
        return dict(items[0]) if items else None


def _comment_url(video_id: str, thread_id: str) -> str:
    return f"{_watch_url(video_id)}&lc={thread_id}"


def _top_comment(thread: dict[str, Any]) -> dict[str, Any]:
    """A comment thread's own comment's snippet (``snippet.topLevelComment.snippet``)."""
    found = ((thread.get("snippet") or {}).get("topLevelComment") or {}).get("snippet")
    return found if isinstance(found, dict) else {}


def _comment_of(thread: dict[str, Any], video_id: str, otherwise: datetime) -> Published:
    """A comment thread as YouTube answered it, published when it says (else
    ``otherwise``)."""
    thread_id = str(thread["id"])
    made = parse_time(_top_comment(thread).get("publishedAt")) or otherwise
    return Published(thread_id, _comment_url(video_id, thread_id), made)


def _refuse_if_failed(video: dict[str, Any]) -> None:
    """A video YouTube rejected or could not process is refused with YouTube's reason."""
    status = video.get("status") or {}
    details = video.get("processingDetails") or {}
    if status.get("uploadStatus") in ("rejected", "failed", "deleted") or details.get(
        "processingStatus"
    ) in ("failed", "terminated"):
        reason = (
            status.get("rejectionReason")
            or status.get("failureReason")
            or details.get("processingFailureReason")
            or "no reason given"
        )
        raise PlatformRefused(f"YouTube refused the video ({reason})", field="fileId")


def _as_applied(status: dict[str, Any]) -> dict[str, Any]:
    """What YouTube says it applied, for the publish answer. The privacy may differ from
    the one asked: YouTube's pages disagree on whether uploads from unverified API
    projects are locked private (the discovery document's ``privacyStatus`` says they
    are not; the videos resource's banner and Help Center answer 7300965 say they are),
    and the account's settings may make an upload private; either way the answer shows
    it. ``madeForKids`` is YouTube's own verdict on the audience."""
    privacy, for_kids = status.get("privacyStatus"), status.get("madeForKids")
    return {
        "appliedPrivacyStatus": privacy if isinstance(privacy, str) else None,
        "appliedMadeForKids": for_kids if isinstance(for_kids, bool) else None,
    }


def _received(response: httpx.Response) -> int:
    """Where the next chunk starts, from a 308's ``Range: bytes=0-N`` (none: nothing yet)."""
    found = _RANGE.fullmatch(response.headers.get("Range", ""))
    return int(found.group(1)) + 1 if found else 0


def _statistic(statistics: dict[str, Any], name: str) -> int | None:
    """A count of ``statistics``: YouTube sends them as decimal strings (uint64)."""
    value = statistics.get(name)
    return int(value) if isinstance(value, str | int) and str(value).isdigit() else None


def _watch_url(video_id: str) -> str:
    return f"https://www.youtube.com/watch?v={video_id}"


def _error(response: httpx.Response) -> dict[str, Any]:
    error = json_of(response).get("error")
    return error if isinstance(error, dict) else {}


def _message(response: httpx.Response) -> str:
    return str(_error(response).get("message") or f"HTTP {response.status_code}")


def _reasons(response: httpx.Response) -> set[str]:
    return {
        str(e.get("reason")) for e in _error(response).get("errors") or [] if isinstance(e, dict)
    }


def failure_of(response: httpx.Response, *, sent: bool) -> Exception:
    status, reasons = response.status_code, _reasons(response)
    if status in (400, 403) and reasons & QUOTA_REASONS:
        return PlatformRateLimited(
            f"YouTube's limit is reached ({', '.join(sorted(reasons & QUOTA_REASONS))}: "
            f"{_message(response)})",
            retry_after=3600,
        )
    if status == 403 and "youtubeSignupRequired" in reasons:
        return AccessRevoked("the Google account has no YouTube channel")
    if status == 403 and "insufficientPermissions" in reasons:
        return AccessRevoked(
            "the channel's grant lacks a permission this needs: reconnect it and allow "
            f"every permission asked ({_message(response)})"
        )
    if status in (400, 403):
        field = next((REFUSED_FIELDS[r] for r in sorted(reasons) if r in REFUSED_FIELDS), None)
        unsent = [UNSENT_FIELDS[r] for r in sorted(reasons) if r in UNSENT_FIELDS]
        about = f" (the video's {', '.join(unsent)}, which this post does not set)"
        return PlatformRefused(
            f"YouTube answered {', '.join(sorted(reasons)) or status}: "
            f"{_message(response)}{about if unsent else ''}",
            field=field,
        )
    return PlatformUnavailable(
        f"YouTube answered {status}: {_message(response)}", retry_after=30, sent=sent
    )


NOT_VERIFIED = "doesn't have permissions to upload and set custom video thumbnails"
"""thumbnails.set's 403 for a channel that may not use custom thumbnails (unverified).
Its other 403 has the same reason, ``forbidden``, and says "The thumbnail can't be set
for the specified video": only the words tell them apart
(https://developers.google.com/youtube/v3/docs/thumbnails/set#errors)."""


def _thumbnail_refusal(response: httpx.Response) -> Exception:
    """A 403 from thumbnails.set: the unverified channel is ``channel_not_verified``; a
    quota, a grant without the scope or a video the thumbnail cannot go on are what
    they are, and leave the channel's verification alone."""
    said = " ".join(
        [_message(response)]
        + [
            str(e.get("message", ""))
            for e in _error(response).get("errors") or []
            if isinstance(e, dict)
        ]
    )
    reasons = _reasons(response)
    if "forbidden" in reasons and NOT_VERIFIED in said.replace("’", "'").lower():
        return PermissionMissing(
            error_codes.CHANNEL_NOT_VERIFIED,
            f"YouTube does not let this channel set custom thumbnails ({_message(response)}).",
        )
    failure = failure_of(response, sent=True)
    if isinstance(failure, PlatformRefused) and failure.field is None:
        failure.field = "videoId"  # "The thumbnail can't be set for the specified video."
    return failure


def _unavailable(response: httpx.Response, doing: str) -> PlatformUnavailable:
    return PlatformUnavailable(
        f"YouTube could not {doing} ({response.status_code}: {_message(response)})",
        retry_after=60,
        sent=True,
    )
