"""The photo_sharing driver against Instagram's documented content publishing API (respx).

Pages read 2026-11-25:

- Business Login for Instagram: https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
- Long-lived tokens and refresh: https://developers.facebook.com/docs/instagram-platform/reference/access_token
- Content publishing: https://developers.facebook.com/docs/instagram-platform/content-publishing
- IG container status: https://developers.facebook.com/docs/instagram-platform/reference/ig-container
- Media of a user: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media
- Publishing limit: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/content_publishing_limit

Every request is held to the Instagram contract (``tests/drivers/contracts/instagram.py``):
documented endpoints and parameters, the token in ``Authorization: Bearer`` (which this
host documents) and never in a URL, the scopes asked for at consent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx

from pressroom.platforms import MediaKind, Platform
from pressroom.service.drivers import photo_sharing
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    LookupUnsupported,
    Media,
    MetricsDriver,
    MetricsUnsupported,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    PostMetrics,
    TokenRefused,
    TokenSet,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import ScopeState, Standing
from pressroom.service.drivers.photo_sharing import InstagramDriver
from tests.drivers.contract import calls_read_as, held_to
from tests.drivers.contracts import instagram as instagram_contract

GRAPH = "https://graph.instagram.com/v23.0"
CALLBACK = "https://press.example/oauth/callback/photo_sharing"
LINK = "https://press.example/storage/files/file_1?expires=1&signature=s"
USER = "17841405822304914"
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "IGAAtoken"


class Links:
    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        return LINK

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        raise AssertionError("Instagram fetches media by link")


@pytest.fixture
def slept() -> list[float]:
    return []


def make_driver(slept: list[float], **options: float) -> tuple[InstagramDriver, NetworkClient]:
    http = NetworkClient(Platform.PHOTO_SHARING, timeout_seconds=5, backoff_seconds=0)
    driver = InstagramDriver(
        "990602627938098", "ig-secret", Tokens(), http, Links(), sleep=slept.append, **options
    )
    return driver, http


@pytest.fixture
def driver(slept: list[float]) -> Iterator[InstagramDriver]:
    driver, http = make_driver(slept)
    yield driver
    http.close()


@pytest.fixture(autouse=True)
def instagram(driver: InstagramDriver) -> Iterator[respx.MockRouter]:
    """Instagram, played by respx; every request is held to its contract at the end."""
    consent = urlsplit(
        driver.authorization_url(redirect_uri=CALLBACK, state="s", code_verifier="v")
    )
    asked = frozenset(parse_qs(consent.query)["scope"][0].split(","))
    with (
        respx.mock(assert_all_mocked=True, assert_all_called=True) as router,
        held_to(router, instagram_contract.contract(granted=asked)),
    ):
        yield router


def delivery(
    kind: MediaKind = MediaKind.IMAGE, caption: str | None = "New menu #spring"
) -> Delivery:
    return Delivery(
        platform=Platform.PHOTO_SHARING,
        account=Account("conn_1", "acme.bakery"),
        fields={"caption": caption} if caption else {},
        media=Media(
            "file_1",
            kind,
            "image/jpeg" if kind is MediaKind.IMAGE else "video/mp4",
            "files/file_1",
            None,
            1000,
        ),
        reference="post_1",
    )


def me(instagram: respx.MockRouter, quota_usage: int | None = 3) -> respx.Route:
    """The user id and, unless None, the account's publishing quota with room."""
    if quota_usage is not None:
        limit(instagram, quota_usage)
    return instagram.get(f"{GRAPH}/me").respond(200, json={"user_id": USER, "id": "1"})


def limit(instagram: respx.MockRouter, quota_usage: int) -> respx.Route:
    return instagram.get(f"{GRAPH}/{USER}/content_publishing_limit").respond(
        200,
        json={
            "data": [
                {
                    "quota_usage": quota_usage,
                    "config": {"quota_total": 100, "quota_duration": 86400},
                }
            ]
        },
    )


def test_the_consent_asks_for_business_publishing(driver: InstagramDriver) -> None:
    url = urlsplit(driver.authorization_url(redirect_uri=CALLBACK, state="st", code_verifier="v"))
    assert f"{url.scheme}://{url.netloc}{url.path}" == "https://www.instagram.com/oauth/authorize"
    assert {k: v[0] for k, v in parse_qs(url.query).items()} == {
        "client_id": "990602627938098",
        "redirect_uri": CALLBACK,
        "response_type": "code",
        "scope": "instagram_business_basic,instagram_business_content_publish,"
        "instagram_business_manage_comments,instagram_business_manage_insights",
        "state": "st",
    }


