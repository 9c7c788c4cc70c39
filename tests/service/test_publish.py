"""Spec 4.4 and section 2: each platform publishes, with its result shape, and is recorded."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest

from pressroom.platforms import RULES, Platform
from pressroom.service.db.models import File
from pressroom.service.db.session import transaction
from pressroom.service.drivers import build_drivers
from pressroom.service.drivers.base import (
    Delivery,
    PlatformDriver,
    Published,
    ThumbnailChange,
    ThumbnailSet,
)
from tests.conftest import Service
from tests.support.publish import deliveries, error_of, publish, valid_body

ID_SHAPES = {
    Platform.MICROBLOG: r"[1-9]\d{18}",
    Platform.VIDEO_SHARING: r"[A-Za-z0-9_-]{11}",
    Platform.SHORT_VIDEO: r"[1-9]\d{18}",
    Platform.PHOTO_SHARING: r"[1-9]\d{16}",
    Platform.PAGE_SOCIAL: r"[1-9]\d{14}_[1-9]\d{14}",
    Platform.PIN_BOARD: r"[1-9]\d{17}",
    Platform.TEXT_THREAD: r"[1-9]\d{16}",
    Platform.PROFESSIONAL_NETWORK: r"urn:li:share:[1-9]\d{18}",
    Platform.OPEN_MICROBLOG: r"at://did:plc:[a-z2-7]{24}/app\.bsky\.feed\.post/[2-7a-z]{13}",
}
URL_SHAPES = {
    Platform.MICROBLOG: r"https://microblog\.example/[\w.-]+/status/{id}",
    Platform.VIDEO_SHARING: r"https://video-sharing\.example/watch\?v={id}",
    Platform.SHORT_VIDEO: r"https://short-video\.example/@[\w.-]+/video/{id}",
    Platform.PHOTO_SHARING: r"https://photo-sharing\.example/p/[\w-]{11}/",
    Platform.PAGE_SOCIAL: r"https://page-social\.example/\d+/posts/\d+",
    Platform.PIN_BOARD: r"https://pin-board\.example/pin/{id}/",
    Platform.TEXT_THREAD: r"https://text-thread\.example/@[\w.-]+/post/[\w-]{11}",
    Platform.PROFESSIONAL_NETWORK: r"https://professional-network\.example/feed/update/{id}/",
    Platform.OPEN_MICROBLOG: r"https://open-microblog\.example/profile/[\w.-]+/post/[2-7a-z]{13}",
}


@pytest.mark.parametrize("platform", list(Platform))
def test_every_platform_publishes_with_its_result_shape(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = valid_body(account, platform)
    response = publish(account, platform, body)
    assert response.status_code == 200, response.text
    result = response.json()

    id_field = RULES[platform].id_field
    platform_id = result[id_field]
    assert re.fullmatch(ID_SHAPES[platform], platform_id)
    assert re.fullmatch(URL_SHAPES[platform].replace("{id}", re.escape(platform_id)), result["url"])
    assert result["success"] is True
    assert result["platform"] == platform.value
    assert result["connectionId"] == body["connectionId"]
    assert result["status"] == "published"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", result["publishedAt"])
    assert result["recordId"].startswith("post_")
    expected_keys = {"success", "platform", "connectionId", "status", "publishedAt", "url"}
    expected_keys |= {"recordId", id_field}
    if platform == Platform.VIDEO_SHARING:
        expected_keys.add("privacyStatus")
        # Our extension: what the network says it applied (the sandbox says nothing).
        expected_keys |= {"appliedPrivacyStatus", "appliedMadeForKids"}
    if platform == Platform.SHORT_VIDEO:
        expected_keys |= {"publishId", "privacyLevel", "publiclyAvailable"}  # our extension
    if platform == Platform.PIN_BOARD:
        expected_keys.add("boardId")
    if platform == Platform.OPEN_MICROBLOG:
        expected_keys.add("cid")  # the record's content hash
    assert set(result) == expected_keys

    # The platform received exactly this post, with our record as its reference.
    [delivered] = deliveries(service)
    assert delivered.platform == platform.value
    assert delivered.platform_post_id == platform_id and delivered.url == result["url"]
    assert delivered.payload["reference"] == result["recordId"]
    assert delivered.payload["media"] == (
        None
        if RULES[platform].text_only or "fileId" not in body  # open_microblog: media optional
        else {
            "fileId": body["fileId"],
            "kind": delivered.payload["media"]["kind"],
            "contentType": delivered.payload["media"]["contentType"],
            "durationSeconds": delivered.payload["media"]["durationSeconds"],
            # A file every network takes as it is goes as it is: its own bytes.
            "storageKey": _stored_key(service, body["fileId"]),
            "size": 1024,
        }
    )

    # And the service recorded it, readable by the record id.
    record = account.get(f"/api/posts/{result['recordId']}").json()["post"]  # type: ignore[attr-defined]
    assert record["status"] == "published"
    assert record["platformPostId"] == platform_id
    assert record["request"] == body
    assert record["result"] == result


def test_a_text_post_takes_no_worker_thread_for_its_checks(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A post with no file to read is checked on the event loop: a thread's hand-off
    and back cost more than its checks (a thread part naming files still takes one:
    ``test_thread_files``)."""
    from pressroom.service.publishing import service as publishing

    handed: list[str] = []
    real = publishing.run_in_threadpool

    async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
        handed.append(fn.__name__)
        return await real(fn, *args, **kwargs)

    monkeypatch.setattr(publishing, "run_in_threadpool", counted)
    account = service.account()
    body = valid_body(account, Platform.MICROBLOG, thread=[{"text": "a reply"}])
    assert publish(account, Platform.MICROBLOG, body, key="text-only").status_code == 200
    assert handed == []


