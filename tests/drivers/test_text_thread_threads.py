"""The text_thread driver against the Threads API's documented shapes (respx replays them).

Pages read 2026-11-25:

- Access tokens and permissions: https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions
- Long-lived tokens: https://developers.facebook.com/docs/threads/get-started/long-lived-tokens
- Posts (text containers, threads_publish): https://developers.facebook.com/docs/threads/posts
- Media of a user: https://developers.facebook.com/docs/threads/threads-media
- Error codes (Graph shape), container status: https://developers.facebook.com/docs/threads/troubleshooting
- Publishing quota (threads_publishing_limit): https://developers.facebook.com/docs/threads/overview

Every request is held to the Threads contract (``tests/drivers/contracts/threads.py``):
documented endpoints and parameters, the token as the ``access_token`` parameter in a
POST body (a read as a POST with ``method=GET``), the scopes asked for at consent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
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
    LookupUnsupported,
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
from pressroom.service.drivers.text_thread import ThreadsDriver
from tests.drivers.contract import calls_read_as, held_to
from tests.drivers.contracts import threads as threads_contract

API = "https://graph.threads.net/v1.0"
CALLBACK = "https://press.example/oauth/callback/text_thread"
USER = "25899828646306"
CONTAINER = "17889615691921648"
SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "THAAtoken"


@pytest.fixture
def slept() -> list[float]:
    return []


@pytest.fixture
def driver(slept: list[float]) -> Iterator[ThreadsDriver]:
    http = NetworkClient(Platform.TEXT_THREAD, timeout_seconds=5, backoff_seconds=0)
    yield ThreadsDriver("1234567", "threads-secret", Tokens(), http, sleep=slept.append)
    http.close()


@pytest.fixture(autouse=True)
def threads(driver: ThreadsDriver) -> Iterator[respx.MockRouter]:
    """Threads, played by respx; every request is held to its contract at the end."""
    consent = urlsplit(
        driver.authorization_url(redirect_uri=CALLBACK, state="s", code_verifier="v")
    )
    asked = frozenset(parse_qs(consent.query)["scope"][0].split(","))
    with (
        respx.mock(assert_all_mocked=True, assert_all_called=True) as router,
        held_to(router, threads_contract.contract(granted=asked)),
    ):
        yield router


def read(router: respx.MockRouter, path: str) -> respx.Route:
    """A documented GET, which the driver sends as a POST with method=GET."""
    return router.post(f"{API}{path}", data__contains={"method": "GET"})


def form(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode()).items()}


def ready_to_publish(threads: respx.MockRouter, quota_usage: int = 4) -> respx.Route:
    """The user id, a quota with room, a container made and ready."""
    read(threads, "/me").respond(200, json={"id": USER})
    read(threads, f"/{USER}/threads_publishing_limit").respond(
        200,
        json={
            "data": [
                {
                    "quota_usage": quota_usage,
                    "config": {"quota_total": 250, "quota_duration": 86400},
                }
            ]
        },
    )
    return threads.post(f"{API}/{USER}/threads", data__contains={"media_type": "TEXT"}).respond(
        200, json={"id": CONTAINER}
    )


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
        "scope": "threads_basic,threads_content_publish,threads_manage_insights,threads_read_replies",
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
    me = read(threads, "/me").respond(
        200, json={"id": USER, "username": "acme.bakery", "name": "Acme Bakery"}
    )
    profile = driver.fetch_profile(TokenSet("THAA", None, None))
    assert (profile.name, profile.display_name) == ("acme.bakery", "Acme Bakery")
    # Threads documents the access_token parameter, no header: in the body, not the URL
    request = me.calls.last.request
    assert request.url.query == b"" and "authorization" not in request.headers
    assert form(request) == {"fields": "id,username,name", "access_token": "THAA", "method": "GET"}


def test_a_text_post_waits_for_its_container_then_publishes(
    threads: respx.MockRouter, driver: ThreadsDriver, slept: list[float]
) -> None:
    made = ready_to_publish(threads)
    status = read(threads, f"/{CONTAINER}")
    status.side_effect = [
        httpx.Response(200, json={"status": "IN_PROGRESS", "id": CONTAINER}),
        httpx.Response(200, json={"status": "FINISHED", "id": CONTAINER}),
    ]
    publish = threads.post(f"{API}/{USER}/threads_publish").respond(200, json={"id": "1789012345"})
    read(threads, "/1789012345").respond(
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
    assert form(made.calls.last.request) == {
        "media_type": "TEXT",
        "text": "Fresh bread at 7 #bakery",
        "access_token": "THAAtoken",
    }
    assert form(status.calls.last.request)["fields"] == "status,error_message"
    assert form(publish.calls.last.request) == {
        "creation_id": CONTAINER,
        "access_token": "THAAtoken",
    }
    # published only once the container said FINISHED: a short first wait, then longer
    assert slept == [1.0, 2.0]
    order = [c.request for c in threads.calls]
    assert order.index(publish.calls.last.request) > order.index(status.calls.last.request)


def test_a_thread_part_is_a_container_replying_to_the_part_before(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    made = ready_to_publish(threads)
    read(threads, f"/{CONTAINER}").respond(200, json={"status": "FINISHED", "id": CONTAINER})
    threads.post(f"{API}/{USER}/threads_publish").respond(200, json={"id": "1789012346"})
    read(threads, "/1789012346").respond(
        200,
        json={
            "permalink": "https://www.threads.net/@acme.bakery/post/C1a2B4",
            "timestamp": "2026-11-25T12:00:04+0000",
            "id": "1789012346",
        },
    )
    part = replace(delivery("Rye on Fridays."), reply_to="1789012345")
    assert driver.publish(part).platform_post_id == "1789012346"
    assert form(made.calls.last.request) == {
        "media_type": "TEXT",
        "text": "Rye on Fridays.",
        "reply_to_id": "1789012345",
        "access_token": "THAAtoken",
    }


def test_a_thread_part_of_unknown_outcome_is_found_among_the_replies_of_the_part_before(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    """Its author and words, made since the send; someone else's reply with the same
    words and the account's own older one are passed by."""
    read(threads, "/me").respond(200, json={"username": "acme.bakery", "id": USER})
    replies = read(threads, "/1789012345/replies").respond(
        200,
        json={
            "data": [
                {
                    "id": "1789012399",
                    "text": "Rye on Fridays.",
                    "username": "someone.else",
                    "timestamp": "2026-11-25T12:00:09+0000",
                    "permalink": "https://www.threads.net/@someone.else/post/X",
                },
                {
                    "id": "1789012346",
                    "text": "Rye on Fridays.",
                    "username": "acme.bakery",
                    "timestamp": "2026-11-25T12:00:04+0000",
                    "permalink": "https://www.threads.net/@acme.bakery/post/C1a2B4",
                },
                {
                    "id": "1789000001",
                    "text": "Rye on Fridays.",
                    "username": "acme.bakery",
                    "timestamp": "2026-11-24T12:00:04+0000",
                    "permalink": "https://www.threads.net/@acme.bakery/post/Old",
                },
            ]
        },
    )
    part = replace(delivery("Rye on Fridays."), reply_to="1789012345")
    found = driver.find_delivery(part, SENT_AT)
    assert found is not None
    assert (found.platform_post_id, found.url) == (
        "1789012346",
        "https://www.threads.net/@acme.bakery/post/C1a2B4",
    )
    assert form(replies.calls.last.request)["fields"] == (
        "id,text,username,timestamp,permalink,media_type"
    )