def test_the_code_becomes_a_long_lived_token_that_refreshes_itself(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    code = instagram.post("https://api.instagram.com/oauth/access_token").respond(
        200,
        json={
            "data": [
                {
                    "access_token": "IGAAshort",
                    "user_id": USER,
                    "permissions": "instagram_business_basic,instagram_business_content_publish",
                }
            ]
        },
    )
    exchange = instagram.post("https://graph.instagram.com/access_token").respond(
        200, json={"access_token": "IGAAlong", "token_type": "bearer", "expires_in": 5183944}
    )
    refresh = instagram.get("https://graph.instagram.com/refresh_access_token").respond(
        200, json={"access_token": "IGAAlong2", "token_type": "bearer", "expires_in": 5183944}
    )
    tokens = driver.exchange_code(code="AQB", redirect_uri=CALLBACK, code_verifier="v")
    assert (tokens.access_token, tokens.refresh_token) == ("IGAAlong", "IGAAlong")
    assert tokens.expires_at is not None and (tokens.expires_at - datetime.now(UTC)).days >= 59
    renewed = driver.refresh("IGAAlong")
    assert (renewed.access_token, renewed.refresh_token) == ("IGAAlong2", "IGAAlong2")
    assert {k: v[0] for k, v in parse_qs(code.calls.last.request.content.decode()).items()} == {
        "client_id": "990602627938098",
        "client_secret": "ig-secret",
        "grant_type": "authorization_code",
        "redirect_uri": CALLBACK,
        "code": "AQB",
    }
    # Meta shows these as GETs with the secret or the token in the query. The exchange's
    # app secret has no other documented place: a POST body, read as the GET (method=GET).
    # The renewal carries only the token: in Authorization, as this host documents.
    assert exchange.calls.last.request.url.query == b""
    assert form_of(exchange.calls.last.request) == {
        "grant_type": "ig_exchange_token",
        "client_secret": "ig-secret",
        "access_token": "IGAAshort",
        "method": "GET",
    }
    renewal = refresh.calls.last.request
    assert renewal.url.query == b"grant_type=ig_refresh_token"
    assert renewal.headers["Authorization"] == "Bearer IGAAlong"


def test_a_refused_code_is_token_refused(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    instagram.post("https://api.instagram.com/oauth/access_token").respond(
        400,
        json={
            "error_type": "OAuthException",
            "code": 400,
            "error_message": "Invalid authorization code",
        },
    )
    with pytest.raises(TokenRefused, match="OAuthException"):
        driver.exchange_code(code="bad", redirect_uri=CALLBACK, code_verifier="v")


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("BUSINESS", "business"), ("MEDIA_CREATOR", "creator"), ("PERSONAL", "personal")],
)
def test_the_profile_carries_the_account_type(
    instagram: respx.MockRouter, driver: InstagramDriver, kind: str, expected: str
) -> None:
    route = instagram.get(f"{GRAPH}/me").respond(
        200,
        json={
            "user_id": USER,
            "username": "acme.bakery",
            "name": "Acme Bakery",
            "account_type": kind,
            "id": "1",
        },
    )
    profile = driver.fetch_profile(TokenSet("IGAA", None, None))
    assert (profile.name, profile.account_type) == ("acme.bakery", expected)
    assert route.calls.last.request.url.params["fields"] == "user_id,username,name,account_type"


def test_a_photo_goes_through_a_container_then_publish(
    instagram: respx.MockRouter, driver: InstagramDriver, slept: list[float]
) -> None:
    me(instagram)
    container = instagram.post(f"{GRAPH}/{USER}/media").respond(
        200, json={"id": "17889455560051444"}
    )
    status = instagram.get(f"{GRAPH}/17889455560051444")
    status.side_effect = [
        httpx.Response(200, json={"status_code": "IN_PROGRESS", "id": "17889455560051444"}),
        httpx.Response(200, json={"status_code": "FINISHED", "id": "17889455560051444"}),
    ]
    published = instagram.post(f"{GRAPH}/{USER}/media_publish").respond(
        200, json={"id": "17920238422030506"}
    )
    instagram.get(f"{GRAPH}/17920238422030506").respond(
        200,
        json={
            "permalink": "https://www.instagram.com/p/C1a2b3c4d5e/",
            "timestamp": "2026-11-25T12:00:04+0000",
            "id": "17920238422030506",
        },
    )
    post = driver.publish(delivery())
    assert (post.platform_post_id, post.url) == (
        "17920238422030506",
        "https://www.instagram.com/p/C1a2b3c4d5e/",
    )
    assert slept == [1.0, 2.0]  # the first read a second after the container, then slower
    assert {
        k: v[0] for k, v in parse_qs(container.calls.last.request.content.decode()).items()
    } == {
        "image_url": LINK,
        "caption": "New menu #spring",
    }
    assert status.calls.last.request.url.params["fields"] == "status_code,status"
    assert parse_qs(published.calls.last.request.content.decode()) == {
        "creation_id": ["17889455560051444"]
    }


def test_a_video_is_a_reel(instagram: respx.MockRouter, driver: InstagramDriver) -> None:
    me(instagram)
    container = instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "101"})
    instagram.get(f"{GRAPH}/101").respond(200, json={"status_code": "FINISHED"})
    instagram.post(f"{GRAPH}/{USER}/media_publish").respond(200, json={"id": "201"})
    instagram.get(f"{GRAPH}/201").respond(
        200, json={"permalink": "https://www.instagram.com/reel/X/"}
    )
    driver.publish(delivery(MediaKind.VIDEO, caption=None))
    assert {
        k: v[0] for k, v in parse_qs(container.calls.last.request.content.decode()).items()
    } == {
        "media_type": "REELS",
        "video_url": LINK,
    }