def test_the_sandbox_reads_the_token_in_its_delivery_unit(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sandbox's scope check reads the connection's token in the transaction of the
    delivery it is writing, not on a pooled connection of its own."""
    from pressroom.service.drivers import tokens

    def elsewhere(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the token was read outside the delivery's unit of work")

    monkeypatch.setattr(tokens.ConnectionTokens, "access_token", elsewhere)
    account = service.account()
    body = valid_body(account, Platform.MICROBLOG)
    assert publish(account, Platform.MICROBLOG, body, key="token-in-unit").status_code == 200


def test_video_sharing_echoes_privacy_status_defaulting_to_public(service: Service) -> None:
    account = service.account()
    default = publish(account, Platform.VIDEO_SHARING, valid_body(account, Platform.VIDEO_SHARING))
    assert default.json()["privacyStatus"] == "public"
    unlisted = publish(
        account,
        Platform.VIDEO_SHARING,
        valid_body(account, Platform.VIDEO_SHARING, privacyStatus="unlisted", description="d"),
    )
    assert unlisted.json()["privacyStatus"] == "unlisted"
    sent = deliveries(service)
    assert [d.payload["fields"]["privacyStatus"] for d in sent] == ["public", "unlisted"]
    assert sent[1].payload["fields"] == {
        "title": "title for video_sharing",
        "description": "d",
        "privacyStatus": "unlisted",
    }


def test_pin_board_echoes_the_board(service: Service) -> None:
    account = service.account()
    body = valid_body(account, Platform.PIN_BOARD, boardId="recipes", title="Soup")
    result = publish(account, Platform.PIN_BOARD, body).json()
    assert result["boardId"] == "recipes"
    assert deliveries(service)[0].payload["fields"] == {"boardId": "recipes", "title": "Soup"}


@pytest.mark.parametrize(
    ("label", "message"),
    [("microblog", "not 'microblog'"), ("", "not ''"), ("SHORT_VIDEO", "not 'SHORT_VIDEO'")],
)
def test_social_post_takes_only_short_video(service: Service, label: str, message: str) -> None:
    account = service.account()
    body = valid_body(account, Platform.SHORT_VIDEO, platform=label)
    response = publish(account, Platform.SHORT_VIDEO, body)
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "validation_error" and error["field"] == "platform"
    assert message in error["message"] and "short_video" in error["message"]
    del body["platform"]
    missing = publish(account, Platform.SHORT_VIDEO, body)
    assert missing.status_code == 400 and error_of(missing)["field"] == "platform"
    assert deliveries(service) == []


class HeldPlatform:
    """A sandbox driver whose publish waits, once called, until the test lets it go."""

    def __init__(self, driver: PlatformDriver) -> None:
        self.driver = driver
        self.platform = driver.platform
        self.called = threading.Event()
        self.release = threading.Event()

    def publish(self, delivery: Delivery) -> Published:
        self.called.set()
        # Bounded, so a publish that wrongly blocks the other write ends the test, not the run.
        self.release.wait(HOLD_SECONDS)
        return self.driver.publish(delivery)

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet:
        return self.driver.set_thumbnail(change)


HOLD_SECONDS = 30


def test_a_slow_platform_holds_no_database_lock(service: Service) -> None:
    """While one publish waits on the platform, other requests still write."""
    drivers = dict(build_drivers(service.settings, service.sessions))
    held = HeldPlatform(drivers[Platform.MICROBLOG])
    drivers[Platform.MICROBLOG] = held
    service.client.app.state.platform_drivers = drivers  # type: ignore[attr-defined]
    account = service.account()
    body = valid_body(account, Platform.MICROBLOG)
    slow: dict[str, int] = {}
    thread = threading.Thread(
        target=lambda: slow.update(status=publish(account, Platform.MICROBLOG, body).status_code)
    )
    thread.start()
    try:
        assert held.called.wait(HOLD_SECONDS), "the publish never reached the platform"
        # The platform has the publish, and keeps it however long the rotation takes.
        other = service.account()
        rotated = service.client.post("/api/user/api-key", headers=other.headers)
        assert rotated.status_code == 200
        assert _statuses(service) == ["sending"], "the write waited for the platform"
    finally:
        held.release.set()
        thread.join()
    assert slow["status"] == 200
    assert _statuses(service) == ["published"]


def _statuses(service: Service) -> list[str]:
    from sqlalchemy import select

    from pressroom.service.db.models import Post
    from pressroom.service.db.session import transaction

    with transaction(service.sessions, write=False) as db:
        return list(db.scalars(select(Post.status)))


def test_openapi_documents_the_publish_routes_and_limits(service: Service) -> None:
    spec = service.client.get("/openapi.json").json()
    for rules in RULES.values():
        assert rules.publish_path in spec["paths"]
    assert "/api/v2/video_sharing/thumbnail/{videoId}" in spec["paths"]
    assert "/api/posts" in spec["paths"] and "/api/posts/{recordId}" in spec["paths"]
    microblog = spec["components"]["schemas"]["MicroblogPublish"]["properties"]
    assert "At most 280 characters" in microblog["text"]["description"]
    assert "fileId" not in microblog
    route = spec["paths"]["/api/v2/microblog/publish"]["post"]
    assert "Idempotency-Key" in {p["name"] for p in route["parameters"]}
    assert "text_too_long" in route["responses"]["400"]["description"]
    assert "platform_unavailable" in route["responses"]["503"]["description"]


def _stored_key(service: Service, file_id: str) -> str:
    with transaction(service.sessions, write=False) as db:
        file = db.get(File, file_id)
        assert file is not None
        return file.storage_key