def test_a_thread_part_not_among_the_replies_was_not_published(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    read(threads, "/me").respond(200, json={"username": "acme.bakery", "id": USER})
    read(threads, "/1789012345/replies").respond(200, json={"data": []})
    part = replace(delivery("Rye on Fridays."), reply_to="1789012345")
    assert driver.find_delivery(part, SENT_AT) is None


def test_a_token_without_the_replies_permission_leaves_the_part_unknown(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    """A connection made before ``threads_read_replies`` was asked for: Threads refuses
    the read, and the part stays unknown (never sent again) until it is reconnected."""
    read(threads, "/me").respond(200, json={"username": "acme.bakery", "id": USER})
    read(threads, "/1789012345/replies").respond(
        403,
        json={"error": {"message": "Application does not have permission", "code": 10}},
    )
    part = replace(delivery("Rye on Fridays."), reply_to="1789012345")
    with pytest.raises(LookupUnsupported, match="threads_read_replies"):
        driver.find_delivery(part, SENT_AT)


@pytest.mark.parametrize(
    ("status", "message"), [("ERROR", "FAILED_PROCESSING_VIDEO"), ("EXPIRED", None)]
)
def test_a_container_threads_will_not_take_is_refused_and_never_published(
    threads: respx.MockRouter, driver: ThreadsDriver, status: str, message: str | None
) -> None:
    ready_to_publish(threads)
    read(threads, f"/{CONTAINER}").respond(
        200,
        json={"status": status, "id": CONTAINER, **({"error_message": message} if message else {})},
    )
    with pytest.raises(PlatformRefused, match=message or status) as caught:
        driver.publish(delivery())
    assert caught.value.field == "text"
    assert not any(c.request.url.path.endswith("/threads_publish") for c in threads.calls)


def test_a_container_still_processing_after_the_wait_is_not_sent(
    threads: respx.MockRouter, slept: list[float]
) -> None:
    http = NetworkClient(Platform.TEXT_THREAD, timeout_seconds=5, backoff_seconds=0)
    driver = ThreadsDriver(
        "1234567", "threads-secret", Tokens(), http, container_wait_seconds=10, sleep=slept.append
    )
    ready_to_publish(threads)
    read(threads, f"/{CONTAINER}").respond(200, json={"status": "IN_PROGRESS", "id": CONTAINER})
    with pytest.raises(PlatformUnavailable) as caught:
        driver.publish(delivery())
    http.close()
    assert caught.value.sent is False and not isinstance(caught.value, PlatformRateLimited)
    assert slept == [1.0, 2.0, 4.0, 3.0]  # ten seconds in all, then nothing is published


def test_a_used_up_daily_quota_is_a_rate_limit_and_nothing_is_sent(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    read(threads, "/me").respond(200, json={"id": USER})
    limit = read(threads, f"/{USER}/threads_publishing_limit").respond(
        200,
        json={
            "data": [{"quota_usage": 250, "config": {"quota_total": 250, "quota_duration": 86400}}]
        },
    )
    with pytest.raises(PlatformRateLimited) as caught:
        driver.publish(delivery())
    assert caught.value.retry_after == 3600 and caught.value.sent is False
    assert "250" in str(caught.value)
    assert form(limit.calls.last.request)["fields"] == "quota_usage,config"
    assert [c.request.url.path for c in threads.calls] == [
        "/v1.0/me",
        f"/v1.0/{USER}/threads_publishing_limit",
    ]


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
    ready_to_publish(threads)
    read(threads, f"/{CONTAINER}").respond(200, json={"status": "FINISHED", "id": CONTAINER})
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
    read(threads, "/me").respond(200, json={"id": USER})
    listed = read(threads, f"/{USER}/threads").respond(
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
    params = form(listed.calls.last.request)
    assert params["fields"] == "id,text,timestamp,permalink"
    assert int(params["since"]) == int(SENT_AT.timestamp()) - 120


# --- drivers check: what Threads says, read without posting ----------------------------


def test_inspect_reports_the_profile_its_scopes_and_its_quota_posting_nothing(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    profile = read(threads, "/me").respond(
        200, json={"id": USER, "username": "acme.bakery", "name": "Acme", "is_verified": True}
    )
    read(threads, f"/{USER}/threads_publishing_limit").respond(
        200,
        json={
            "data": [{"quota_usage": 250, "config": {"quota_total": 250, "quota_duration": 86400}}]
        },
    )

    report = driver.inspect(Account("conn_twin", "acme.bakery"))

    assert calls_read_as(threads) == {
        ("GET", "graph.threads.net/v1.0/me"),
        ("GET", f"graph.threads.net/v1.0/{USER}/threads_publishing_limit"),
    }
    assert "is_verified" in form(profile.calls.last.request)["fields"]
    assert report.scopes == {
        "threads_basic": ScopeState.GRANTED,
        "threads_content_publish": ScopeState.GRANTED,
        "threads_manage_insights": ScopeState.UNKNOWN,  # for metrics; no inspect read shows it
        "threads_read_replies": ScopeState.UNKNOWN,  # only a reply's look-up shows it
    }
    lines = {f.topic: f for f in report.findings}
    assert (report.audit, lines["verification"].says) == ("is_verified true", "is_verified true")
    assert lines["audit"].standing is Standing.UNKNOWN
    assert report.quota is not None and report.quota.left == 0
    assert lines["quota"].standing is Standing.BLOCKED  # the 251st post would be refused
    assert report.can_publish is False


def test_inspect_sees_a_grant_without_publishing(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    read(threads, "/me").respond(200, json={"id": USER, "username": "acme.bakery"})
    read(threads, f"/{USER}/threads_publishing_limit").respond(
        400,
        json={"error": {"message": "(#10) Application does not have permission", "code": 10}},
    )

    report = driver.inspect(Account("conn_twin", "acme.bakery"))

    assert report.scopes["threads_content_publish"] is ScopeState.MISSING
    assert report.quota is None
    assert {f.topic: f.standing for f in report.findings}["scopes"] is Standing.BLOCKED


LINK = "https://press.example/storage/files/file_1?expires=1&signature=s"


class Links:
    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        return f"{LINK}&file={file_id}"

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        raise AssertionError("Threads fetches media by link")


def carousel_delivery() -> Delivery:
    """A carousel of an image and a video, with its text."""
    from pressroom.platforms import MediaKind
    from pressroom.service.drivers.base import Media

    return replace(
        delivery("Three loaves, three ways"),
        items=(
            Media("file_1", MediaKind.IMAGE, "image/jpeg", "files/file_1", None, 1000),
            Media("file_2", MediaKind.VIDEO, "video/mp4", "files/file_2", 10.0, 1000),
        ),
    )


def carousel_read_back(threads: respx.MockRouter, post_id: str = "1789099999") -> respx.Route:
    return read(threads, f"/{post_id}").respond(
        200,
        json={
            "permalink": "https://www.threads.net/@acme.bakery/post/Car1",
            "timestamp": "2026-11-25T12:00:02+0000",
            "children": {"data": [{"id": "1801"}, {"id": "1802"}]},
            "id": post_id,
        },
    )


def test_a_carousel_is_item_containers_then_a_carousel_container_then_publish(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    driver.media = Links()
    read(threads, "/me").respond(200, json={"id": USER})
    read(threads, f"/{USER}/threads_publishing_limit").respond(
        200, json={"data": [{"quota_usage": 1, "config": {"quota_total": 250}}]}
    )
    made = threads.post(f"{API}/{USER}/threads", data__contains={"access_token": "THAAtoken"})
    made.side_effect = [httpx.Response(200, json={"id": c}) for c in ("501", "502", "510")]
    for container in ("501", "502", "510"):
        read(threads, f"/{container}").respond(200, json={"status": "FINISHED", "id": container})
    publish = threads.post(f"{API}/{USER}/threads_publish").respond(200, json={"id": "1789099999"})
    back = carousel_read_back(threads)

    post = driver.publish(carousel_delivery())

    forms = [form(call.request) for call in made.calls]
    for sent in forms:
        assert sent.pop("access_token") == "THAAtoken"
    assert forms == [
        {"media_type": "IMAGE", "image_url": f"{LINK}&file=file_1", "is_carousel_item": "true"},
        {"media_type": "VIDEO", "video_url": f"{LINK}&file=file_2", "is_carousel_item": "true"},
        {"media_type": "CAROUSEL", "children": "501,502", "text": "Three loaves, three ways"},
    ]
    assert form(publish.calls.last.request)["creation_id"] == "510"
    assert form(back.calls.last.request)["fields"] == "permalink,timestamp,children"
    assert post.platform_post_id == "1789099999"
    assert [(item.platform_post_id, item.url) for item in post.items] == [
        ("1801", "https://www.threads.net/@acme.bakery/post/Car1?img_index=1"),
        ("1802", "https://www.threads.net/@acme.bakery/post/Car1?img_index=2"),
    ]


def test_a_thread_part_with_a_file_is_a_media_container_replying_to_the_part_before(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    """A later part with one file: an IMAGE container with its link, its text and
    ``reply_to_id``, awaited FINISHED, then published."""
    from pressroom.platforms import MediaKind
    from pressroom.service.drivers.base import Media

    driver.media = Links()
    read(threads, "/me").respond(200, json={"id": USER})
    read(threads, f"/{USER}/threads_publishing_limit").respond(
        200, json={"data": [{"quota_usage": 1, "config": {"quota_total": 250}}]}
    )
    made = threads.post(f"{API}/{USER}/threads").respond(200, json={"id": CONTAINER})
    status = read(threads, f"/{CONTAINER}").respond(
        200, json={"status": "FINISHED", "id": CONTAINER}
    )
    threads.post(f"{API}/{USER}/threads_publish").respond(200, json={"id": "1789012346"})
    read(threads, "/1789012346").respond(
        200,
        json={
            "permalink": "https://www.threads.net/@acme.bakery/post/C1a2B4",
            "timestamp": "2026-11-25T12:00:04+0000",
            "id": "1789012346",
        },
    )
    image = Media("file_1", MediaKind.IMAGE, "image/jpeg", "files/file_1", None, 1000)
    part = replace(delivery("Rye on Fridays."), reply_to="1789012345", media=image)
    assert driver.publish(part).platform_post_id == "1789012346"
    assert form(made.calls.last.request) == {
        "media_type": "IMAGE",
        "image_url": f"{LINK}&file=file_1",
        "text": "Rye on Fridays.",
        "reply_to_id": "1789012345",
        "access_token": "THAAtoken",
    }
    assert status.called


def test_an_unknown_carousel_is_found_with_its_items(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    read(threads, "/me").respond(200, json={"id": USER})
    listed = read(threads, f"/{USER}/threads").respond(
        200,
        json={
            "data": [
                {
                    "id": "1789099999",
                    "text": "Three loaves, three ways",
                    "media_type": "CAROUSEL_ALBUM",
                    "timestamp": "2026-11-25T12:00:02+0000",
                    "permalink": "https://www.threads.net/@acme.bakery/post/Car1",
                }
            ]
        },
    )
    carousel_read_back(threads)
    found = driver.find_delivery(carousel_delivery(), SENT_AT)
    assert found is not None and [i.platform_post_id for i in found.items] == ["1801", "1802"]
    assert form(listed.calls.last.request)["fields"] == "id,text,timestamp,permalink,media_type"


# --- metrics (GET /{media_id}/insights, https://developers.facebook.com/docs/threads/insights) ---

POST_ID = "18031234567890123"


def insight(name: str, value: int) -> dict[str, object]:
    return {
        "name": name,
        "period": "lifetime",
        "values": [{"value": value}],
        "title": name.title(),
        "description": f"The number of {name} of the post.",
        "id": f"{POST_ID}/insights/{name}/lifetime",
    }


def test_metrics_are_the_posts_insights(threads: respx.MockRouter, driver: ThreadsDriver) -> None:
    insights = read(threads, f"/{POST_ID}/insights").respond(
        200,
        json={
            "data": [
                insight("views", 812),
                insight("likes", 40),
                insight("replies", 6),
                insight("reposts", 3),
                insight("quotes", 1),
                insight("shares", 2),
            ]
        },
    )
    metrics = driver.fetch_metrics(Account("conn_twin", "acme.bakery"), POST_ID)
    assert metrics == PostMetrics(impressions=812, likes=40, comments=6, shares=6)
    sent = form(insights.calls.last.request)
    assert sent["metric"] == "views,likes,replies,reposts,quotes,shares"
    assert isinstance(driver, MetricsDriver)


def test_metrics_of_a_refused_token_are_access_revoked(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    read(threads, f"/{POST_ID}/insights").respond(
        400,
        json={
            "error": {
                "message": "Error validating access token: The session has been invalidated",
                "type": "OAuthException",
                "code": 190,
            }
        },
    )
    with pytest.raises(AccessRevoked):
        driver.fetch_metrics(Account("conn_twin", "acme.bakery"), POST_ID)


def test_metrics_without_the_insights_permission_are_unsupported_not_revoked(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    read(threads, f"/{POST_ID}/insights").respond(
        400,
        json={"error": {"message": "(#10) Application does not have permission", "code": 10}},
    )
    with pytest.raises(MetricsUnsupported, match="threads_manage_insights"):
        driver.fetch_metrics(Account("conn_twin", "acme.bakery"), POST_ID)


def test_metrics_of_a_post_deleted_on_threads_are_unsupported(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    read(threads, f"/{POST_ID}/insights").respond(
        400,
        json={
            "error": {
                "message": "Unsupported get request. Object with ID '18031234567890123' does "
                "not exist, cannot be loaded due to missing permissions, or does not support "
                "this operation.",
                "type": "GraphMethodException",
                "code": 100,
                "error_subcode": 33,
            }
        },
    )
    with pytest.raises(MetricsUnsupported, match="deleted on the network"):
        driver.fetch_metrics(Account("conn_twin", "acme.bakery"), POST_ID)


def test_metrics_over_the_rate_limit_are_rate_limited(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    read(threads, f"/{POST_ID}/insights").respond(
        400, json={"error": {"message": "(#4) Application request limit reached", "code": 4}}
    )
    with pytest.raises(PlatformRateLimited):
        driver.fetch_metrics(Account("conn_twin", "acme.bakery"), POST_ID)


# --- alt text (``alt_text`` on IMAGE and VIDEO containers,
# https://developers.facebook.com/docs/threads/posts/accessibility) ---


def test_each_carousel_item_carries_its_alt_text_on_its_container(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    driver.media = Links()
    read(threads, "/me").respond(200, json={"id": USER})
    read(threads, f"/{USER}/threads_publishing_limit").respond(
        200, json={"data": [{"quota_usage": 1, "config": {"quota_total": 250}}]}
    )
    made = threads.post(f"{API}/{USER}/threads")
    made.side_effect = [httpx.Response(200, json={"id": c}) for c in ("501", "502", "510")]
    for container in ("501", "502", "510"):
        read(threads, f"/{container}").respond(200, json={"status": "FINISHED", "id": container})
    threads.post(f"{API}/{USER}/threads_publish").respond(200, json={"id": "1789099999"})
    carousel_read_back(threads)
    sent = carousel_delivery()
    image, video = sent.items
    described = replace(
        sent,
        items=(replace(image, alt_text="Three loaves"), replace(video, alt_text="Slicing rye")),
    )

    driver.publish(described)

    forms = [form(call.request) for call in made.calls]
    assert [f.get("alt_text") for f in forms] == ["Three loaves", "Slicing rye", None]


def test_a_thread_parts_file_carries_its_alt_text(
    threads: respx.MockRouter, driver: ThreadsDriver
) -> None:
    from pressroom.platforms import MediaKind
    from pressroom.service.drivers.base import Media

    driver.media = Links()
    read(threads, "/me").respond(200, json={"id": USER})
    read(threads, f"/{USER}/threads_publishing_limit").respond(
        200, json={"data": [{"quota_usage": 1, "config": {"quota_total": 250}}]}
    )
    made = threads.post(f"{API}/{USER}/threads").respond(200, json={"id": CONTAINER})
    read(threads, f"/{CONTAINER}").respond(200, json={"status": "FINISHED", "id": CONTAINER})
    threads.post(f"{API}/{USER}/threads_publish").respond(200, json={"id": "1789012346"})
    read(threads, "/1789012346").respond(
        200,
        json={
            "permalink": "https://www.threads.net/@acme.bakery/post/C1a2B4",
            "timestamp": "2026-11-25T12:00:04+0000",
            "id": "1789012346",
        },
    )
    image = Media(
        "file_1", MediaKind.IMAGE, "image/jpeg", "files/file_1", None, 1000, alt_text="Rye loaf"
    )
    driver.publish(replace(delivery("Rye on Fridays."), reply_to="1789012345", media=image))
    assert form(made.calls.last.request)["alt_text"] == "Rye loaf"


@pytest.mark.parametrize(
    "body",
    [
        {"media_type": "TEXT", "text": "Hello", "alt_text": "nothing to describe"},
        {"media_type": "CAROUSEL", "children": "501,502", "alt_text": "on the carousel"},
    ],
)
def test_the_contract_refuses_alt_text_on_a_text_or_carousel_container(
    body: dict[str, str],
) -> None:
    request = httpx.Request(
        "POST", f"{API}/{USER}/threads", data=body | {"access_token": "THAAtoken"}
    )
    with pytest.raises(AssertionError, match="alt_text"):
        threads_contract.contract().check(request)