def test_a_container_instagram_rejects_is_refused_with_its_status(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram)
    instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "101"})
    instagram.get(f"{GRAPH}/101").respond(
        200,
        json={
            "status_code": "ERROR",
            "status": "Error: The video's aspect ratio is not supported.",
        },
    )
    with pytest.raises(PlatformRefused, match="aspect ratio") as caught:
        driver.publish(delivery(MediaKind.VIDEO))
    assert caught.value.field == "fileId"


def test_a_publish_without_an_answer_is_an_unknown_outcome(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram)
    instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "101"})
    instagram.get(f"{GRAPH}/101").respond(200, json={"status_code": "FINISHED"})
    instagram.post(f"{GRAPH}/{USER}/media_publish").mock(side_effect=httpx.ReadTimeout("no answer"))
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(delivery())
    assert caught.value.sent is True


@pytest.mark.parametrize(
    ("error", "raised"),
    [
        (
            {
                "message": "Error validating access token: Session has expired",
                "type": "OAuthException",
                "code": 190,
            },
            AccessRevoked,
        ),
        (
            {"message": "Application request limit reached", "type": "OAuthException", "code": 4},
            PlatformRateLimited,
        ),
        (
            {
                "message": "(#10) Application does not have permission for this action",
                "type": "OAuthException",
                "code": 10,
            },
            AccessRevoked,
        ),
        (
            {
                "message": "Only photo or video can be accepted as media type.",
                "type": "OAuthException",
                "code": 9004,
            },
            PlatformRefused,
        ),
    ],
)
def test_graph_errors_on_the_container(
    instagram: respx.MockRouter,
    driver: InstagramDriver,
    error: dict[str, object],
    raised: type[Exception],
) -> None:
    me(instagram)
    instagram.post(f"{GRAPH}/{USER}/media").respond(
        400, json={"error": {**error, "fbtrace_id": "A"}}
    )
    with pytest.raises(raised):
        driver.publish(delivery())


def test_an_unknown_outcome_is_found_among_the_accounts_media(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram, quota_usage=None)
    listed = instagram.get(f"{GRAPH}/{USER}/media").respond(
        200,
        json={
            "data": [
                {
                    "id": "m2",
                    "caption": "Other",
                    "timestamp": "2026-11-25T12:00:09+0000",
                    "permalink": "https://www.instagram.com/p/B/",
                },
                {
                    "id": "m1",
                    "caption": "New menu #spring",
                    "timestamp": "2026-11-25T12:00:04+0000",
                    "permalink": "https://www.instagram.com/p/A/",
                },
            ],
            "paging": {"cursors": {"before": "b", "after": "a"}},
        },
    )
    found = driver.find_delivery(delivery(), SENT_AT)
    assert found is not None and (found.platform_post_id, found.url) == (
        "m1",
        "https://www.instagram.com/p/A/",
    )
    assert listed.calls.last.request.url.params["fields"] == "id,caption,timestamp,permalink"


def comment(text: str = "Full menu: acme.example/menu") -> Delivery:
    """A first comment on the post ``17920238422030506``."""
    return Delivery(
        platform=Platform.PHOTO_SHARING,
        account=Account("conn_1", "acme.bakery"),
        fields={"text": text},
        media=None,
        reference="post_1.1",
        comment_on="17920238422030506",
    )


