"""The video_sharing driver against YouTube's documented API (respx replays its answers;
every request of every test is also held to YouTube's contract, built from the discovery
document: ``tests/drivers/contracts/youtube.py``).

Pages read 2026-11-25:

- OAuth 2.0 for web server apps: https://developers.google.com/identity/protocols/oauth2/web-server
- Resumable uploads: https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol
- videos.insert: https://developers.google.com/youtube/v3/docs/videos/insert
- thumbnails.set: https://developers.google.com/youtube/v3/docs/thumbnails/set
- channels.list: https://developers.google.com/youtube/v3/docs/channels/list
- playlistItems.list: https://developers.google.com/youtube/v3/docs/playlistItems/list
- Errors: https://developers.google.com/youtube/v3/docs/errors
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx

from pressroom.platforms import MediaKind, Platform
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    Media,
    MetricsDriver,
    MetricsUnsupported,
    PermissionMissing,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    PostMetrics,
    ThumbnailChange,
    TokenRefused,
    TokenSet,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import ScopeState, Standing
from pressroom.service.drivers.video_sharing import UPLOAD_QUANTUM, YouTubeDriver
from tests.drivers.contract import Contract, calls_read_as, held_to
from tests.drivers.contracts import youtube

CLIENT_ID = "1234-abc.apps.googleusercontent.com"
CLIENT_SECRET = "GOCSPX-secret"
CALLBACK = "https://press.example/oauth/callback/video_sharing"
SESSION = (
    "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=xa298sd_f"
)
CHUNK = UPLOAD_QUANTUM  # small chunks, so a short file takes several
SIZE = 2 * CHUNK + 1000
VIDEO_BYTES = bytes(range(256)) * (SIZE // 256) + bytes(SIZE % 256)
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "ya29.token"


class Stored:
    """The storage a driver reads from: byte ranges, and a count of bytes read."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.reads: list[tuple[int, int]] = []

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        self.reads.append((start, stop))
        yield self.data[start:stop]

    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        raise AssertionError("YouTube takes uploads, not links")


def video_resource(
    video_id: str = "dQw4w9WgXcQ", upload_status: str = "uploaded"
) -> dict[str, object]:
    return {
        "kind": "youtube#video",
        "etag": "etag",
        "id": video_id,
        "snippet": {"publishedAt": "2026-11-25T12:00:04Z", "title": "Launch", "channelId": "UC1"},
        "status": {"uploadStatus": upload_status, "privacyStatus": "unlisted"},
    }


@pytest.fixture
def google() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_mocked=True, assert_all_called=True) as router:
        yield router


@pytest.fixture
def stored() -> Stored:
    return Stored(VIDEO_BYTES)


@pytest.fixture
def driver(stored: Stored) -> Iterator[YouTubeDriver]:
    http = NetworkClient(Platform.VIDEO_SHARING, timeout_seconds=5, backoff_seconds=0)
    yield YouTubeDriver(
        CLIENT_ID, CLIENT_SECRET, Tokens(), http, stored, chunk_bytes=CHUNK, sleep=lambda _s: None
    )
    http.close()


def consented(driver: YouTubeDriver) -> frozenset[str]:
    """The scopes the driver asks for on Google's consent page."""
    url = driver.authorization_url(redirect_uri=CALLBACK, state="s", code_verifier="v" * 50)
    return frozenset(parse_qs(urlsplit(url).query)["scope"][0].split())


@pytest.fixture(autouse=True)
def held(google: respx.MockRouter, driver: YouTubeDriver) -> Iterator[Contract]:
    """Every request of every test here is held to YouTube's contract, with the scopes
    the driver asks for at consent as what the account granted."""
    with held_to(google, youtube.contract(consented(driver))) as contract:
        yield contract


def delivery(**fields: object) -> Delivery:
    return Delivery(
        platform=Platform.VIDEO_SHARING,
        account=Account("conn_1", "@pressroom"),
        fields={
            "title": "Launch",
            "description": "Our launch",
            "privacyStatus": "unlisted",
            **fields,
        },
        media=Media("file_1", MediaKind.VIDEO, "video/mp4", "files/file_1", 30.0, SIZE),
        reference="post_1",
    )


