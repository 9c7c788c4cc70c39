"""The Posts pages in Chromium: a post's parts and its refusal, pages past the first 50,
and a partial thread retried from its page until every part stands."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pressroom.platforms import RULES, Platform
from pressroom.service.drivers import drivers_of
from pressroom.service.drivers.base import PlatformRefused
from tests.e2e.conftest import LiveServer, check_page
from tests.e2e.test_dashboard import api, connect, sign_up

pytestmark = pytest.mark.browser

THREAD = ["one", "two", "three", "four"]
REFUSAL = "X refuses it: a duplicate"


def signed_up_with_microblog(page: Any, axe: Any, live: LiveServer) -> tuple[str, str]:
    """A new account in this browser, its API key and a microblog connection's id."""
    sign_up(page, axe)
    key: str = page.locator("#new-key").input_value()
    connect(page, axe, "microblog", "@acme")
    page.wait_for_url("**/connections")
    unified = api(live, key, "GET", "/api/connections/unified").json()
    return key, next(c["id"] for c in unified if c["platform"] == "microblog")


@pytest.fixture
def refusing_part_three(live_server: LiveServer) -> Iterator[list[bool]]:
    """The live server's microblog sandbox refuses the part ``three`` for good, as X
    refuses a duplicate, until the test sets the switch it yields to False."""
    sandbox = drivers_of(live_server.app)[Platform.MICROBLOG]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]
    refusing = [True]

    async def refuses(delivery: Any) -> Any:
        if refusing[0] and delivery.fields.get("text") == "three":
            raise PlatformRefused(REFUSAL, field="text")
        return await sent_on_loop(delivery)

    sandbox.publish_async = refuses  # type: ignore[attr-defined]
    yield refusing
    sandbox.publish_async = sent_on_loop  # type: ignore[attr-defined]


def test_a_partial_thread_shows_its_parts_and_is_resumed_from_its_page(
    page: Any, axe: Any, live_server: LiveServer, refusing_part_three: list[bool]
) -> None:
    live = live_server
    key, microblog = signed_up_with_microblog(page, axe, live)
    body = {
        "connectionId": microblog,
        "text": THREAD[0],
        "thread": [{"text": t} for t in THREAD[1:]],
    }
    cut = httpx.post(
        live.address + RULES[Platform.MICROBLOG].publish_path,
        json=body,
        headers={"X-API-Key": key, "Idempotency-Key": "launch-thread"},
        timeout=10,
    )
    assert cut.status_code == 400, cut.text
    [record] = api(live, key, "GET", "/api/posts").json()["posts"]
    assert record["status"] == "partial"

    # The history says it is partly published and lists each part with its status.
    page.goto("/posts")
    row = page.locator(f'tr[data-record="{record["recordId"]}"]')
    assert row.locator(".status").first.inner_text() == "partly published"
    parts = row.locator("li[data-part]")
    assert [text.split(" open")[0] for text in parts.all_inner_texts()] == [
        "Part 0, post: published",
        "Part 1, reply: published",
        "Part 2, reply: not published",
    ]
    assert (
        row.get_by_role("link", name="open part 0 on microblog").get_attribute("href")
        == (record["parts"][0]["url"])
    )
    check_page(page, axe)

    # Its page says which parts stand, which was refused and why, and offers a retry.
    row.get_by_role("link", name=re.compile("UTC")).click()
    page.get_by_role("heading", name="Only part of this post was published").wait_for()
    summary = page.locator("section.warning-panel").inner_text()
    assert "Standing: part 0 (post), part 1 (reply)." in summary
    assert "Not published: part 2 (reply)." in summary
    assert REFUSAL in summary and "part 2 of the thread" in summary
    table = page.locator("table.parts-table tbody tr")
    assert [table.nth(i).get_attribute("data-status") for i in range(3)] == [
        "published",
        "published",
        "failed",
    ]
    assert (
        page.get_by_role("link", name="Part 1 on microblog").get_attribute("href")
        == (record["parts"][1]["url"])
    )
    check_page(page, axe, "post-partial")

    # The network takes part 2 now: Retry goes on after the parts that stand.
    refusing_part_three[0] = False
    page.get_by_role("button", name="Retry with its key").click()
    page.wait_for_url(f"**/posts/{record['recordId']}")
    notice = page.get_by_role("status").inner_text()
    assert "Retried: published on microblog, all 4 parts." in notice
    assert page.locator(".details .status").inner_text() == "published"
    assert (
        page.locator("table.parts-table tbody tr").evaluate_all(
            "rows => rows.map(r => r.dataset.status)"
        )
        == ["published"] * 4
    )
    assert page.get_by_role("button", name="Retry with its key").count() == 0
    check_page(page, axe)

    [after] = api(live, key, "GET", "/api/posts").json()["posts"]
    assert after["recordId"] == record["recordId"]  # the same record, continued
    assert after["status"] == "published"
    assert [p["status"] for p in after["parts"]] == ["published"] * 4
    assert after["parts"][:2] == record["parts"][:2]  # the parts that stood were kept


