"""A label with credentials publishes through its real driver; what the network answers
becomes the service's own answer. X (microblog) stands in for every real network here:
respx plays X (its documented shapes are asserted in tests/drivers/test_microblog_x.py),
everything else is the real app over HTTP on a real database.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from pressroom.platforms import Platform
from pressroom.service.app import create_app
from pressroom.service.db.models import Connection, Post
from pressroom.service.db.session import transaction
from pressroom.service.oauth import service as oauth
from pressroom.service.oauth.vault import Vault
from pressroom.settings import NetworkSettings, Settings
from tests.conftest import AccountHandle, Service
from tests.support.files import make_file
from tests.support.publish import error_of, publish

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.support.library import Library, MediaFiles

pytest_plugins = ("tests.support.library",)

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

TWEET_ID = "1445880548472328192"
NETWORKS = NetworkSettings(
    microblog_client_id="x-client-id",
    microblog_client_secret="x-client-secret",
    pin_board_client_id="pinterest-app",
    pin_board_client_secret="pinterest-secret",
    professional_network_client_id="linkedin-app",
    professional_network_client_secret="linkedin-secret",
    video_sharing_client_id="google-client",
    video_sharing_client_secret="google-secret",
    page_social_client_id="4242",
    page_social_client_secret="meta-secret",
    short_video_client_id="tiktok-key",
    short_video_client_secret="tiktok-secret",
)
ME = {"data": {"id": "2244994945", "name": "Pressroom HQ", "username": "pressroom_hq"}}


@pytest.fixture
def real(settings: Settings) -> Iterator[Service]:
    configured = settings.model_copy(update={"networks": NETWORKS})
    app = create_app(configured)
    with TestClient(app) as client:
        yield Service(client, app.state.session_factory, configured)
    app.state.engine.dispose()


@pytest.fixture
def x() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url="https://api.x.com", assert_all_called=False) as router:
        yield router


def connected(service: Service) -> tuple[AccountHandle, str]:
    """An account whose microblog connection holds an X token, as connect leaves it."""
    account = service.account()
    connection_id = account.connect("microblog", "@pressroom_hq")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("x-token")
    return account, connection_id


def record(service: Service, account: AccountHandle) -> Post:
    with transaction(service.sessions, write=False) as db:
        posts = list(db.query(Post).filter(Post.account_id == account.id))
    assert len(posts) == 1
    return posts[0]


def test_connect_runs_x_consent_and_keeps_the_token_encrypted(
    real: Service, x: respx.MockRouter
) -> None:
    account = real.account()
    app: Any = real.client.app
    flow = oauth.flow_of(app)
    url = oauth.start(flow, account.id, Platform.MICROBLOG)
    assert url.startswith("https://x.com/i/oauth2/authorize?")
    state = parse_qs(urlsplit(url).query)["state"][0]
    x.post("/2/oauth2/token").respond(
        200,
        json={
            "token_type": "bearer",
            "expires_in": 7200,
            "access_token": "x-access",
            "refresh_token": "x-refresh",
        },
    )
    x.get("/2/users/me").respond(200, json=ME)
    connection = oauth.finish(flow, account.id, "microblog", {"state": state, "code": "c0de"})
    assert connection.name == "@pressroom_hq"
    with transaction(real.sessions, write=False) as db:
        stored = db.get(Connection, connection.id)
        assert stored is not None and stored.access_token_enc is not None
        assert "x-access" not in stored.access_token_enc
        assert flow.vault.decrypt(stored.access_token_enc) == "x-access"


def test_a_tiktok_account_connects_with_the_scopes_pressroom_asks_for(real: Service) -> None:
    """TikTok answers ``username`` from /v2/user/info/ only with ``user.info.profile``
    (a 401 ``scope_not_authorized`` otherwise, which failed every Connect); the handle
    comes from creator_info, which the ``video.publish`` scope already covers."""
    account = real.account()
    app: Any = real.client.app
    flow = oauth.flow_of(app)
    url = oauth.start(flow, account.id, Platform.SHORT_VIDEO)
    query = parse_qs(urlsplit(url).query)
    assert "user.info.profile" not in query["scope"][0]
    tiktok = "https://open.tiktokapis.com/v2"
    with respx.mock(assert_all_called=False) as network:
        network.post(f"{tiktok}/oauth/token/").respond(
            200,
            json={
                "access_token": "act.1",
                "expires_in": 86400,
                "open_id": "o1",
                "refresh_expires_in": 31536000,
                "refresh_token": "rft.1",
                "scope": query["scope"][0],
                "token_type": "Bearer",
            },
        )
        network.get(f"{tiktok}/user/info/").respond(
            401,
            json={
                "error": {
                    "code": "scope_not_authorized",
                    "message": "The user did not authorize the scope required for completing "
                    "this request.",
                    "log_id": "x",
                }
            },
        )
        network.post(f"{tiktok}/post/publish/creator_info/query/").respond(
            200,
            json={
                "data": {
                    "creator_username": "pressroomhq",
                    "creator_nickname": "Pressroom HQ",
                    "privacy_level_options": ["PUBLIC_TO_EVERYONE", "SELF_ONLY"],
                    "comment_disabled": False,
                    "duet_disabled": False,
                    "stitch_disabled": False,
                    "max_video_post_duration_sec": 600,
                },
                "error": {"code": "ok", "message": "", "log_id": "x"},
            },
        )
        connection = oauth.finish(
            flow, account.id, "short_video", {"state": query["state"][0], "code": "c0de"}
        )
    assert (connection.name, connection.status) == ("pressroomhq", "active")


TIKTOK = "https://open.tiktokapis.com/v2"
UPLOAD_URL = "https://open-upload.tiktokapis.com/video/?upload_id=67890&upload_token=Xza123"
CREATOR = {
    "data": {
        "creator_username": "pressroomhq",
        "creator_nickname": "Pressroom HQ",
        "privacy_level_options": ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
        "comment_disabled": False,
        "duet_disabled": False,
        "stitch_disabled": False,
        "max_video_post_duration_sec": 600,
    },
    "error": {"code": "ok", "message": "", "log_id": "x"},
}


def tiktok_connected(service: Service, account: AccountHandle) -> str:
    """A short_video connection holding a TikTok token, as connect leaves it."""
    connection_id = account.connect("short_video", "pressroomhq")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("act.1")
    return connection_id


def test_a_tiktok_post_without_the_owners_privacy_choice_is_a_400_naming_it(
    real: Service,
) -> None:
    """TikTok has the owner choose every post's privacy, with no default: the API's
    ``privacyLevel`` extension carries the choice, and a post without it is refused
    naming it, with the account's levels, before anything reaches TikTok but the read
    of those levels."""
    account = real.account()
    connection_id = tiktok_connected(real, account)
    video = make_file(account, "video")
    with respx.mock(assert_all_called=True) as tiktok:
        tiktok.post(f"{TIKTOK}/post/publish/creator_info/query/").respond(200, json=CREATOR)
        response = real.client.post(
            "/api/social/post",
            json={"platform": "short_video", "connectionId": connection_id, "fileId": video},
            headers=account.headers,
        )
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "privacyLevel")
    assert "PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, SELF_ONLY" in error["message"]
    assert record(real, account).status == "failed"
    wrong = real.client.post(
        "/api/social/post",
        json={
            "platform": "short_video",
            "connectionId": connection_id,
            "fileId": video,
            "privacyLevel": "FRIENDS",
        },
        headers=account.headers,
    )
    assert wrong.status_code == 400
    assert error_of(wrong)["field"] == "privacyLevel"


def test_an_unaudited_tiktok_app_posting_publicly_is_refused_for_good(real: Service) -> None:
    """TikTok blocks a public post from an app it has not audited at init with a 403;
    that answer was a 503 with Retry-After, so clients retried a refusal for ever."""
    account = real.account()
    connection_id = tiktok_connected(real, account)
    video = make_file(account, "video")
    said = "Unaudited clients can only post to a private account."
    with respx.mock(assert_all_called=True) as tiktok:
        tiktok.post(f"{TIKTOK}/post/publish/creator_info/query/").respond(200, json=CREATOR)
        tiktok.post(f"{TIKTOK}/post/publish/video/init/").respond(
            403,
            json={
                "error": {
                    "code": "unaudited_client_can_only_post_to_private_accounts",
                    "message": said,
                    "log_id": "x",
                }
            },
        )
        response = real.client.post(
            "/api/social/post",
            json={
                "platform": "short_video",
                "connectionId": connection_id,
                "fileId": video,
                "privacyLevel": "PUBLIC_TO_EVERYONE",
            },
            headers=account.headers,
        )
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "privacyLevel")
    assert said in error["message"] and "Retry-After" not in response.headers
    assert record(real, account).status == "failed"


def test_a_post_goes_to_x_and_comes_back_with_its_id(real: Service, x: respx.MockRouter) -> None:
    account, connection_id = connected(real)
    sent = x.post("/2/tweets").respond(201, json={"data": {"id": TWEET_ID, "text": "hello"}})
    response = publish(
        account, Platform.MICROBLOG, {"connectionId": connection_id, "text": "hello"}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["microblogPostId"] == TWEET_ID
    assert body["url"] == f"https://x.com/pressroom_hq/status/{TWEET_ID}"
    assert sent.calls.last.request.headers["Authorization"] == "Bearer x-token"
    assert record(real, account).status == "published"


def test_xs_rate_limit_is_a_429_with_its_wait(real: Service, x: respx.MockRouter) -> None:
    account, connection_id = connected(real)
    reset = int(datetime.now(UTC).timestamp()) + 120
    x.post("/2/tweets").respond(
        429, headers={"x-rate-limit-reset": str(reset)}, json={"title": "Too Many Requests"}
    )
    response = publish(
        account, Platform.MICROBLOG, {"connectionId": connection_id, "text": "hello"}
    )
    assert response.status_code == 429
    assert error_of(response)["code"] == "rate_limited"
    assert 100 <= int(response.headers["Retry-After"]) <= 120
    assert record(real, account).status == "failed"


def test_a_revoked_token_turns_the_connection_inactive(real: Service, x: respx.MockRouter) -> None:
    account, connection_id = connected(real)
    x.post("/2/tweets").respond(401, json={"title": "Unauthorized", "status": 401})
    response = publish(
        account, Platform.MICROBLOG, {"connectionId": connection_id, "text": "hello"}
    )
    assert response.status_code == 409
    error = error_of(response)
    assert (error["code"], error["field"]) == ("connection_inactive", "connectionId")
    listed = account.get("/api/connections/unified")
    assert isinstance(listed, httpx.Response)
    statuses = {entry["id"]: entry["status"] for entry in listed.json()}
    assert statuses[connection_id] == "inactive"
    again = publish(account, Platform.MICROBLOG, {"connectionId": connection_id, "text": "hello"})
    assert again.status_code == 409  # refused before anything is sent


def test_a_text_x_refuses_is_a_400_naming_it(real: Service, x: respx.MockRouter) -> None:
    account, connection_id = connected(real)
    x.post("/2/tweets").respond(
        403,
        json={
            "detail": "You are not allowed to create a Tweet with duplicate content.",
            "status": 403,
        },
    )
    response = publish(
        account, Platform.MICROBLOG, {"connectionId": connection_id, "text": "hello"}
    )
    assert response.status_code == 400
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "text")
    assert "duplicate content" in error["message"]


def test_an_app_x_has_not_enrolled_is_a_final_500_not_a_refused_text(
    real: Service, x: respx.MockRouter
) -> None:
    account, connection_id = connected(real)
    x.post("/2/tweets").respond(
        403,
        json={
            "title": "Client Forbidden",
            "detail": "When authenticating requests to the Twitter API v2 endpoints, you must "
            "use keys and tokens from a Twitter developer App that is attached to a Project.",
            "reason": "client-not-enrolled",
            "type": "https://api.twitter.com/2/problems/client-forbidden",
        },
    )
    response = publish(
        account, Platform.MICROBLOG, {"connectionId": connection_id, "text": "hello"}
    )
    assert response.status_code == 500, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("platform_misconfigured", None)
    assert "client-not-enrolled" in error["message"]
    assert record(real, account).status == "failed"


def test_an_unknown_outcome_is_looked_up_on_x_not_resent(
    real: Service, x: respx.MockRouter
) -> None:
    account, connection_id = connected(real)
    sent = x.post("/2/tweets").respond(503, json={"title": "Service Unavailable"})
    body = {"connectionId": connection_id, "text": "launch & more"}
    first = publish(account, Platform.MICROBLOG, body, key="launch-1")
    assert first.status_code == 503
    assert error_of(first)["recordStatus"] == "unknown"
    x.get("/2/users/me").respond(200, json=ME)
    x.get("/2/users/2244994945/tweets").respond(
        200,
        json={
            "data": [
                {
                    "id": TWEET_ID,
                    "text": "launch &amp; more",
                    "created_at": "2026-11-25T12:00:01.000Z",
                }
            ],
            "meta": {"result_count": 1},
        },
    )
    retry = publish(account, Platform.MICROBLOG, body, key="launch-1")
    assert retry.status_code == 200, retry.text
    assert retry.json()["microblogPostId"] == TWEET_ID
    assert sent.call_count == 1
    assert record(real, account).status == "published"


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_pinterest_fetches_the_pins_image_from_the_signed_link(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    """Pinterest downloads the image itself: the link it is given serves the exact bytes
    to a client without an API key (here the test plays Pinterest's fetcher)."""
    library = library_factory(networks=NETWORKS)
    real = library.service
    account = library.account()
    image = library.upload(account, media_files.jpeg)
    assert library.wait(account, image)["status"] == "ready"
    connection_id = account.connect("pin_board", "pressroomhq")
    with transaction(real.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(real.settings).encrypt("pina")
    fetched: list[bytes] = []

    def pinterest_creates_a_pin(request: httpx.Request) -> httpx.Response:
        link = json.loads(request.content)["media_source"]["url"]
        assert link.startswith("http://testserver/storage/files/")
        download = real.client.get(link)  # no X-API-Key
        assert download.status_code == 200
        fetched.append(download.content)
        return httpx.Response(
            201, json={"id": "813744226420795884", "created_at": "2026-11-25T12:00:00"}
        )

    with respx.mock(base_url="https://api.pinterest.com/v5", assert_all_called=True) as pinterest:
        pinterest.post("/pins").mock(side_effect=pinterest_creates_a_pin)
        response = publish(
            account,
            Platform.PIN_BOARD,
            {"connectionId": connection_id, "fileId": image, "boardId": "549755885175"},
        )
    assert response.status_code == 200, response.text
    assert response.json()["pinId"] == "813744226420795884"
    assert fetched == [media_files.jpeg.read_bytes()]


def test_an_outcome_linkedin_cannot_be_asked_about_is_never_resent(
    real: Service, x: respx.MockRouter
) -> None:
    """Without r_member_social LinkedIn will not list posts: a retry under the key is told
    so (409 outcome_unknown) instead of posting a second time, and the reconciler leaves
    the record unknown for a person to settle."""
    account = real.account()
    connection_id = account.connect("professional_network", "Ada Lovelace")
    with transaction(real.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(real.settings).encrypt("AQV")
    body = {"connectionId": connection_id, "text": "We are hiring"}
    with respx.mock(assert_all_called=True) as linkedin:
        linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json={"sub": "782bbtaQ"})
        sent = linkedin.post("https://api.linkedin.com/rest/posts").respond(504)
        listing = linkedin.get("https://api.linkedin.com/rest/posts").respond(
            403, json={"message": "Not enough permissions", "status": 403}
        )
        first = publish(account, Platform.PROFESSIONAL_NETWORK, body, key="hiring-1")
        assert first.status_code == 503 and error_of(first)["recordStatus"] == "unknown"
        for _ in range(2):
            retry = publish(account, Platform.PROFESSIONAL_NETWORK, body, key="hiring-1")
            assert retry.status_code == 409, retry.text
            error = error_of(retry)
            assert error["code"] == "outcome_unknown"
            assert "new key" in error["message"]
        app: Any = real.client.app
        assert app.state.reconciler.reconcile() == 0
    assert sent.call_count == 1
    assert listing.call_count == 1  # asked once; the answer is kept on the record
    post = record(real, account)
    assert post.status == "unknown"
    assert post.result is not None and "lookupUnsupported" in post.result


def test_a_linkedin_version_no_longer_served_fails_the_post_and_names_the_setting(
    real: Service,
) -> None:
    """LinkedIn's 426 NONEXISTENT_VERSION: nothing was posted, so the record fails (never
    unknown), the answer is final and says what to set; the key is not held, so once the
    operator sets a served version the same key sends."""
    account = real.account()
    connection_id = account.connect("professional_network", "Ada Lovelace")
    with transaction(real.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(real.settings).encrypt("AQV")
    body = {"connectionId": connection_id, "text": "We are hiring"}
    with respx.mock(assert_all_called=True) as linkedin:
        linkedin.get("https://api.linkedin.com/v2/userinfo").respond(200, json={"sub": "782bbtaQ"})
        posts = linkedin.post("https://api.linkedin.com/rest/posts")
        posts.side_effect = [
            httpx.Response(
                426,
                json={
                    "status": 426,
                    "code": "NONEXISTENT_VERSION",
                    "message": "Requested version 20251101 is not active",
                },
            ),
            httpx.Response(201, headers={"x-restli-id": "urn:li:share:1"}),
        ]
        refused = publish(account, Platform.PROFESSIONAL_NETWORK, body, key="hiring-2")
        assert refused.status_code == 500, refused.text
        error = error_of(refused)
        assert (error["code"], error["recordStatus"]) == ("platform_misconfigured", "not_sent")
        assert "PRESSROOM_PROFESSIONAL_NETWORK_API_VERSION" in error["message"]
        assert record(real, account).status == "failed"
        again = publish(account, Platform.PROFESSIONAL_NETWORK, body, key="hiring-2")
    assert again.status_code == 200, again.text
    assert posts.call_count == 2


def test_start_up_warns_of_a_linkedin_version_near_or_past_its_year(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    old = NETWORKS.model_copy(update={"professional_network_api_version": "202501"})
    with caplog.at_level("WARNING", logger="pressroom.service.app"):
        app = create_app(settings.model_copy(update={"networks": old}))
    app.state.engine.dispose()
    warned = [r.getMessage() for r in caplog.records if r.name == "pressroom.service.app"]
    assert len(warned) == 1, warned
    assert warned[0].startswith("professional_network: LinkedIn-Version 202501 is ")
    assert "PRESSROOM_PROFESSIONAL_NETWORK_API_VERSION" in warned[0]


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_a_private_tiktok_post_answers_its_publish_id_and_the_profile(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    """TikTok gives no public id for a private post: the answer's postId is the
    publish_id and its URL the profile (it was /video/{publish_id}, a link to nothing),
    and the extension fields say so; the owner's choices reached TikTok as given."""
    library = library_factory(networks=NETWORKS)
    real = library.service
    account = library.account()
    video = library.upload(account, media_files.vertical)  # what TikTok takes as it is
    assert library.wait(account, video)["status"] == "ready"
    connection_id = tiktok_connected(real, account)
    publish_id = "v_pub_file~v2-1.78"
    with respx.mock(assert_all_called=True) as tiktok:
        tiktok.post(f"{TIKTOK}/post/publish/creator_info/query/").respond(200, json=CREATOR)
        init = tiktok.post(f"{TIKTOK}/post/publish/video/init/").respond(
            200,
            json={
                "data": {"publish_id": publish_id, "upload_url": UPLOAD_URL},
                "error": {"code": "ok", "message": "", "log_id": "x"},
            },
        )
        tiktok.put(UPLOAD_URL).respond(201)
        tiktok.post(f"{TIKTOK}/post/publish/status/fetch/").respond(
            200,
            json={
                "data": {"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": []},
                "error": {"code": "ok", "message": "", "log_id": "x"},
            },
        )
        response = real.client.post(
            "/api/social/post",
            json={
                "platform": "short_video",
                "connectionId": connection_id,
                "fileId": video,
                "privacyLevel": "SELF_ONLY",
                "allowComments": True,
            },
            headers=account.headers,
        )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["postId"], answer["url"]) == (publish_id, "https://www.tiktok.com/@pressroomhq")
    assert (answer["publishId"], answer["publiclyAvailable"]) == (publish_id, False)
    assert answer["privacyLevel"] == "SELF_ONLY"
    post_info = json.loads(init.calls.last.request.content)["post_info"]
    assert (post_info["privacy_level"], post_info["disable_comment"]) == ("SELF_ONLY", False)
    assert post_info["disable_duet"] is True and post_info["disable_stitch"] is True


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_a_tiktok_post_of_unknown_outcome_is_asked_for_by_its_publish_id_not_resent(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    """The last chunk gets a 5xx: the post may be live. The record keeps TikTok's
    publish_id, and a retry under the key asks TikTok for it (status/fetch) instead of
    searching the public video list, which never shows a private post: found, it is the
    answer, with the publish_id as the reference and the profile as the URL."""
    library = library_factory(networks=NETWORKS)
    real = library.service
    account = library.account()
    video = library.upload(account, media_files.vertical)  # what TikTok takes as it is
    assert library.wait(account, video)["status"] == "ready"
    connection_id = tiktok_connected(real, account)
    body = {
        "platform": "short_video",
        "connectionId": connection_id,
        "fileId": video,
        "caption": "x" * 300,
        "privacyLevel": "SELF_ONLY",
    }
    headers = {**account.headers, "Idempotency-Key": "clip-1"}
    publish_id = "v_pub_file~v2-1.77"
    with respx.mock(assert_all_called=True) as tiktok:
        tiktok.post(f"{TIKTOK}/post/publish/creator_info/query/").respond(200, json=CREATOR)
        init = tiktok.post(f"{TIKTOK}/post/publish/video/init/").respond(
            200,
            json={
                "data": {"publish_id": publish_id, "upload_url": UPLOAD_URL},
                "error": {"code": "ok", "message": "", "log_id": "x"},
            },
        )
        put = tiktok.put(UPLOAD_URL).respond(502)
        first = real.client.post("/api/social/post", json=body, headers=headers)
        assert first.status_code == 503, first.text
        assert error_of(first)["recordStatus"] == "unknown"
        kept = record(real, account).result
        assert kept is not None and kept["platformReference"] == publish_id
        status = tiktok.post(f"{TIKTOK}/post/publish/status/fetch/").respond(
            200,
            json={
                "data": {"status": "PUBLISH_COMPLETE", "publicaly_available_post_id": []},
                "error": {"code": "ok", "message": "", "log_id": "x"},
            },
        )
        retry = real.client.post("/api/social/post", json=body, headers=headers)
    assert retry.status_code == 200, retry.text
    answer = retry.json()
    assert (answer["postId"], answer["url"]) == (publish_id, "https://www.tiktok.com/@pressroomhq")
    assert (answer["publishId"], answer["publiclyAvailable"]) == (publish_id, False)
    assert answer["privacyLevel"] == "SELF_ONLY"
    assert (init.call_count, put.call_count) == (1, 1)  # nothing was sent twice
    assert json.loads(status.calls.last.request.content) == {"publish_id": publish_id}
    assert record(real, account).status == "published"


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_a_video_goes_to_youtube_streamed_from_storage_after_a_refresh(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    """An access token that lapsed is refreshed first; Google sends no new refresh token,
    and the one kept still works next time. The upload carries the stored file's bytes."""
    library = library_factory(networks=NETWORKS)
    real = library.service
    account = library.account()
    video = library.upload(account, media_files.video2)
    assert library.wait(account, video)["status"] == "ready"
    channel = account.connect("video_sharing", "@pressroom", verified=False)
    vault = Vault.from_settings(real.settings)
    with transaction(real.sessions) as db:
        connection = db.get(Connection, channel)
        assert connection is not None
        connection.access_token_enc = vault.encrypt("ya29.old")
        connection.refresh_token_enc = vault.encrypt("1//keep")
        connection.access_expires_at = datetime(2026, 1, 1, tzinfo=UTC)
    session = (
        "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=u1"
    )
    with respx.mock(assert_all_called=True) as google:
        token = google.post("https://oauth2.googleapis.com/token").respond(
            200, json={"access_token": "ya29.new", "expires_in": 3599, "token_type": "Bearer"}
        )
        google.post("https://www.googleapis.com/upload/youtube/v3/videos").respond(
            200, headers={"Location": session}
        )
        put = google.put(session).respond(
            200,
            json={
                "id": "dQw4w9WgXcQ",
                "snippet": {"publishedAt": "2026-11-25T12:00:00Z"},
                "status": {"uploadStatus": "uploaded"},
            },
        )
        google.get("https://www.googleapis.com/youtube/v3/videos").respond(
            200, json={"items": [{"id": "dQw4w9WgXcQ", "status": {"uploadStatus": "processed"}}]}
        )
        response = publish(
            account,
            Platform.VIDEO_SHARING,
            {
                "connectionId": channel,
                "fileId": video,
                "title": "Launch",
                "privacyStatus": "private",
            },
        )
        assert response.status_code == 200, response.text
        assert response.json()["videoId"] == "dQw4w9WgXcQ"
        assert "refresh_token=1%2F%2Fkeep" in token.calls.last.request.content.decode()
        upload = put.calls.last.request
        assert upload.headers["Authorization"] == "Bearer ya29.new"
        assert upload.content == media_files.video2.read_bytes()
    with transaction(real.sessions, write=False) as db:
        kept = db.get(Connection, channel)
        assert kept is not None and kept.refresh_token_enc is not None
        assert vault.decrypt(kept.refresh_token_enc) == "1//keep"
        assert vault.decrypt(kept.access_token_enc or "") == "ya29.new"


def youtube_connected(service: Service, account: AccountHandle, *, verified: bool) -> str:
    channel = account.connect("video_sharing", "@pressroom", verified=verified)
    with transaction(service.sessions) as db:
        connection = db.get(Connection, channel)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("ya29")
    return channel


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_the_answer_says_the_privacy_youtube_applied(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    """Asked public, YouTube keeps the upload private (an unverified API project, per
    some of its pages): the answer echoes the privacy asked, as the spec says, and says
    what YouTube applied; the owner's made-for-kids declaration goes through as given."""
    library = library_factory(networks=NETWORKS)
    real = library.service
    account = library.account()
    video = library.upload(account, media_files.video2)
    assert library.wait(account, video)["status"] == "ready"
    channel = youtube_connected(real, account, verified=False)
    session = (
        "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=u2"
    )
    with respx.mock(assert_all_called=True) as google:
        opened = google.post("https://www.googleapis.com/upload/youtube/v3/videos").respond(
            200, headers={"Location": session}
        )
        google.put(session).respond(
            200,
            json={
                "id": "dQw4w9WgXcQ",
                "snippet": {"publishedAt": "2026-11-25T12:00:00Z"},
                "status": {"uploadStatus": "uploaded", "privacyStatus": "private"},
            },
        )
        google.get("https://www.googleapis.com/youtube/v3/videos").respond(
            200,
            json={
                "items": [
                    {
                        "id": "dQw4w9WgXcQ",
                        "status": {
                            "uploadStatus": "processed",
                            "privacyStatus": "private",
                            "madeForKids": False,
                        },
                    }
                ]
            },
        )
        response = publish(
            account,
            Platform.VIDEO_SHARING,
            {"connectionId": channel, "fileId": video, "title": "Launch", "madeForKids": False},
        )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["privacyStatus"], answer["appliedPrivacyStatus"]) == ("public", "private")
    assert answer["appliedMadeForKids"] is False
    assert json.loads(opened.calls.last.request.content)["status"] == {
        "privacyStatus": "public",
        "selfDeclaredMadeForKids": False,
    }


def test_a_title_youtube_refuses_is_a_400_naming_it(real: Service) -> None:
    account = real.account()
    channel = youtube_connected(real, account, verified=False)
    video = make_file(account, "video")
    with respx.mock(assert_all_called=True) as google:
        google.post("https://www.googleapis.com/upload/youtube/v3/videos").respond(
            400,
            json={
                "error": {
                    "code": 400,
                    "message": "The request metadata specifies an invalid or empty video title.",
                    "errors": [{"domain": "youtube.video", "reason": "invalidTitle"}],
                }
            },
        )
        response = publish(
            account,
            Platform.VIDEO_SHARING,
            {"connectionId": channel, "fileId": video, "title": "Launch"},
        )
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "title")
    assert "invalid or empty video title" in error["message"]


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_youtube_refusing_a_thumbnail_is_channel_not_verified(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    library = library_factory(networks=NETWORKS)
    real = library.service
    account = library.account()
    channel = account.connect("video_sharing", "@pressroom", verified=True)
    with transaction(real.sessions) as db:
        connection = db.get(Connection, channel)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(real.settings).encrypt("ya29")
        db.add(
            Post(
                id="post_v1",
                account_id=account.id,
                connection_id=channel,
                platform="video_sharing",
                request={},
                status="published",
                platform_post_id="dQw4w9WgXcQ",
                created_at=datetime.now(UTC),
            )
        )
    image = library.upload(account, media_files.png)
    library.wait(account, image)
    path = "/api/v2/video_sharing/thumbnail/dQw4w9WgXcQ"
    with respx.mock(assert_all_called=True) as google:
        google.post("https://www.googleapis.com/upload/youtube/v3/thumbnails/set").respond(
            403,
            json={
                "error": {
                    "code": 403,
                    "message": "The authenticated user doesn't have permissions to upload "
                    "and set custom video thumbnails.",
                    "errors": [{"reason": "forbidden", "domain": "youtube.thumbnail"}],
                }
            },
        )
        response = real.client.post(path, json={"thumbnailFileId": image}, headers=account.headers)
    assert response.status_code == 403, response.text
    assert error_of(response)["code"] == "channel_not_verified"
    again = real.client.post(path, json={"thumbnailFileId": image}, headers=account.headers)
    assert again.status_code == 403  # refused here now, without asking YouTube


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_a_thumbnail_refused_for_a_missing_scope_leaves_the_channel_verified(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    """Google's 403 for a grant without the scope is not the unverified channel's: the
    connection is to be reconnected (409 connection_inactive), and the channel stays
    verified (every 403 marked it unverified, so no thumbnail was tried again)."""
    library = library_factory(networks=NETWORKS)
    real = library.service
    account = library.account()
    channel = youtube_connected(real, account, verified=True)
    with transaction(real.sessions) as db:
        db.add(
            Post(
                id="post_v2",
                account_id=account.id,
                connection_id=channel,
                platform="video_sharing",
                request={},
                status="published",
                platform_post_id="dQw4w9WgXcQ",
                created_at=datetime.now(UTC),
            )
        )
    image = library.upload(account, media_files.png)
    library.wait(account, image)
    with respx.mock(assert_all_called=True) as google:
        google.post("https://www.googleapis.com/upload/youtube/v3/thumbnails/set").respond(
            403,
            json={
                "error": {
                    "code": 403,
                    "message": "Request had insufficient authentication scopes.",
                    "errors": [{"reason": "insufficientPermissions", "domain": "global"}],
                }
            },
        )
        response = real.client.post(
            "/api/v2/video_sharing/thumbnail/dQw4w9WgXcQ",
            json={"thumbnailFileId": image},
            headers=account.headers,
        )
    assert response.status_code == 409, response.text
    assert error_of(response)["code"] == "connection_inactive"
    with transaction(real.sessions, write=False) as db:
        kept = db.get(Connection, channel)
        assert kept is not None and kept.verified is True


@pytest.mark.parametrize("granted", ["granted", "declined"])
def test_a_facebook_page_connects_with_its_own_token_and_its_permission(
    real: Service, granted: str
) -> None:
    """The Page's token is what the connection keeps (not the person's), and a Page
    connected without pages_manage_posts is refused by the spec's rule before any call."""
    account = real.account()
    app: Any = real.client.app
    flow = oauth.flow_of(app)
    url = oauth.start(flow, account.id, Platform.PAGE_SOCIAL)
    state = parse_qs(urlsplit(url).query)["state"][0]
    graph = "https://graph.facebook.com/v23.0"
    with respx.mock(assert_all_called=True) as facebook:
        facebook.post(f"{graph}/oauth/access_token").respond(
            200, json={"access_token": "EAAuser", "token_type": "bearer", "expires_in": 5183944}
        )
        facebook.post(f"{graph}/me/accounts").respond(
            200, json={"data": [{"id": "1048", "name": "Acme Bakery", "access_token": "EAApage"}]}
        )
        facebook.post(f"{graph}/me/permissions").respond(
            200, json={"data": [{"permission": "pages_manage_posts", "status": granted}]}
        )
        connection = oauth.finish(flow, account.id, "page_social", {"state": state, "code": "AQD"})
    with transaction(real.sessions, write=False) as db:
        stored = db.get(Connection, connection.id)
        assert stored is not None and stored.access_token_enc is not None
        assert flow.vault.decrypt(stored.access_token_enc) == "EAApage"
        assert stored.refresh_token_enc is None and stored.access_expires_at is None
        assert (stored.page_kind, stored.pages_permission) == ("page", granted == "granted")
    if granted == "declined":
        image = make_file(account, "image")
        response = publish(
            account, Platform.PAGE_SOCIAL, {"connectionId": connection.id, "fileId": image}
        )
        assert response.status_code == 403
        assert error_of(response)["code"] == "pages_permission_missing"