def test_a_first_comment_goes_on_the_media_with_its_message(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    made = instagram.post(f"{GRAPH}/17920238422030506/comments").respond(
        200, json={"id": "17858893269000001"}
    )
    instagram.get(f"{GRAPH}/17920238422030506").respond(
        200, json={"permalink": "https://www.instagram.com/p/C1a2b3c4d5e/"}
    )
    published = driver.publish(comment())
    assert (published.platform_post_id, published.url) == (
        "17858893269000001",
        "https://www.instagram.com/p/C1a2b3c4d5e/",
    )
    assert parse_qs(made.calls.last.request.content.decode()) == {
        "message": ["Full menu: acme.example/menu"]
    }


def test_a_refused_comment_is_refused_naming_its_text(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    instagram.post(f"{GRAPH}/17920238422030506/comments").respond(
        400, json={"error": {"message": "Invalid parameter", "type": "OAuthException", "code": 100}}
    )
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(comment())
    assert refused.value.field == "text"


def test_a_comment_whose_answer_was_lost_is_found_among_the_medias_comments(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    listed = instagram.get(f"{GRAPH}/17920238422030506/comments").respond(
        200,
        json={
            "data": [
                {"id": "c2", "text": "Lovely", "timestamp": "2026-11-25T12:00:09+0000"},
                {
                    "id": "c1",
                    "text": "Full menu: acme.example/menu",
                    "timestamp": "2026-11-25T12:00:04+0000",
                },
            ]
        },
    )
    instagram.get(f"{GRAPH}/17920238422030506").respond(
        200, json={"permalink": "https://www.instagram.com/p/C1a2b3c4d5e/"}
    )
    found = driver.find_delivery(comment(), SENT_AT)
    assert found is not None and found.platform_post_id == "c1"
    assert listed.calls.last.request.url.params["fields"] == "id,text,timestamp"
    assert driver.find_delivery(comment("never sent"), SENT_AT) is None


def test_a_used_up_publishing_limit_is_a_rate_limit_and_no_container_is_made(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    """100 API posts in a moving 24 hours: read before the container, not learnt after."""
    me(instagram, quota_usage=None)
    read = limit(instagram, 100)
    with pytest.raises(PlatformRateLimited) as caught:
        driver.publish(delivery())
    assert caught.value.retry_after == 3600 and caught.value.sent is False
    assert read.calls.last.request.url.params["fields"] == "quota_usage,config"
    assert not any(c.request.method == "POST" for c in instagram.calls)


def test_the_publishing_limit_met_at_publish_is_a_rate_limit(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    """Posts made elsewhere since the check: Instagram's code 9, subcode 2207042."""
    me(instagram)
    instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "101"})
    instagram.get(f"{GRAPH}/101").respond(200, json={"status_code": "FINISHED"})
    instagram.post(f"{GRAPH}/{USER}/media_publish").respond(
        400,
        json={
            "error": {
                "message": "Application request limit reached",
                "type": "OAuthException",
                "code": 9,
                "error_subcode": 2207042,
                "is_transient": False,
                "error_user_title": "Reached the limit of posts",
                "fbtrace_id": "A",
            }
        },
    )
    with pytest.raises(PlatformRateLimited) as caught:
        driver.publish(delivery())
    assert caught.value.retry_after == 3600 and caught.value.sent is False


def test_a_container_not_ready_at_publish_is_transient_and_unsent(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    """Code 9007, subcode 2207027: "The media is not ready for publishing" (error codes)."""
    me(instagram)
    instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "101"})
    instagram.get(f"{GRAPH}/101").respond(200, json={"status_code": "FINISHED"})
    instagram.post(f"{GRAPH}/{USER}/media_publish").respond(
        400,
        json={
            "error": {
                "message": "Media ID is not available",
                "type": "OAuthException",
                "code": 9007,
                "error_subcode": 2207027,
                "fbtrace_id": "A",
            }
        },
    )
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(delivery())
    assert caught.value.sent is False and caught.value.retry_after == 60


def test_a_reel_is_awaited_past_two_minutes_at_a_slowing_pace(
    instagram: respx.MockRouter, driver: InstagramDriver, slept: list[float]
) -> None:
    """Meta: read a container's status "once per minute, for no more than 5 minutes"."""
    me(instagram)
    instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "101"})
    status = instagram.get(f"{GRAPH}/101")
    status.side_effect = [
        *(httpx.Response(200, json={"status_code": "IN_PROGRESS"}) for _ in range(8)),
        httpx.Response(200, json={"status_code": "FINISHED"}),
    ]
    instagram.post(f"{GRAPH}/{USER}/media_publish").respond(200, json={"id": "201"})
    instagram.get(f"{GRAPH}/201").respond(
        200, json={"permalink": "https://www.instagram.com/reel/Y/"}
    )
    driver.publish(delivery(MediaKind.VIDEO))
    assert slept == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0]
    assert sum(slept) > 120 and status.call_count == 9  # a fixed 3 s read 40 times in 120 s


def test_a_container_still_processing_after_the_wait_publishes_nothing(
    instagram: respx.MockRouter, slept: list[float]
) -> None:
    driver, http = make_driver(slept, container_wait_seconds=300)
    me(instagram)
    instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "101"})
    instagram.get(f"{GRAPH}/101").respond(200, json={"status_code": "IN_PROGRESS"})
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(delivery(MediaKind.VIDEO))
    http.close()
    assert caught.value.sent is False
    assert sum(slept) == 300 and len(slept) == 10  # Meta's five minutes, ten reads


def form_of(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode()).items()}


# --- drivers check: what Instagram says, read without posting --------------------------


