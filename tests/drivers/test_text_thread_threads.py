"""The text_thread driver against the Threads API's documented shapes (respx replays them).

Pages read 2026-11-25:

- Access tokens and permissions: https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
- Long-lived tokens: https://developers.facebook.com/docs/threads/get-started/long-lived-tokens
- Posts (text containers, threads_publish): https://developers.facebook.com/docs/threads/posts
- Media of a user: https://developers.facebook.com/docs/threads/threads-media
- Error codes (Graph shape): https://developers.facebook.com/docs/threads/troubleshooting
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx

from pressroom.platforms import Platform
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    Delivery,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
    TokenRefused,
    TokenSet,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.text_thread import ThreadsDriver

API = "https://graph.threads.net/v1.0"
CALLBACK = "https://press.example/oauth/callback/text_thread"
USER = "25899828646306"
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "THAAtoken"


@pytest.fixture
def threads() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_mocked=True, assert_all_called=True) as router:
        yield router


@pytest.fixture
def driver() -> Iterator[ThreadsDriver]:
    http = NetworkClient(Platform.TEXT_THREAD, timeout_seconds=5, backoff_seconds=0)
    yield ThreadsDriver("1234567", "threads-secret", Tokens(), http)
    http.close()


def delivery(text: str = "Fresh bread at 7 #bakery") -> Delivery:
    return Delivery(
        platform=Platform.TEXT_THREAD,
        account=Account("conn_twin", "acme.bakery"),
        fields={"text": text},
        media=None,
        reference="post_1",
    )


def test_the_consent_asks_for_posting(driver: ThreadsDriver) -> None:
    url = urlsplit(driver.authorization_url(redirect_uri=CALLBACK, state="st", code_verifier="v"))
    assert f"{url.scheme}://{url.netloc}{url.path}" == "https://threads.net/oauth/authorize"
    assert {k: v[0] for k, v in parse_qs(url.query).items()} == {
        "client_id": "1234567",
        "redirect_uri": CALLBACK,
        "scope": "threads_basic,threads_content_publish",
        "response_type": "code",
        "state": "st",
    }


def test_the_code_becomes_a_self_renewing_long_lived_token(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    code = threads.post("https://graph.threads.net/oauth/access_token").respond(
        200, json={"access_token": "THAAshort", "user_id": USER}
    )
    exchange = threads.post("https://graph.threads.net/access_token").respond(
        200, json={"access_token": "THAAlong", "token_type": "bearer", "expires_in": 5183944}
    )
    refresh = threads.post("https://graph.threads.net/refresh_access_token")
    refresh.side_effect = [
        httpx.Response(
            200, json={"access_token": "THAAlong2", "token_type": "bearer", "expires_in": 5183944}
        ),
        httpx.Response(
            400,
            json={
                "error": {"message": "Session has expired", "type": "OAuthException", "code": 190}
            },
        ),
    ]
    tokens = driver.exchange_code(code="c0de", redirect_uri=CALLBACK, code_verifier="v")
    assert (tokens.access_token, tokens.refresh_token) == ("THAAlong", "THAAlong")
    assert driver.refresh("THAAlong").access_token == "THAAlong2"
    with pytest.raises(TokenRefused, match="OAuthException"):
        driver.refresh("THAAold")
    assert {k: v[0] for k, v in parse_qs(code.calls.last.request.content.decode()).items()} == {
        "client_id": "1234567",
        "client_secret": "threads-secret",
        "code": "c0de",
        "grant_type": "authorization_code",
        "redirect_uri": CALLBACK,
    }
    # Meta shows these as GETs with the secret in the query: sent as a POST body
    assert exchange.calls.last.request.url.query == refresh.calls[0].request.url.query == b""
    assert {k: v[0] for k, v in parse_qs(exchange.calls.last.request.content.decode()).items()} == {
        "grant_type": "th_exchange_token",
        "client_secret": "threads-secret",
        "access_token": "THAAshort",
        "method": "GET",
    }
    assert {k: v[0] for k, v in parse_qs(refresh.calls[0].request.content.decode()).items()} == {
        "grant_type": "th_refresh_token",
        "access_token": "THAAlong",
        "method": "GET",
    }


def test_the_profile_is_the_username(threads: respx.MockRouter, driver: ThreadsDriver) -> None:
    threads.get(f"{API}/me").respond(
        200, json={"id": USER, "username": "acme.bakery", "name": "Acme Bakery"}
    )
    profile = driver.fetch_profile(TokenSet("THAA", None, None))
    assert (profile.name, profile.display_name) == ("acme.bakery", "Acme Bakery")


def test_a_text_post_is_a_container_then_a_publish(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    threads.get(f"{API}/me").respond(200, json={"id": USER})
    container = threads.post(f"{API}/{USER}/threads").respond(200, json={"id": "1234567890"})
    publish = threads.post(f"{API}/{USER}/threads_publish").respond(200, json={"id": "1789012345"})
    threads.get(f"{API}/1789012345").respond(
        200,
        json={
            "permalink": "https://www.threads.net/@acme.bakery/post/C1a2B3",
            "timestamp": "2026-11-25T12:00:02+0000",
            "id": "1789012345",
        },
    )
    post = driver.publish(delivery())
    assert (post.platform_post_id, post.url) == (
        "1789012345",
        "https://www.threads.net/@acme.bakery/post/C1a2B3",
    )
    request = container.calls.last.request
    assert request.headers["Authorization"] == "Bearer THAAtoken"
    assert {k: v[0] for k, v in parse_qs(request.content.decode()).items()} == {
        "media_type": "TEXT",
        "text": "Fresh bread at 7 #bakery",
    }
    assert parse_qs(publish.calls.last.request.content.decode()) == {"creation_id": ["1234567890"]}


@pytest.mark.parametrize(
    ("error", "raised", "sent"),
    [
        (
            {"message": "Session has expired", "type": "OAuthException", "code": 190},
            AccessRevoked,
            None,
        ),
        (
            {"message": "Application request limit reached", "type": "OAuthException", "code": 4},
            PlatformRateLimited,
            None,
        ),
        (
            {"message": "The post is too long", "type": "THApiException", "code": 100},
            PlatformRefused,
            None,
        ),
        (
            {
                "message": "An unknown error occurred",
                "type": "OAuthException",
                "code": 2,
                "is_transient": True,
            },
            PlatformUnavailable,
            True,
        ),
    ],
)
def test_errors_of_the_publish_call(
    threads: respx.MockRouter,
    driver: ThreadsDriver,
    error: dict[str, object],
    raised: type[Exception],
    sent: bool | None,
) -> None:
    threads.get(f"{API}/me").respond(200, json={"id": USER})
    threads.post(f"{API}/{USER}/threads").respond(200, json={"id": "c1"})
    threads.post(f"{API}/{USER}/threads_publish").respond(
        400, json={"error": {**error, "fbtrace_id": "A"}}
    )
    with pytest.raises(raised) as caught:
        driver.publish(delivery())
    if sent is not None:
        assert getattr(caught.value, "sent", None) is sent


def test_an_unknown_outcome_is_found_among_the_users_threads(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    threads.get(f"{API}/me").respond(200, json={"id": USER})
    listed = threads.get(f"{API}/{USER}/threads").respond(
        200,
        json={
            "data": [
                {
                    "id": "2",
                    "text": "Fresh bread at 7 #bakery",
                    "timestamp": "2026-11-25T12:00:02+0000",
                    "permalink": "https://www.threads.net/@a/post/X",
                }
            ],
            "paging": {"cursors": {"before": "b", "after": "a"}},
        },
    )
    found = driver.find_delivery(delivery(), SENT_AT)
    assert found is not None and found.platform_post_id == "2"
    params = listed.calls.last.request.url.params
    assert params["fields"] == "id,text,timestamp,permalink"
    assert int(params["since"]) == int(SENT_AT.timestamp()) - 120