def test_the_history_pages_past_fifty_posts_and_back(
    page: Any, axe: Any, live_server: LiveServer
) -> None:
    live = live_server
    key, microblog = signed_up_with_microblog(page, axe, live)
    with httpx.Client(base_url=live.address, headers={"X-API-Key": key}, timeout=10) as client:
        for n in range(1, 56):
            sent = client.post(
                RULES[Platform.MICROBLOG].publish_path,
                json={"connectionId": microblog, "text": f"post number {n}"},
            )
            assert sent.status_code == 200, sent.text

    def texts() -> list[str]:
        cells = page.locator("table.posts tbody tr td:nth-child(7)").all_inner_texts()
        return [str(c) for c in cells]

    page.goto("/posts?platform=microblog")
    assert texts() == [f"post number {n}" for n in range(55, 5, -1)]  # 50, newest first
    assert page.get_by_role("link", name="Newer posts").count() == 0
    check_page(page, axe)

    page.get_by_role("link", name="Older posts").click()
    assert "platform=microblog" in page.url and "cursor=" in page.url  # the filter stays
    assert texts() == [f"post number {n}" for n in range(5, 0, -1)]
    assert page.get_by_role("link", name="Older posts").count() == 0
    check_page(page, axe)

    page.get_by_role("link", name="Newer posts").click()
    assert "platform=microblog" in page.url and "before=" in page.url
    assert texts() == [f"post number {n}" for n in range(55, 5, -1)]
    assert page.get_by_role("link", name="Newer posts").count() == 0

    page.goto("/posts?cursor=not-a-page")
    assert page.get_by_role("heading", name="This page of posts does not exist").is_visible()
    check_page(page, axe)


RUN = "3c2b1a09-8f7e-4d6c-9b5a-4a3b2c1d0e9f"


def test_a_campaign_run_is_found_by_its_filters_past_fifty_posts(
    page: Any, axe: Any, live_server: LiveServer
) -> None:
    live = live_server
    key, microblog = signed_up_with_microblog(page, axe, live)
    launch = {"name": "spring-launch", "edition": "scheduled-2026-03-29T09:00+02:00"}
    with httpx.Client(base_url=live.address, headers={"X-API-Key": key}, timeout=10) as client:
        for n in range(1, 56):
            sent = client.post(
                RULES[Platform.MICROBLOG].publish_path,
                json={
                    "connectionId": microblog,
                    "text": f"run post {n}",
                    "campaign": {**launch, "postId": f"p{n}", "flowRunId": RUN},
                },
            )
            assert sent.status_code == 200, sent.text
        for n in (56, 57):
            client.post(
                RULES[Platform.MICROBLOG].publish_path,
                json={"connectionId": microblog, "text": f"other post {n}"},
            )

    def texts() -> list[str]:
        cells = page.locator("table.posts tbody tr td:nth-child(7)").all_inner_texts()
        return [str(c) for c in cells]

    settings = live.app.state.settings
    settings.prefect_ui_url = "http://prefect.test:4200"
    try:
        page.goto("/posts")
        newest = page.locator("table.posts tbody tr").nth(2)  # the run's last post
        assert newest.locator("td.campaign").inner_text().split() == [
            "spring-launch",
            launch["edition"],
        ]
        assert (
            newest.get_by_role("link", name=f"Run {RUN} in Prefect").get_attribute("href")
            == f"http://prefect.test:4200/runs/flow-run/{RUN}"
        )
        check_page(page, axe)

        page.get_by_label("Run id").fill(RUN)
        page.get_by_label("Campaign").fill("spring-launch")
        page.get_by_role("button", name="Filter").click()
        page.wait_for_url(f"**flowRunId={RUN}*")
        assert texts() == [f"run post {n}" for n in range(55, 5, -1)]
        check_page(page, axe)

        page.get_by_role("link", name="Older posts").click()
        assert f"flowRunId={RUN}" in page.url and "campaign=spring-launch" in page.url
        assert texts() == [f"run post {n}" for n in range(5, 0, -1)]
        assert page.get_by_label("Run id").input_value() == RUN
        check_page(page, axe)

        page.get_by_role("link", name="Newer posts").click()
        assert f"flowRunId={RUN}" in page.url
        assert texts() == [f"run post {n}" for n in range(55, 5, -1)]
    finally:
        settings.prefect_ui_url = None