def test_inspect_reports_the_account_its_scopes_and_its_quota_posting_nothing(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    instagram.get(f"{GRAPH}/me").respond(
        200,
        json={"user_id": USER, "username": "acme.bakery", "account_type": "BUSINESS", "id": "1"},
    )
    limit(instagram, 97)

    report = driver.inspect(Account("conn_1", "acme.bakery"))

    assert calls_read_as(instagram) == {
        ("GET", "graph.instagram.com/v23.0/me"),
        ("GET", f"graph.instagram.com/v23.0/{USER}/content_publishing_limit"),
    }
    assert (report.network, report.account, report.account_type) == (
        "Instagram",
        "acme.bakery",
        "business",
    )
    assert report.scopes == {
        "instagram_business_basic": ScopeState.GRANTED,
        "instagram_business_content_publish": ScopeState.GRANTED,
        "instagram_business_manage_comments": ScopeState.UNKNOWN,  # no read shows it
        "instagram_business_manage_insights": ScopeState.UNKNOWN,  # nor this one
    }
    assert report.quota is not None and (report.quota.left, report.quota.window_seconds) == (
        3,
        86400,
    )
    lines = {f.topic: f for f in report.findings}
    assert lines["account type"].standing is Standing.OK
    assert lines["audit"].standing is Standing.UNKNOWN and "App Review" in lines["audit"].says
    assert lines["quota"].says == "97 of 100 API posts used per 24 h; 3 left"
    assert report.can_publish is None  # the app's review is not Instagram's to say


def test_inspect_sees_a_grant_without_publishing_and_a_personal_account(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    instagram.get(f"{GRAPH}/me").respond(
        200, json={"user_id": USER, "username": "acme.bakery", "account_type": "PERSONAL"}
    )
    instagram.get(f"{GRAPH}/{USER}/content_publishing_limit").respond(
        400,
        json={
            "error": {
                "message": "(#10) Application does not have permission for this action",
                "type": "OAuthException",
                "code": 10,
            }
        },
    )

    report = driver.inspect(Account("conn_1", "acme.bakery"))

    assert report.scopes["instagram_business_content_publish"] is ScopeState.MISSING
    assert report.missing == ("instagram_business_content_publish",)
    lines = {f.topic: f for f in report.findings}
    assert lines["scopes"].standing is Standing.BLOCKED
    assert (report.account_type, lines["account type"].standing) == ("personal", Standing.BLOCKED)
    assert "account_type_not_allowed" in lines["account type"].meaning
    assert report.can_publish is False


def carousel(caption: str | None = "Spring menu, in three") -> Delivery:
    """A carousel of an image, a video and an image."""
    kinds = (MediaKind.IMAGE, MediaKind.VIDEO, MediaKind.IMAGE)
    return Delivery(
        platform=Platform.PHOTO_SHARING,
        account=Account("conn_1", "acme.bakery"),
        fields={"caption": caption} if caption else {},
        media=None,
        reference="post_1",
        items=tuple(
            Media(
                f"file_{n}",
                kind,
                "image/jpeg" if kind is MediaKind.IMAGE else "video/mp4",
                f"files/file_{n}",
                None if kind is MediaKind.IMAGE else 10.0,
                1000,
            )
            for n, kind in enumerate(kinds, start=1)
        ),
    )


def published_carousel(instagram: respx.MockRouter, media_id: str = "17920238422030999") -> None:
    """The carousel's permalink and its children, as Instagram answers them."""
    instagram.get(f"{GRAPH}/{media_id}").respond(
        200,
        json={
            "permalink": "https://www.instagram.com/p/Carousel1/",
            "timestamp": "2026-11-25T12:00:04+0000",
            "id": media_id,
        },
    )
    instagram.get(f"{GRAPH}/{media_id}/children").respond(
        200, json={"data": [{"id": "18001"}, {"id": "18002"}, {"id": "18003"}]}
    )


def test_a_carousel_is_item_containers_then_a_carousel_container_then_publish(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram)
    created = instagram.post(f"{GRAPH}/{USER}/media")
    created.side_effect = [
        httpx.Response(200, json={"id": container}) for container in ("901", "902", "903", "910")
    ]
    statuses = {
        container: instagram.get(f"{GRAPH}/{container}").respond(
            200, json={"status_code": "FINISHED", "id": container}
        )
        for container in ("901", "902", "903", "910")
    }
    published = instagram.post(f"{GRAPH}/{USER}/media_publish").respond(
        200, json={"id": "17920238422030999"}
    )
    published_carousel(instagram)

    post = driver.publish(carousel())

    forms = [
        {k: v[0] for k, v in parse_qs(call.request.content.decode()).items()}
        for call in created.calls
    ]
    assert forms == [
        {"image_url": LINK, "is_carousel_item": "true"},
        {"media_type": "VIDEO", "video_url": LINK, "is_carousel_item": "true"},
        {"image_url": LINK, "is_carousel_item": "true"},
        {"media_type": "CAROUSEL", "children": "901,902,903", "caption": "Spring menu, in three"},
    ]
    assert all(route.called for route in statuses.values())  # each container awaited
    assert parse_qs(published.calls.last.request.content.decode()) == {"creation_id": ["910"]}
    assert (post.platform_post_id, post.url) == (
        "17920238422030999",
        "https://www.instagram.com/p/Carousel1/",
    )
    assert [(item.platform_post_id, item.url) for item in post.items] == [
        ("18001", "https://www.instagram.com/p/Carousel1/?img_index=1"),
        ("18002", "https://www.instagram.com/p/Carousel1/?img_index=2"),
        ("18003", "https://www.instagram.com/p/Carousel1/?img_index=3"),
    ]


def test_an_item_instagram_cannot_take_is_refused_naming_its_place(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram)
    created = instagram.post(f"{GRAPH}/{USER}/media")
    created.side_effect = [
        httpx.Response(200, json={"id": container}) for container in ("901", "902", "903")
    ]
    instagram.get(f"{GRAPH}/901").respond(200, json={"status_code": "FINISHED"})
    instagram.get(f"{GRAPH}/902").respond(
        200, json={"status_code": "ERROR", "status": "Error: 2207026"}
    )
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(carousel())
    assert refused.value.field == "fileIds[1]"
    assert "2207026" in str(refused.value)


def test_an_unknown_carousel_is_found_with_its_items(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram, quota_usage=None)
    listed = instagram.get(f"{GRAPH}/{USER}/media").respond(
        200,
        json={
            "data": [
                {
                    "id": "m9",
                    "caption": "Spring menu, in three",
                    "media_type": "IMAGE",
                    "timestamp": "2026-11-25T12:00:09+0000",
                    "permalink": "https://www.instagram.com/p/Single/",
                },
                {
                    "id": "17920238422030999",
                    "caption": "Spring menu, in three",
                    "media_type": "CAROUSEL_ALBUM",
                    "timestamp": "2026-11-25T12:00:04+0000",
                    "permalink": "https://www.instagram.com/p/Carousel1/",
                },
            ]
        },
    )
    published_carousel(instagram)
    found = driver.find_delivery(carousel(), SENT_AT)
    assert found is not None and found.platform_post_id == "17920238422030999"
    assert [item.platform_post_id for item in found.items] == ["18001", "18002", "18003"]
    assert listed.calls.last.request.url.params["fields"] == (
        "id,caption,timestamp,permalink,media_type"
    )


# --- formats: story and reel ---------------------------------------------------------


def formatted(kind: MediaKind, post_format: str, caption: str | None = "Spring") -> Delivery:
    """``delivery`` with the body's ``format``, as the publish path passes it."""
    base = delivery(kind, caption)
    return Delivery(
        platform=base.platform,
        account=base.account,
        fields={**base.fields, "format": post_format},
        media=base.media,
        reference=base.reference,
    )


def published_as(instagram: respx.MockRouter, container: str, permalink: str) -> respx.Route:
    """A container that is FINISHED at once, then published as media ``9{container}``."""
    instagram.get(f"{GRAPH}/{container}").respond(200, json={"status_code": "FINISHED"})
    publish = instagram.post(f"{GRAPH}/{USER}/media_publish").respond(
        200, json={"id": f"9{container}"}
    )
    instagram.get(f"{GRAPH}/9{container}").respond(
        200, json={"permalink": permalink, "timestamp": "2026-11-25T12:00:04+0000"}
    )
    return publish


@pytest.mark.parametrize(
    ("kind", "medium"), [(MediaKind.IMAGE, "image_url"), (MediaKind.VIDEO, "video_url")]
)
def test_a_story_is_a_stories_container_without_a_caption(
    instagram: respx.MockRouter, driver: InstagramDriver, kind: MediaKind, medium: str
) -> None:
    me(instagram)
    container = instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "301"})
    publish = published_as(instagram, "301", "https://www.instagram.com/stories/acme.bakery/9301/")
    post = driver.publish(formatted(kind, "story", None))
    assert form_of(container.calls.last.request) == {"media_type": "STORIES", medium: LINK}
    assert form_of(publish.calls.last.request) == {"creation_id": "301"}
    assert (post.platform_post_id, post.url) == (
        "9301",
        "https://www.instagram.com/stories/acme.bakery/9301/",
    )


