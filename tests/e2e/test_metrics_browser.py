"""The metrics pages in Chromium: a post's chart and table, and a campaign's totals per
network, show the numbers the API returns, and pass axe."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.conftest import LiveServer, check_page
from tests.e2e.test_dashboard import api
from tests.e2e.test_posts_browser import signed_up_with_microblog

pytestmark = pytest.mark.browser

FIGURES = ("impressions", "views", "likes", "comments", "shares", "saves", "clicks")


def _round(live: LiveServer, key: str) -> None:
    started = api(live, key, "POST", "/api/posts/metrics/refresh", json={})
    assert started.status_code == 202, started.text
    round_id = started.json()["round"]["roundId"]
    for _ in range(300):
        found = api(live, key, "GET", f"/api/posts/metrics/rounds/{round_id}").json()["round"]
        if found["status"] != "running":
            return
        time.sleep(0.05)
    raise AssertionError("the round did not end")


def test_a_posts_chart_and_a_campaigns_totals_show_the_apis_numbers(
    page: Any, axe: Any, live_server: LiveServer
) -> None:
    key, connection = signed_up_with_microblog(page, axe, live_server)
    records = []
    for i in range(2):
        body = {
            "connectionId": connection,
            "text": f"metrics {i}",
            "campaign": {"name": "autumn", "edition": "e1", "postId": f"p{i}", "flowRunId": "r"},
        }
        answer = api(live_server, key, "POST", "/api/v2/microblog/publish", json=body)
        assert answer.status_code == 200, answer.text
        records.append(answer.json()["recordId"])
    _round(live_server, key)
    time.sleep(1.1)
    _round(live_server, key)
    metrics = api(live_server, key, "GET", f"/api/posts/{records[0]}/metrics").json()
    assert len(metrics["series"]) == 2

    page.goto(f"/posts/{records[0]}")
    page.get_by_role("link", name="Figures over time").click()
    page.wait_for_url(f"**/posts/{records[0]}/metrics")
    check_page(page, axe, "metrics-post")
    chart = page.locator("svg#post-chart")
    assert chart.get_attribute("role") == "img"
    latest = metrics["latest"]
    counted = [n for n in FIGURES if latest[n] is not None]
    assert counted
    for name in counted:
        label = chart.locator(f'g[data-figure="{name}"] text.label').text_content()
        assert label == f"{name} {latest[name]:,}"
    rows = page.locator("#post-metrics-table tbody tr")
    assert rows.count() == 2
    for i, snapshot in enumerate(metrics["series"]):
        for name in counted:
            cell = rows.nth(i).locator(f'td[data-figure="{name}"]').inner_text()
            assert cell == str(snapshot[name])

    totals = api(live_server, key, "GET", "/api/campaigns/autumn/metrics").json()
    page.goto("/campaigns/autumn/metrics")
    check_page(page, axe, "metrics-campaign")
    [network] = totals["networks"]
    for name in counted:
        bar = page.locator(f'svg#campaign-{name} g.bar[data-name="microblog"]')
        assert bar.locator("text.value").text_content() == f"{network['totals'][name]:,}"
        cell = page.locator(
            f'#campaign-metrics-table tr[data-network="microblog"] td[data-figure="{name}"]'
        )
        assert cell.inner_text() == str(network["totals"][name])
    page.goto("/campaigns/never/metrics")
    assert page.get_by_role("heading", name="Campaign not found").is_visible()


def test_a_threads_metrics_page_shows_each_part_and_the_total(
    page: Any, axe: Any, live_server: LiveServer
) -> None:
    key, connection = signed_up_with_microblog(page, axe, live_server)
    body = {"connectionId": connection, "text": "part 1", "thread": [{"text": "part 2"}]}
    answer = api(live_server, key, "POST", "/api/v2/microblog/publish", json=body)
    assert answer.status_code == 200, answer.text
    record = answer.json()["recordId"]
    _round(live_server, key)
    metrics = api(live_server, key, "GET", f"/api/posts/{record}/metrics").json()
    assert [p["index"] for p in metrics["parts"]] == [1]

    page.goto(f"/posts/{record}/metrics")
    check_page(page, axe)
    table = page.locator("#post-parts-table")
    assert table.locator("caption").is_visible()
    rows = table.locator("tr:has(th[scope=row])")
    assert rows.count() == 3
    counted = [n for n in FIGURES if metrics["totals"][n] is not None]
    for i, figures in enumerate(
        (metrics["latest"], metrics["parts"][0]["latest"], metrics["totals"])
    ):
        for name in counted:
            cell = rows.nth(i).locator(f'td[data-figure="{name}"]').inner_text()
            assert cell == str(figures[name])
