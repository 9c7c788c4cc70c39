"""Opt-in retries: transient errors that are safe to send again, after their Retry-After."""

from __future__ import annotations

import re
import threading
import time

import anyio
import httpx
import pytest

from pressroom.client import AsyncClient, Client, ServerError
from tests.client.hosted import API_KEY, BASE_URL, Hosted

API = re.escape(BASE_URL)


def busy() -> httpx.Response:
    return httpx.Response(
        503,
        headers={"Retry-After": "3"},
        json={
            "success": False,
            "error": {"code": "database_busy", "message": "busy", "field": None},
        },
    )


def platform_down(record_status: str) -> httpx.Response:
    return httpx.Response(
        503,
        headers={"Retry-After": "2"},
        json={
            "success": False,
            "error": {
                "code": "platform_unavailable",
                "message": "down",
                "field": None,
                "recordStatus": record_status,
            },
        },
    )


PUBLISHED = {
    "success": True,
    "platform": "microblog",
    "connectionId": "conn_1",
    "status": "published",
    "publishedAt": "2026-11-23T00:00:00Z",
    "url": "https://microblog.example/a/status/1",
    "microblogPostId": "1",
}


@pytest.fixture
def slept(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait the client asked for, taking no real time.

    Only this test's own thread is counted: threads left running by other tests in the
    session (a server's poller, a log handler) keep their real sleeps, so they neither add
    to the list nor spin.
    """
    waits: list[float] = []
    test_thread = threading.get_ident()
    real_sleep = time.sleep
    real_asleep = anyio.sleep

    def sleep(seconds: float) -> None:
        if threading.get_ident() == test_thread:
            waits.append(seconds)
        else:
            real_sleep(seconds)

    async def asleep(seconds: float) -> None:
        if threading.get_ident() == test_thread:
            waits.append(seconds)
        else:
            await real_asleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)

    monkeypatch.setattr(anyio, "sleep", asleep)
    return waits


def client(hosted: Hosted, retries: int) -> Client:
    http = httpx.Client(transport=hosted.transport())
    return Client(base_url=BASE_URL, api_key=API_KEY, http_client=http, max_retries=retries)


def test_retries_are_off_unless_asked_for(hosted: Hosted, slept: list[float]) -> None:
    hosted.answer_in_turn("GET", API + "/api/upload/files", [busy(), httpx.Response(200, json={})])
    with pytest.raises(ServerError) as caught:
        (client(hosted, 0)).list_files()
    assert caught.value.code == "database_busy" and slept == []


def test_a_transient_answer_is_retried_after_its_retry_after(
    hosted: Hosted, slept: list[float]
) -> None:
    hosted.answer_in_turn(
        "GET", API + "/api/upload/files", [busy(), busy(), httpx.Response(200, json={"files": []})]
    )
    page = (client(hosted, 2)).list_files()
    assert page.files == [] and slept == [3.0, 3.0]
    assert len(hosted.requests) == 3


def test_a_publish_without_a_key_is_resent_only_when_nothing_was_done(
    hosted: Hosted, slept: list[float]
) -> None:
    path = API + "/api/v2/microblog/publish"
    hosted.answer_in_turn("POST", path, [platform_down("unknown")])
    with pytest.raises(ServerError):
        (client(hosted, 3)).publish_microblog(connection_id="conn_1", text="hi")
    assert len(hosted.requests) == 1 and slept == []  # it may be live: never resent blindly

    hosted.answer_in_turn(
        "POST", path, [platform_down("not_sent"), httpx.Response(200, json=PUBLISHED)]
    )
    result = (client(hosted, 3)).publish_microblog(connection_id="conn_1", text="hi")
    assert result.microblog_post_id == "1" and slept == [2.0]


def test_a_publish_with_a_key_is_resent_with_the_same_key(
    hosted: Hosted, slept: list[float]
) -> None:
    hosted.answer_in_turn(
        "POST",
        API + "/api/v2/microblog/publish",
        [platform_down("unknown"), httpx.Response(200, json=PUBLISHED)],
    )
    (client(hosted, 1)).publish_microblog(connection_id="conn_1", text="hi", idempotency_key="k-1")
    assert [r.headers["Idempotency-Key"] for r in hosted.requests] == ["k-1", "k-1"]


def test_a_final_error_is_never_retried(hosted: Hosted, slept: list[float]) -> None:
    hosted.answer_in_turn(
        "GET",
        API + "/api/upload/files",
        [httpx.Response(400, json={"success": False, "error": {"code": "validation_error"}})],
    )
    with pytest.raises(Exception, match="validation_error"):
        (client(hosted, 5)).list_files()
    assert len(hosted.requests) == 1 and slept == []


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_async_client_retries_the_same_way(hosted: Hosted, slept: list[float]) -> None:
    hosted.answer_in_turn(
        "GET", API + "/api/upload/files", [busy(), httpx.Response(200, json={"files": []})]
    )
    async with (
        httpx.AsyncClient(transport=hosted.transport()) as http,
        AsyncClient(base_url=BASE_URL, api_key=API_KEY, http_client=http, max_retries=1) as c,
    ):
        await c.list_files()
    assert slept == [3.0]