def test_a_reel_is_a_reels_container_shared_to_the_feed(
    instagram: respx.MockRouter, driver: InstagramDriver, slept: list[float]
) -> None:
    me(instagram)
    container = instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "302"})
    status = instagram.get(f"{GRAPH}/302")
    status.side_effect = [
        httpx.Response(200, json={"status_code": "IN_PROGRESS"}),
        httpx.Response(200, json={"status_code": "IN_PROGRESS"}),
        httpx.Response(200, json={"status_code": "FINISHED"}),
    ]
    instagram.post(f"{GRAPH}/{USER}/media_publish").respond(200, json={"id": "9302"})
    instagram.get(f"{GRAPH}/9302").respond(
        200, json={"permalink": "https://www.instagram.com/reel/DAbc/"}
    )
    post = driver.publish(formatted(MediaKind.VIDEO, "reel"))
    assert form_of(container.calls.last.request) == {
        "media_type": "REELS",
        "video_url": LINK,
        "caption": "Spring",
        "share_to_feed": "true",
    }
    assert status.call_count == 3  # published only once FINISHED
    assert post.url == "https://www.instagram.com/reel/DAbc/"


def test_a_story_instagram_cannot_take_is_refused_naming_the_file(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram)
    container = instagram.post(f"{GRAPH}/{USER}/media").respond(
        400,
        json={
            "error": {
                "message": "The aspect ratio is not supported.",
                "type": "OAuthException",
                "code": 36003,
                "error_subcode": 2207009,
                "fbtrace_id": "A",
            }
        },
    )
    with pytest.raises(PlatformRefused) as caught:
        driver.publish(formatted(MediaKind.IMAGE, "story", None))
    assert caught.value.field == "fileId"
    assert form_of(container.calls.last.request)["media_type"] == "STORIES"


