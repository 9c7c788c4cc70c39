"""Valid publish bodies for every platform, and reading the sandbox's record."""

from __future__ import annotations

import time
from typing import Any

import httpx
from sqlalchemy import func, select

from pressroom.platforms import RULES, Platform
from pressroom.service.db.models import Connection, Post, SandboxDelivery
from pressroom.service.db.session import transaction
from tests.conftest import AccountHandle, Service
from tests.support.files import make_file

CONNECT_EXTRA: dict[Platform, dict[str, object]] = {
    Platform.VIDEO_SHARING: {"verified": True},
    Platform.PHOTO_SHARING: {"account_type": "business"},
}
MEDIA_KIND = {
    Platform.VIDEO_SHARING: "video",
    Platform.SHORT_VIDEO: "video",
    Platform.PHOTO_SHARING: "image",
    Platform.PAGE_SOCIAL: "video",
    Platform.PIN_BOARD: "image",
}


def connect(account: AccountHandle, platform: Platform) -> str:
    """A connection able to publish on ``platform`` (text_thread through photo_sharing)."""
    if platform == Platform.TEXT_THREAD:
        photo = account.connect("photo_sharing", None, account_type="business")
        return twin_of(account, photo)
    return account.connect(platform.value, None, **CONNECT_EXTRA.get(platform, {}))


def twin_of(account: AccountHandle, photo_connection_id: str) -> str:
    with transaction(account.service.sessions) as db:
        twin = db.scalar(select(Connection.id).where(Connection.parent_id == photo_connection_id))
    assert twin is not None
    return twin


def valid_body(
    account: AccountHandle,
    platform: Platform,
    /,
    *,
    connection_id: str | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """A body the platform accepts, with a new connection (or ``connection_id``) and (if
    needed) a ready file."""
    body: dict[str, Any] = {"connectionId": connection_id or connect(account, platform)}
    if platform in MEDIA_KIND:
        body["fileId"] = make_file(account, MEDIA_KIND[platform])
    for rule in RULES[platform].text_fields:
        if rule.required:
            body[rule.name] = f"{rule.name} for {platform.value}"
    if platform == Platform.SHORT_VIDEO:
        body["platform"] = "short_video"
        body["privacyLevel"] = "SELF_ONLY"  # TikTok has the owner choose, with no default
    if platform == Platform.PIN_BOARD:
        body["boardId"] = "board-1"
    body.update(overrides)
    return body


def publish(
    account: AccountHandle,
    platform: Platform,
    body: dict[str, Any],
    *,
    key: str | None = None,
) -> httpx.Response:
    headers = dict(account.headers)
    if key is not None:
        headers["Idempotency-Key"] = key
    return account.service.client.post(RULES[platform].publish_path, json=body, headers=headers)


def publish_when_fitted(
    account: AccountHandle,
    platform: Platform,
    body: dict[str, Any],
    *,
    key: str | None = None,
    timeout: float = 30.0,
) -> httpx.Response:
    """Publish, and while the service answers 409 ``file_not_ready`` (the file is being
    converted for the network) send the same request again, as clients do; the last
    answer."""
    deadline = time.monotonic() + timeout
    while True:
        response = publish(account, platform, body, key=key)
        waiting = response.status_code == 409 and error_code(response) == "file_not_ready"
        if not waiting or time.monotonic() > deadline:
            return response
        assert response.headers["Retry-After"].isdigit(), response.headers
        time.sleep(0.1)


def error_code(response: httpx.Response) -> str | None:
    body = response.json()
    error = body.get("error") if isinstance(body, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def deliveries(service: Service, kind: str = "post") -> list[SandboxDelivery]:
    with transaction(service.sessions, write=False) as db:
        return list(
            db.scalars(
                select(SandboxDelivery)
                .where(SandboxDelivery.kind == kind)
                .order_by(SandboxDelivery.id)
            )
        )


def post_count(service: Service) -> int:
    with transaction(service.sessions, write=False) as db:
        return db.scalar(select(func.count()).select_from(Post)) or 0


def error_of(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert body["success"] is False, body
    error: dict[str, Any] = body["error"]
    request_id = error.pop("requestId")
    if "Idempotent-Replayed" not in response.headers:  # a replay keeps the first answer's
        assert request_id == response.headers["X-Request-ID"], body
    return error


def refuse_part(app: Any, monkeypatch: Any, platform: Platform, words: str) -> list[str]:
    """The app's sandbox refuses, as the network would for good (a 4xx), every delivery
    whose text is ``words``: a thread's later part so refused leaves the post partial.
    Returns the texts refused, in order."""
    from pressroom.service.drivers import drivers_of
    from pressroom.service.drivers.base import PlatformRefused

    sandbox = drivers_of(app)[platform]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]
    refused: list[str] = []

    async def refusing(delivery: Any) -> Any:
        if delivery.fields.get("text") == words:
            refused.append(words)
            raise PlatformRefused(f"{platform.value} refuses it: a duplicate", field="text")
        return await sent_on_loop(delivery)

    monkeypatch.setattr(sandbox, "publish_async", refusing)
    return refused
