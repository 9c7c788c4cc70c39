"""The Campaigns pages in Chromium, against the tests' real Prefect server: the campaigns
seen, a deployed campaign's week and month in its zone, a run's posts, and a Prefect that
no longer answers; every page axe clean."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pressroom.platforms import RULES, Platform
from tests.e2e.conftest import LiveServer, check_page
from tests.e2e.test_posts_browser import signed_up_with_microblog
from tests.pipeline.conftest import prefect_harness  # noqa: F401  the session's Prefect server
from tests.pipeline.test_campaigns_calendar import CAMPAIGN, deployed  # noqa: F401

pytestmark = pytest.mark.browser


def test_campaigns_runs_and_the_calendar_in_chromium(
    page: Any,
    axe: Any,
    live_server: LiveServer,
    deployed: dict[str, Any],  # noqa: F811
) -> None:
    live = live_server
    by_day = {r["expected_start_time"][:10]: r["id"] for r in deployed["runs"]}
    run = by_day["2027-03-28"]
    key, microblog = signed_up_with_microblog(page, axe, live)
    with httpx.Client(base_url=live.address, headers={"X-API-Key": key}, timeout=10) as client:
        for n in (1, 2):
            sent = client.post(
                RULES[Platform.MICROBLOG].publish_path,
                json={
                    "connectionId": microblog,
                    "text": f"run post {n}",
                    "campaign": {"name": CAMPAIGN, "edition": "scheduled", "flowRunId": run},
                },
            )
            assert sent.status_code == 200, sent.text

    settings = live.app.state.settings
    settings.prefect_api_url = deployed["api"]
    settings.prefect_ui_url = "http://prefect.test:4200"
    try:
        page.goto("/campaigns?day=2027-03-26")
        page.get_by_role("heading", name="Campaigns", exact=True).wait_for()
        row = page.locator(f'tr[data-campaign="{CAMPAIGN}"]')
        assert "2 published" in row.inner_text()
        calendar = page.locator(f'section[data-deployment="{CAMPAIGN}"]')
        sunday = calendar.locator('td[data-day="2027-03-28"] li')
        assert sunday.locator("time").inner_text() == "09:00 CEST"
        assert calendar.locator('td[data-day="2027-03-27"] time').inner_text() == "09:00 CET"
        assert (
            sunday.get_by_role("link", name="Run of 28 Mar 09:00 in Prefect").get_attribute("href")
            == f"http://prefect.test:4200/runs/flow-run/{run}"
        )
        check_page(page, axe, "campaigns-week")

        page.get_by_role("link", name="Month").click()
        assert "view=month" in page.url
        assert calendar.locator('td[data-day="2027-03-29"] time').inner_text() == "09:00 CEST"
        check_page(page, axe)

        page.goto("/campaigns?day=2027-03-26")
        calendar.locator('td[data-day="2027-03-28"]').get_by_role(
            "link", name="2 published"
        ).click()
        page.wait_for_url(f"**/campaigns/runs/{run}")
        texts = page.locator("table.posts tbody tr td:nth-child(7)").all_inner_texts()
        assert texts == ["run post 2", "run post 1"]
        check_page(page, axe)

        settings.prefect_api_url = "http://127.0.0.1:9/api"  # nothing listens there
        page.goto("/campaigns")
        assert page.get_by_role("status").inner_text().startswith("Prefect is unreachable")
        assert page.locator(f'tr[data-campaign="{CAMPAIGN}"]').count() == 1
        check_page(page, axe)
    finally:
        settings.prefect_api_url = None
        settings.prefect_ui_url = None