def test_a_story_whose_publish_went_unanswered_cannot_be_looked_up(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    """The stories edge is documented for Facebook Login only: no read is attempted, and
    the outcome stays unknown rather than being resent."""
    with pytest.raises(LookupUnsupported, match="stories"):
        driver.find_delivery(formatted(MediaKind.IMAGE, "story", None), SENT_AT)
    assert not instagram.calls


def test_a_reel_whose_publish_went_unanswered_is_found_among_the_media(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram, quota_usage=None)
    instagram.get(f"{GRAPH}/{USER}/media").respond(
        200,
        json={
            "data": [
                {
                    "id": "9302",
                    "caption": "Spring",
                    "timestamp": "2026-11-25T12:00:04+0000",
                    "permalink": "https://www.instagram.com/reel/DAbc/",
                }
            ]
        },
    )
    found = driver.find_delivery(formatted(MediaKind.VIDEO, "reel"), SENT_AT)
    assert found is not None and found.url == "https://www.instagram.com/reel/DAbc/"


def test_the_contract_refuses_story_and_reel_containers_instagram_would_not_take() -> None:
    """An image reel, share_to_feed off a reel, a STORIES container without media."""
    held = instagram_contract.contract()
    for body in (
        {"media_type": "REELS", "image_url": LINK},
        {"media_type": "STORIES", "image_url": LINK, "share_to_feed": "true"},
        {"media_type": "STORIES"},
    ):
        request = httpx.Request(
            "POST",
            f"{GRAPH}/{USER}/media",
            data=body,
            headers={"Authorization": "Bearer IGAAtoken"},
        )
        with pytest.raises(AssertionError):
            held.check(request)


# --- metrics (GET /{ig-media-id} and its /insights,
# https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights) ---

MEDIA_ID = "17918920912340654"


def insight(name: str, value: int) -> dict[str, object]:
    return {
        "name": name,
        "period": "lifetime",
        "values": [{"value": value}],
        "title": name.title(),
        "id": f"{MEDIA_ID}/insights/{name}/lifetime",
    }


def test_metrics_are_the_posts_counts_and_insights(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    node = instagram.get(f"{GRAPH}/{MEDIA_ID}").respond(
        200,
        json={
            "media_product_type": "FEED",
            "like_count": 54,
            "comments_count": 7,
            "id": MEDIA_ID,
        },
    )
    insights = instagram.get(f"{GRAPH}/{MEDIA_ID}/insights").respond(
        200,
        json={"data": [insight("views", 1300), insight("shares", 4), insight("saved", 11)]},
    )
    metrics = driver.fetch_metrics(Account("conn_1", "acme.bakery"), MEDIA_ID)
    assert metrics == PostMetrics(impressions=1300, likes=54, comments=7, shares=4, saves=11)
    assert node.calls.last.request.url.params["fields"] == (
        "media_product_type,like_count,comments_count"
    )
    assert insights.calls.last.request.url.params["metric"] == "views,shares,saved"
    assert isinstance(driver, MetricsDriver)


def test_metrics_of_a_story_ask_only_for_what_a_story_has(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    instagram.get(f"{GRAPH}/{MEDIA_ID}").respond(
        200, json={"media_product_type": "STORY", "id": MEDIA_ID}
    )
    insights = instagram.get(f"{GRAPH}/{MEDIA_ID}/insights").respond(
        200, json={"data": [insight("views", 90)]}
    )
    metrics = driver.fetch_metrics(Account("conn_1", "acme.bakery"), MEDIA_ID)
    assert metrics == PostMetrics(impressions=90)  # no shares figure given: None, not 0
    assert insights.calls.last.request.url.params["metric"] == "views,shares"


def test_metrics_of_a_refused_token_are_access_revoked(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    instagram.get(f"{GRAPH}/{MEDIA_ID}").respond(
        400,
        json={
            "error": {
                "message": "Error validating access token: The user has not authorized application",
                "type": "OAuthException",
                "code": 190,
            }
        },
    )
    with pytest.raises(AccessRevoked):
        driver.fetch_metrics(Account("conn_1", "acme.bakery"), MEDIA_ID)


def test_metrics_without_the_insights_permission_keep_likes_and_comments(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    """A grant without the insights scope (made before it was asked for, or withheld at
    consent): the insights' figures are not counted, the media object's still are, and
    the connection is not revoked; the figures left None are those ``METRICS_SCOPES``
    says the scope gives, the table the sandbox counts by."""
    instagram.get(f"{GRAPH}/{MEDIA_ID}").respond(
        200,
        json={"media_product_type": "REELS", "like_count": 54, "comments_count": 7, "id": MEDIA_ID},
    )
    instagram.get(f"{GRAPH}/{MEDIA_ID}/insights").respond(
        400,
        json={"error": {"message": "(#10) Application does not have permission", "code": 10}},
    )
    metrics = driver.fetch_metrics(Account("conn_1", "acme.bakery"), MEDIA_ID)
    assert metrics == PostMetrics(likes=54, comments=7)
    uncounted = set(photo_sharing.METRICS_SCOPES[photo_sharing.INSIGHTS_SCOPE])
    assert uncounted == {"impressions", "shares", "saves"}
    assert all(getattr(metrics, name) is None for name in uncounted)


def test_metrics_whose_insights_are_refused_otherwise_are_unsupported(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    instagram.get(f"{GRAPH}/{MEDIA_ID}").respond(
        200, json={"media_product_type": "REELS", "id": MEDIA_ID}
    )
    instagram.get(f"{GRAPH}/{MEDIA_ID}/insights").respond(
        400,
        json={"error": {"message": "(#100) Invalid parameter", "code": 100}},
    )
    with pytest.raises(MetricsUnsupported, match="Instagram gives no figures"):
        driver.fetch_metrics(Account("conn_1", "acme.bakery"), MEDIA_ID)


def test_metrics_of_a_post_deleted_on_instagram_are_unsupported(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    instagram.get(f"{GRAPH}/{MEDIA_ID}").respond(
        400,
        json={
            "error": {
                "message": "Unsupported get request. Object with ID '17918920912340654' does "
                "not exist, cannot be loaded due to missing permissions, or does not support "
                "this operation.",
                "type": "IGApiException",
                "code": 100,
                "error_subcode": 33,
            }
        },
    )
    with pytest.raises(MetricsUnsupported, match="deleted on the network"):
        driver.fetch_metrics(Account("conn_1", "acme.bakery"), MEDIA_ID)


# --- alt text (``alt_text`` on image containers, since 2025-03-24,
# https://developers.facebook.com/docs/instagram-platform/content-publishing) ---


def test_a_photos_alt_text_goes_on_its_image_container(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram)
    container = instagram.post(f"{GRAPH}/{USER}/media").respond(200, json={"id": "178894"})
    instagram.get(f"{GRAPH}/178894").respond(200, json={"status_code": "FINISHED", "id": "178894"})
    instagram.post(f"{GRAPH}/{USER}/media_publish").respond(200, json={"id": "17920"})
    instagram.get(f"{GRAPH}/17920").respond(
        200, json={"permalink": "https://www.instagram.com/p/Alt1/", "id": "17920"}
    )
    sent = delivery()
    assert sent.media is not None
    driver.publish(replace(sent, media=replace(sent.media, alt_text="Sourdough, sliced")))
    assert form_of(container.calls.last.request)["alt_text"] == "Sourdough, sliced"


def test_a_carousels_image_items_carry_their_alt_text(
    instagram: respx.MockRouter, driver: InstagramDriver
) -> None:
    me(instagram)
    created = instagram.post(f"{GRAPH}/{USER}/media")
    created.side_effect = [
        httpx.Response(200, json={"id": container}) for container in ("901", "902", "903", "910")
    ]
    for container in ("901", "902", "903", "910"):
        instagram.get(f"{GRAPH}/{container}").respond(
            200, json={"status_code": "FINISHED", "id": container}
        )
    instagram.post(f"{GRAPH}/{USER}/media_publish").respond(200, json={"id": "17920238422030999"})
    published_carousel(instagram)
    sent = carousel()
    first, video, third = sent.items
    items = (replace(first, alt_text="Rye"), video, replace(third, alt_text="Spelt"))

    driver.publish(replace(sent, items=items))

    alts = [form_of(call.request).get("alt_text") for call in created.calls]
    assert alts == ["Rye", None, "Spelt", None]


def test_alt_text_on_a_video_is_refused_before_any_request(driver: InstagramDriver) -> None:
    sent = delivery(MediaKind.VIDEO)
    assert sent.media is not None
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(replace(sent, media=replace(sent.media, alt_text="A reel")))
    assert refused.value.field == "fileAlts.file_1"
    assert refused.value.rule is not None and refused.value.rule.id == "photo_sharing.alt_text"


@pytest.mark.parametrize(
    "body",
    [
        {"media_type": "STORIES", "image_url": LINK, "alt_text": "a story"},
        {"media_type": "REELS", "video_url": LINK, "alt_text": "a reel"},
        {"media_type": "VIDEO", "video_url": LINK, "is_carousel_item": "true", "alt_text": "v"},
    ],
)
def test_the_contract_refuses_alt_text_but_on_an_image_post(body: dict[str, str]) -> None:
    request = httpx.Request(
        "POST", f"{GRAPH}/{USER}/media", data=body, headers={"Authorization": "Bearer IGAAtoken"}
    )
    with pytest.raises(AssertionError, match="alt_text is for image posts"):
        instagram_contract.contract().check(request)
