"""The post page's "Look it up" for a post of several parts whose outcome is unknown:
each part not settled yet is looked up in order, nothing is sent, and the post is
recorded as the parts are found (with or without an Idempotency-Key)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from pressroom.platforms import Platform
from pressroom.service.db.models import SandboxDelivery
from pressroom.service.db.session import transaction
from pressroom.service.drivers import drivers_of
from pressroom.settings import Settings
from tests.service.web.conftest import Browser, csrf_of
from tests.service.web.test_posts_pages import PUBLISH, signed_up


def sent(browser: Browser) -> int:
    sessions = browser.client.app.state.session_factory  # type: ignore[attr-defined]
    with transaction(sessions, write=False) as db:
        return int(db.scalar(select(func.count()).select_from(SandboxDelivery)) or 0)


def fail_after(browser: Browser, settings: Settings, words: str) -> None:
    """The sandbox records the part with ``words`` and then fails (its answer lost), once."""
    knobs = settings.sandbox
    sandbox = drivers_of(browser.client.app)[Platform.MICROBLOG]  # type: ignore[arg-type]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]
    failed: list[str] = []

    async def failing(delivery: Any) -> Any:
        if delivery.fields.get("text") != words or failed:
            return await sent_on_loop(delivery)
        failed.append(words)
        knobs.sandbox_failure_rate, knobs.sandbox_failure_mode = 1.0, "after"
        try:
            return await sent_on_loop(delivery)
        finally:
            knobs.sandbox_failure_rate = 0.0

    sandbox.publish_async = failing  # type: ignore[attr-defined]


def test_an_unknown_thread_is_looked_up_part_by_part_from_its_page(
    browser: Browser, settings: Settings
) -> None:
    headers, microblog = signed_up(browser)
    body = {
        "connectionId": microblog,
        "text": "part 1",
        "thread": [{"text": "part 2"}, {"text": "part 3"}],
    }
    fail_after(browser, settings, "part 3")
    cut = browser.client.post(PUBLISH, headers=headers, json=body)  # no key: no retry
    assert cut.status_code == 503, cut.text
    [record] = browser.client.get("/api/posts", headers=headers).json()["posts"]
    assert record["status"] == "unknown"
    assert [p["status"] for p in record["parts"]] == ["published", "published", "unknown"]
    before = sent(browser)

    page = browser.client.get(f"/posts/{record['recordId']}").text
    assert "Look it up on microblog" in page
    looked = browser.client.post(
        f"/posts/{record['recordId']}/look-up",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    assert looked.status_code == 303
    shown = browser.client.get(looked.headers["location"]).text
    assert "microblog has this post: it is now recorded published." in shown
    [after] = browser.client.get("/api/posts", headers=headers).json()["posts"]
    assert after["status"] == "published"
    assert [p["status"] for p in after["parts"]] == ["published"] * 3
    assert after["parts"][2]["platformPostId"]
    assert sent(browser) == before, "the look-up sends nothing"