def processed(google: respx.MockRouter, *answers: dict[str, object]) -> respx.Route:
    """``videos.list`` answering each of ``answers`` in turn (default: processed)."""
    route = google.get("https://www.googleapis.com/youtube/v3/videos")
    route.side_effect = [
        httpx.Response(200, json={"kind": "youtube#videoListResponse", "items": [a]})
        for a in (answers or ({"id": "dQw4w9WgXcQ", "status": {"uploadStatus": "processed"}},))
    ]
    return route


def open_session(google: respx.MockRouter) -> respx.Route:
    return google.post("https://www.googleapis.com/upload/youtube/v3/videos").respond(
        200, headers={"Location": SESSION}
    )


def test_the_consent_url_asks_for_upload_offline_with_pkce(driver: YouTubeDriver) -> None:
    url = urlsplit(
        driver.authorization_url(redirect_uri=CALLBACK, state="st", code_verifier="v" * 50)
    )
    assert (
        f"{url.scheme}://{url.netloc}{url.path}" == "https://accounts.google.com/o/oauth2/v2/auth"
    )
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert query["scope"].split() == [
        "https://www.googleapis.com/auth/youtube.upload",
        "https://www.googleapis.com/auth/youtube.readonly",
        "https://www.googleapis.com/auth/youtube.force-ssl",  # a first comment's
    ]
    assert (query["access_type"], query["prompt"], query["response_type"]) == (
        "offline",
        "consent",
        "code",
    )
    assert query["code_challenge_method"] == "S256" and len(query["code_challenge"]) == 43
    assert (query["client_id"], query["redirect_uri"], query["state"]) == (
        CLIENT_ID,
        CALLBACK,
        "st",
    )


def test_code_and_refresh_go_to_googles_token_endpoint(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    route = google.post("https://oauth2.googleapis.com/token")
    route.side_effect = [
        httpx.Response(
            200,
            json={
                "access_token": "ya29.a",
                "expires_in": 3599,
                "refresh_token": "1//r",
                "scope": "https://www.googleapis.com/auth/youtube.upload",
                "token_type": "Bearer",
            },
        ),
        httpx.Response(
            200, json={"access_token": "ya29.b", "expires_in": 3599, "token_type": "Bearer"}
        ),
        httpx.Response(
            400,
            json={
                "error": "invalid_grant",
                "error_description": "Token has been expired or revoked.",
            },
        ),
    ]
    first = driver.exchange_code(code="4/c", redirect_uri=CALLBACK, code_verifier="v" * 50)
    assert (first.access_token, first.refresh_token) == ("ya29.a", "1//r")
    renewed = driver.refresh("1//r")
    assert renewed.access_token == "ya29.b" and renewed.refresh_token is None  # kept by the vault
    with pytest.raises(TokenRefused, match="invalid_grant"):
        driver.refresh("1//r")
    forms = [
        {k: v[0] for k, v in parse_qs(c.request.content.decode()).items()} for c in route.calls
    ]
    assert forms[0] == {
        "code": "4/c",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "redirect_uri": CALLBACK,
        "grant_type": "authorization_code",
        "code_verifier": "v" * 50,
    }
    assert forms[1] == {
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "refresh_token": "1//r",
        "grant_type": "refresh_token",
    }


@pytest.mark.parametrize(("long_uploads", "verified"), [("allowed", True), ("eligible", False)])
def test_the_profile_is_the_channel_and_whether_it_is_verified(
    google: respx.MockRouter, driver: YouTubeDriver, long_uploads: str, verified: bool
) -> None:
    google.get("https://www.googleapis.com/youtube/v3/channels").respond(
        200,
        json={
            "kind": "youtube#channelListResponse",
            "items": [
                {
                    "kind": "youtube#channel",
                    "id": "UC_x5XG1OV2P6uZZ5FSM9Ttw",
                    "snippet": {"title": "Pressroom", "customUrl": "@pressroom"},
                    "status": {"privacyStatus": "public", "longUploadsStatus": long_uploads},
                }
            ],
        },
    )
    profile = driver.fetch_profile(TokenSet("ya29", None, None))
    assert (profile.name, profile.display_name, profile.verified) == (
        "@pressroom",
        "Pressroom",
        verified,
    )


def test_a_google_account_without_a_channel_cannot_connect(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.get("https://www.googleapis.com/youtube/v3/channels").respond(
        200, json={"kind": "youtube#channelListResponse", "items": []}
    )
    with pytest.raises(TokenRefused, match="no_youtube_channel"):
        driver.fetch_profile(TokenSet("ya29", None, None))


def test_a_video_is_uploaded_in_chunks_streamed_from_storage(
    google: respx.MockRouter, driver: YouTubeDriver, stored: Stored
) -> None:
    opened = open_session(google)
    put = google.put(SESSION)
    put.side_effect = [
        httpx.Response(308, headers={"Range": f"bytes=0-{CHUNK - 1}"}),
        httpx.Response(308, headers={"Range": f"bytes=0-{2 * CHUNK - 1}"}),
        httpx.Response(200, json=video_resource()),
    ]
    processed(google)
    published = driver.publish(delivery())
    assert published.platform_post_id == "dQw4w9WgXcQ"
    assert published.url == "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
    start = opened.calls.last.request
    assert start.url.params["uploadType"] == "resumable"
    assert start.headers["X-Upload-Content-Length"] == str(SIZE)
    assert start.headers["X-Upload-Content-Type"] == "video/mp4"
    metadata = json.loads(start.content)
    assert metadata == {
        "snippet": {"title": "Launch", "description": "Our launch"},
        "status": {"privacyStatus": "unlisted"},  # no made-for-kids declaration made for them
    }
    assert published.extra == {"appliedPrivacyStatus": "unlisted", "appliedMadeForKids": None}
    ranges = [c.request.headers["Content-Range"] for c in put.calls]
    assert ranges == [
        f"bytes 0-{CHUNK - 1}/{SIZE}",
        f"bytes {CHUNK}-{2 * CHUNK - 1}/{SIZE}",
        f"bytes {2 * CHUNK}-{SIZE - 1}/{SIZE}",
    ]
    assert b"".join(c.request.content for c in put.calls) == VIDEO_BYTES
    assert all(stop - start <= CHUNK for start, stop in stored.reads)  # never the whole file


@pytest.mark.parametrize("for_kids", [True, False])
def test_the_owners_made_for_kids_declaration_is_sent_as_given(
    google: respx.MockRouter, driver: YouTubeDriver, for_kids: bool
) -> None:
    """selfDeclaredMadeForKids is the owner's declaration: the driver sent False for
    every video; now it sends what the owner said, and nothing when they said nothing."""
    opened = open_session(google)
    google.put(SESSION).respond(200, json=video_resource())
    processed(google)
    driver.publish(delivery(madeForKids=for_kids))
    status = json.loads(opened.calls.last.request.content)["status"]
    assert status == {"privacyStatus": "unlisted", "selfDeclaredMadeForKids": for_kids}


def test_the_privacy_youtube_applied_is_reported_when_it_is_not_the_one_asked(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    """YouTube may lock an upload to private (unverified API projects, by some of its
    pages; the account's settings): the privacy it reports is the one the answer gives,
    read from the insert answer and then from videos.list."""
    open_session(google)
    locked = video_resource()
    locked["status"] = {"uploadStatus": "uploaded", "privacyStatus": "private"}
    google.put(SESSION).respond(200, json=locked)
    processed(
        google,
        {
            "id": "dQw4w9WgXcQ",
            "status": {
                "uploadStatus": "processed",
                "privacyStatus": "private",
                "madeForKids": False,
            },
        },
    )
    published = driver.publish(delivery(privacyStatus="public"))
    assert published.extra == {"appliedPrivacyStatus": "private", "appliedMadeForKids": False}


def test_a_failed_chunk_resumes_where_the_session_stands(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    open_session(google)
    put = google.put(SESSION)
    put.side_effect = [
        httpx.Response(308, headers={"Range": f"bytes=0-{CHUNK - 1}"}),
        httpx.Response(503),  # the second chunk fails...
        httpx.Response(308, headers={"Range": f"bytes=0-{CHUNK + 999}"}),  # ...part of it arrived
        httpx.Response(308, headers={"Range": f"bytes=0-{2 * CHUNK + 999}"}),
        httpx.Response(201, json=video_resource()),
    ]
    processed(google)
    driver.publish(delivery())
    ranges = [c.request.headers["Content-Range"] for c in put.calls]
    assert ranges == [
        f"bytes 0-{CHUNK - 1}/{SIZE}",
        f"bytes {CHUNK}-{2 * CHUNK - 1}/{SIZE}",
        f"bytes */{SIZE}",  # the status query, with an empty body
        f"bytes {CHUNK + 1000}-{2 * CHUNK + 999}/{SIZE}",
        f"bytes {2 * CHUNK + 1000}-{SIZE - 1}/{SIZE}",
    ]
    assert put.calls[2].request.content == b""


def test_an_upload_that_keeps_failing_before_its_end_has_published_nothing(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    open_session(google)
    google.put(SESSION).respond(503)
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(delivery())
    assert caught.value.sent is False


def test_a_last_chunk_without_an_answer_is_an_unknown_outcome(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    open_session(google)
    put = google.put(SESSION)
    put.side_effect = [
        httpx.Response(308, headers={"Range": f"bytes=0-{CHUNK - 1}"}),
        httpx.Response(308, headers={"Range": f"bytes=0-{2 * CHUNK - 1}"}),
        *[httpx.ReadTimeout("no answer")] * 4,
    ]
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(delivery())
    assert caught.value.sent is True


@pytest.mark.parametrize(
    ("status", "reason", "raised", "field"),
    [
        (403, "quotaExceeded", PlatformRateLimited, None),
        (400, "uploadLimitExceeded", PlatformRateLimited, None),  # the channel's, it passes
        (400, "invalidTitle", PlatformRefused, "title"),
        (400, "invalidDescription", PlatformRefused, "description"),
        (400, "invalidTags", PlatformRefused, None),  # pressroom sends no tags
        (400, "invalidCategoryId", PlatformRefused, None),
        (403, "forbidden", PlatformRefused, None),
        (403, "insufficientPermissions", AccessRevoked, None),  # reconnect to grant it
    ],
)
def test_what_youtube_refuses_when_the_upload_opens(
    google: respx.MockRouter,
    driver: YouTubeDriver,
    status: int,
    reason: str,
    raised: type[Exception],
    field: str | None,
) -> None:
    """YouTube's error reasons (https://developers.google.com/youtube/v3/docs/errors):
    a refused title or description names its field (the 400 named none), the channel's
    upload limit is a limit that passes, not a refusal, and a grant without the scope
    is a connection to renew."""
    google.post("https://www.googleapis.com/upload/youtube/v3/videos").respond(
        status,
        json={
            "error": {
                "code": status,
                "message": f"The request failed: {reason}",
                "errors": [{"message": "x", "domain": "youtube.video", "reason": reason}],
            }
        },
    )
    with pytest.raises(raised) as caught:
        driver.publish(delivery())
    assert type(caught.value) is raised
    assert f"The request failed: {reason}" in str(caught.value)  # YouTube's words
    if isinstance(caught.value, PlatformRefused):
        assert caught.value.field == field


def test_a_rejected_upload_is_refused_with_youtubes_reason(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    open_session(google)
    rejected = video_resource(upload_status="rejected")
    rejected["status"] = {"uploadStatus": "rejected", "rejectionReason": "duplicate"}
    google.put(SESSION).respond(200, json=rejected)
    with pytest.raises(PlatformRefused, match="duplicate"):
        driver.publish(delivery())


def test_processing_is_polled_until_youtube_has_processed_the_video(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    open_session(google)
    google.put(SESSION).respond(200, json=video_resource())
    polled = processed(
        google,
        {
            "id": "dQw4w9WgXcQ",
            "status": {"uploadStatus": "uploaded"},
            "processingDetails": {"processingStatus": "processing"},
        },
        {
            "id": "dQw4w9WgXcQ",
            "status": {"uploadStatus": "processed"},
            "processingDetails": {"processingStatus": "succeeded"},
        },
    )
    assert driver.publish(delivery()).platform_post_id == "dQw4w9WgXcQ"
    assert polled.call_count == 2
    request = polled.calls.last.request
    assert dict(request.url.params) == {"part": "status,processingDetails", "id": "dQw4w9WgXcQ"}


def test_a_video_youtube_fails_to_process_is_refused_with_its_reason(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    open_session(google)
    google.put(SESSION).respond(200, json=video_resource())
    processed(
        google,
        {
            "id": "dQw4w9WgXcQ",
            "status": {"uploadStatus": "failed", "failureReason": "codec"},
            "processingDetails": {
                "processingStatus": "failed",
                "processingFailureReason": "transcodeFailed",
            },
        },
    )
    with pytest.raises(PlatformRefused, match="codec") as caught:
        driver.publish(delivery())
    assert caught.value.field == "fileId"


def test_a_long_video_still_processing_after_the_wait_counts_as_published(
    google: respx.MockRouter, stored: Stored
) -> None:
    http = NetworkClient(Platform.VIDEO_SHARING, timeout_seconds=5)
    slow = YouTubeDriver(
        CLIENT_ID,
        CLIENT_SECRET,
        Tokens(),
        http,
        stored,
        chunk_bytes=CHUNK,
        processing_wait_seconds=0.05,
        poll_seconds=0.01,
    )
    open_session(google)
    google.put(SESSION).respond(200, json=video_resource())
    google.get("https://www.googleapis.com/youtube/v3/videos").respond(
        200,
        json={
            "items": [
                {
                    "id": "dQw4w9WgXcQ",
                    "status": {"uploadStatus": "uploaded"},
                    "processingDetails": {"processingStatus": "processing"},
                }
            ]
        },
    )
    assert slow.publish(delivery()).url == "https://www.youtube.com/watch?v=dQw4w9WgXcQ"


def comment(text: str = "Chapters below") -> Delivery:
    """A first comment on the channel's video ``dQw4w9WgXcQ``."""
    return Delivery(
        platform=Platform.VIDEO_SHARING,
        account=Account("conn_1", "@pressroom"),
        fields={"text": text},
        media=None,
        reference="post_1.1",
        comment_on="dQw4w9WgXcQ",
    )


THREAD = {
    "kind": "youtube#commentThread",
    "id": "UgzThread1",
    "snippet": {
        "channelId": "UC1",
        "videoId": "dQw4w9WgXcQ",
        "topLevelComment": {
            "id": "UgzThread1",
            "snippet": {
                "textOriginal": "Chapters below",
                "publishedAt": "2026-11-25T12:00:05Z",
            },
        },
    },
}


def test_a_first_comment_is_a_comment_thread_on_the_video(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.get("https://www.googleapis.com/youtube/v3/channels").respond(
        200, json={"items": [{"id": "UC1"}]}
    )
    made = google.post("https://www.googleapis.com/youtube/v3/commentThreads").respond(
        200, json=THREAD
    )
    published = driver.publish(comment())
    assert (published.platform_post_id, published.url) == (
        "UgzThread1",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&lc=UgzThread1",
    )
    request = made.calls.last.request
    assert request.url.params["part"] == "snippet"
    assert json.loads(request.content) == {
        "snippet": {
            "channelId": "UC1",
            "videoId": "dQw4w9WgXcQ",
            "topLevelComment": {"snippet": {"textOriginal": "Chapters below"}},
        }
    }


def test_a_comment_youtube_finds_too_long_is_refused_naming_its_text(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.get("https://www.googleapis.com/youtube/v3/channels").respond(
        200, json={"items": [{"id": "UC1"}]}
    )
    google.post("https://www.googleapis.com/youtube/v3/commentThreads").respond(
        400,
        json={
            "error": {
                "code": 400,
                "message": "The comment is too long.",
                "errors": [{"reason": "commentTextTooLong", "domain": "youtube.commentThread"}],
            }
        },
    )
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(comment())
    assert refused.value.field == "text"


def test_a_comment_whose_answer_was_lost_is_found_among_the_videos_threads(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    listed = google.get("https://www.googleapis.com/youtube/v3/commentThreads").respond(
        200, json={"items": [THREAD]}
    )
    found = driver.find_delivery(comment(), SENT_AT)
    assert found is not None and found.platform_post_id == "UgzThread1"
    params = listed.calls.last.request.url.params
    assert (params["videoId"], params["order"]) == ("dQw4w9WgXcQ", "time")
    assert driver.find_delivery(comment("never sent"), SENT_AT) is None


def test_a_thumbnail_is_set_from_the_images_bytes(google: respx.MockRouter, stored: Stored) -> None:
    image = b"\x89PNG" + b"\0" * 100
    http = NetworkClient(Platform.VIDEO_SHARING, timeout_seconds=5)
    driver = YouTubeDriver(
        CLIENT_ID, CLIENT_SECRET, Tokens(), http, Stored(image), chunk_bytes=CHUNK
    )
    route = google.post("https://www.googleapis.com/upload/youtube/v3/thumbnails/set").respond(
        200,
        json={
            "kind": "youtube#thumbnailSetResponse",
            "items": [
                {
                    "default": {
                        "url": "https://i.ytimg.com/vi/dQw4w9WgXcQ/default.jpg",
                        "width": 120,
                        "height": 90,
                    },
                    "high": {
                        "url": "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg",
                        "width": 480,
                        "height": 360,
                    },
                }
            ],
        },
    )
    done = driver.set_thumbnail(
        ThumbnailChange(
            Account("conn_1", "@pressroom"),
            "dQw4w9WgXcQ",
            Media("file_2", MediaKind.IMAGE, "image/png", "files/file_2", None, len(image)),
        )
    )
    assert done.thumbnail_url == "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg"
    request = route.calls.last.request
    assert request.headers["Content-Type"] == "image/png" and request.content == image


def test_an_unverified_channels_thumbnail_is_channel_not_verified(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.post("https://www.googleapis.com/upload/youtube/v3/thumbnails/set").respond(
        403,
        json={
            "error": {
                "code": 403,
                "message": "The authenticated user doesn't have permissions to upload and set custom video thumbnails.",
                "errors": [{"reason": "forbidden", "domain": "youtube.thumbnail"}],
            }
        },
    )
    with pytest.raises(PermissionMissing) as caught:
        driver.set_thumbnail(
            ThumbnailChange(
                Account("conn_1", "@p"),
                "v1",
                Media("f", MediaKind.IMAGE, "image/png", "k", None, 10),
            )
        )
    assert caught.value.code.code == "channel_not_verified"


@pytest.mark.parametrize(
    ("reason", "message", "raised"),
    [
        (
            "forbidden",
            "The thumbnail can't be set for the specified video. The request might not be "
            "properly authorized.",
            PlatformRefused,
        ),
        (
            "insufficientPermissions",
            "Request had insufficient authentication scopes.",
            AccessRevoked,
        ),
        (
            "quotaExceeded",
            "The request cannot be completed because you have exceeded your quota.",
            PlatformRateLimited,
        ),
    ],
)
def test_a_thumbnail_403_that_is_not_about_verification_keeps_its_meaning(
    google: respx.MockRouter,
    driver: YouTubeDriver,
    reason: str,
    message: str,
    raised: type[Exception],
) -> None:
    """thumbnails.set answers 403 for more than an unverified channel (its errors table;
    a missing scope: ``insufficientPermissions``): every 403 was channel_not_verified,
    which also marks the channel unverified for good."""
    google.post("https://www.googleapis.com/upload/youtube/v3/thumbnails/set").respond(
        403,
        json={
            "error": {
                "code": 403,
                "message": message,
                "errors": [{"reason": reason, "domain": "youtube.thumbnail", "message": message}],
            }
        },
    )
    with pytest.raises(raised) as caught:
        driver.set_thumbnail(
            ThumbnailChange(
                Account("conn_1", "@p"),
                "v1",
                Media("f", MediaKind.IMAGE, "image/png", "k", None, 10),
            )
        )
    assert type(caught.value) is raised
    if isinstance(caught.value, PlatformRefused):
        assert caught.value.field == "videoId"


def test_an_unknown_outcome_is_found_among_the_channels_uploads(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.get("https://www.googleapis.com/youtube/v3/channels").respond(
        200,
        json={"items": [{"id": "UC1", "contentDetails": {"relatedPlaylists": {"uploads": "UU1"}}}]},
    )
    items = google.get("https://www.googleapis.com/youtube/v3/playlistItems").respond(
        200,
        json={
            "kind": "youtube#playlistItemListResponse",
            "items": [
                {
                    "snippet": {
                        "publishedAt": "2026-11-25T12:00:09Z",
                        "title": "Other",
                        "resourceId": {"kind": "youtube#video", "videoId": "v0"},
                    }
                },
                {
                    "snippet": {
                        "publishedAt": "2026-11-20T12:00:00Z",
                        "title": "Launch",
                        "resourceId": {"kind": "youtube#video", "videoId": "old"},
                    }
                },
                {
                    "snippet": {
                        "publishedAt": "2026-11-25T12:00:04Z",
                        "title": "Launch",
                        "resourceId": {"kind": "youtube#video", "videoId": "dQw4w9WgXcQ"},
                    },
                    "status": {"privacyStatus": "private"},
                },
            ],
        },
    )
    found = driver.find_delivery(delivery(), SENT_AT)
    assert found is not None and found.platform_post_id == "dQw4w9WgXcQ"
    assert found.extra["appliedPrivacyStatus"] == "private"
    assert items.calls.last.request.url.params["playlistId"] == "UU1"


def test_the_contract_catches_a_wrong_request() -> None:
    """The contract is not a rubber stamp: a misspelt parameter or field, a method the
    consent gave no scope for, or an endpoint YouTube does not document fails it."""
    wrong = httpx.Request(
        "POST",
        "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&parts=snippet",
    )
    with pytest.raises(AssertionError, match="parts"):
        youtube.check(wrong, "videos", "insert", upload=True)
    with pytest.raises(AssertionError, match="privacy"):
        youtube.check_body({"status": {"privacy": "public"}}, "Video")
    with pytest.raises(AssertionError):
        youtube.check_body({"status": {"privacyStatus": "hidden"}}, "Video")
    upload_only = youtube.contract(frozenset({"https://www.googleapis.com/auth/youtube.upload"}))
    listing = httpx.Request(
        "GET", "https://www.googleapis.com/youtube/v3/channels?part=snippet&mine=true"
    )
    with pytest.raises(AssertionError, match="needs one of the scopes"):
        upload_only.check(listing)
    with pytest.raises(AssertionError, match="documents no"):
        upload_only.check(httpx.Request("GET", "https://www.googleapis.com/youtube/v3/search"))


# --- drivers check: what YouTube says, read without posting ----------------------------

UPLOAD = "https://www.googleapis.com/auth/youtube.upload"
READONLY = "https://www.googleapis.com/auth/youtube.readonly"
FORCE_SSL = "https://www.googleapis.com/auth/youtube.force-ssl"


def channel_answer(long_uploads: str, *, for_kids: bool = False) -> dict[str, object]:
    return {
        "items": [
            {
                "id": "UC1",
                "snippet": {"title": "Pressroom", "customUrl": "@pressroom"},
                "status": {
                    "privacyStatus": "public",
                    "longUploadsStatus": long_uploads,
                    "madeForKids": for_kids,
                },
            }
        ]
    }


def test_inspect_reads_the_grant_and_the_channels_verification_posting_nothing(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    info = google.post("https://www.googleapis.com/oauth2/v2/tokeninfo").respond(
        200,
        json={
            "issued_to": CLIENT_ID,
            "audience": CLIENT_ID,
            "scope": f"{UPLOAD} {READONLY} {FORCE_SSL}",
            "expires_in": 3412,
            "access_type": "offline",
        },
    )
    google.get("https://www.googleapis.com/youtube/v3/channels").respond(
        200, json=channel_answer("allowed")
    )

    report = driver.inspect(Account("conn_1", "@pressroom"))

    assert calls_read_as(google) == {
        ("POST", "www.googleapis.com/oauth2/v2/tokeninfo"),
        ("GET", "www.googleapis.com/youtube/v3/channels"),
    }
    assert info.calls.last.request.url.params["access_token"] == "ya29.token"
    assert report.scopes == {
        UPLOAD: ScopeState.GRANTED,
        READONLY: ScopeState.GRANTED,
        FORCE_SSL: ScopeState.GRANTED,
    }
    assert (report.account, report.account_type, report.audit) == (
        "@pressroom",
        "channel",
        "longUploadsStatus allowed",
    )
    lines = {f.topic: f for f in report.findings}
    assert lines["scopes"].standing is Standing.OK
    assert lines["verification"].standing is Standing.OK
    assert lines["audit"].standing is Standing.UNKNOWN
    assert "appliedPrivacyStatus" in lines["audit"].meaning


def test_inspect_sees_an_upload_scope_withheld_and_an_unverified_channel(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.post("https://www.googleapis.com/oauth2/v2/tokeninfo").respond(
        200, json={"scope": f"{READONLY} {FORCE_SSL}", "expires_in": 3412}
    )
    google.get("https://www.googleapis.com/youtube/v3/channels").respond(
        200, json=channel_answer("eligible")
    )

    report = driver.inspect(Account("conn_1", "@pressroom"))

    assert report.missing == (UPLOAD,)
    lines = {f.topic: f for f in report.findings}
    assert lines["scopes"].standing is Standing.BLOCKED
    assert lines["verification"].standing is Standing.WARNING
    assert "channel_not_verified" in lines["verification"].meaning
    assert report.can_publish is False


def test_inspect_warns_that_a_channel_made_for_kids_makes_every_video_so(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    """The channel's own setting outranks each video's ``madeForKids``: the report says
    what YouTube then does to the videos, and publishing still goes."""
    google.post("https://www.googleapis.com/oauth2/v2/tokeninfo").respond(
        200, json={"scope": f"{UPLOAD} {READONLY} {FORCE_SSL}", "expires_in": 3412}
    )
    google.get("https://www.googleapis.com/youtube/v3/channels").respond(
        200, json=channel_answer("allowed", for_kids=True)
    )

    report = driver.inspect(Account("conn_1", "@pressroom"))

    assert report.account_type == "channel made for kids"
    kind = {f.topic: f for f in report.findings}["account type"]
    assert kind.standing is Standing.WARNING
    assert "made for children" in kind.meaning and "no comments" in kind.meaning
    assert report.can_publish is None  # a warning does not block; the audit is unsaid


# --- metrics (videos.list part=statistics, https://developers.google.com/youtube/v3/docs/videos/list) ---

VIDEOS = "https://www.googleapis.com/youtube/v3/videos"


def test_metrics_are_the_videos_statistics(google: respx.MockRouter, driver: YouTubeDriver) -> None:
    listed = google.get(VIDEOS).respond(
        200,
        json={
            "kind": "youtube#videoListResponse",
            "items": [
                {
                    "kind": "youtube#video",
                    "id": "dQw4w9WgXcQ",
                    "statistics": {
                        "viewCount": "1520",
                        "likeCount": "87",
                        "favoriteCount": "0",
                        "commentCount": "12",
                    },
                }
            ],
        },
    )
    metrics = driver.fetch_metrics(Account("conn_1", "Pressroom"), "dQw4w9WgXcQ")
    assert metrics == PostMetrics(views=1520, likes=87, comments=12)
    params = listed.calls.last.request.url.params
    assert (params["part"], params["id"]) == ("statistics", "dQw4w9WgXcQ")
    assert isinstance(driver, MetricsDriver)


def test_metrics_with_likes_hidden_leave_likes_uncounted(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.get(VIDEOS).respond(
        200,
        json={"items": [{"id": "dQw4w9WgXcQ", "statistics": {"viewCount": "9"}}]},
    )
    metrics = driver.fetch_metrics(Account("conn_1", "Pressroom"), "dQw4w9WgXcQ")
    assert metrics == PostMetrics(views=9)


def test_metrics_of_a_refused_token_are_access_revoked(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.get(VIDEOS).respond(
        401,
        json={"error": {"code": 401, "message": "Invalid Credentials", "errors": []}},
    )
    with pytest.raises(AccessRevoked):
        driver.fetch_metrics(Account("conn_1", "Pressroom"), "dQw4w9WgXcQ")


def test_metrics_over_the_projects_quota_are_rate_limited(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.get(VIDEOS).respond(
        403,
        json={
            "error": {
                "code": 403,
                "message": "The request cannot be completed because you have exceeded your quota.",
                "errors": [{"reason": "quotaExceeded", "domain": "youtube.quota"}],
            }
        },
    )
    with pytest.raises(PlatformRateLimited):
        driver.fetch_metrics(Account("conn_1", "Pressroom"), "dQw4w9WgXcQ")


def test_metrics_of_a_video_deleted_on_youtube_are_unsupported(
    google: respx.MockRouter, driver: YouTubeDriver
) -> None:
    google.get(VIDEOS).respond(200, json={"kind": "youtube#videoListResponse", "items": []})
    with pytest.raises(MetricsUnsupported, match="deleted on the network"):
        driver.fetch_metrics(Account("conn_1", "Pressroom"), "dQw4w9WgXcQ")
