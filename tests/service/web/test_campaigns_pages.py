"""The Campaigns pages without Prefect: the campaigns seen on posts, a run's posts, and
a Prefect that does not answer (the page says so and still lists the campaigns)."""

from __future__ import annotations

import re
import socket

import pytest

from pressroom.settings import Settings
from tests.service.web.conftest import Browser
from tests.service.web.test_posts_pages import PUBLISH, signed_up

RUN = "1a2b3c4d-0000-4000-8000-00000000aaaa"
EARLIER = "1a2b3c4d-0000-4000-8000-00000000bbbb"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends


def _publish_runs(browser: Browser) -> None:
    headers, microblog = signed_up(browser)
    sent = [
        ("spring-launch", "manual", EARLIER, "one"),
        ("spring-launch", "scheduled-2027-03-28T09:00+02:00", RUN, "two"),
        ("spring-launch", "scheduled-2027-03-28T09:00+02:00", RUN, "three"),
        ("autumn", "manual", None, "four"),
    ]
    for name, edition, run, text in sent:
        campaign = {"name": name, "edition": edition, "postId": text}
        if run:
            campaign["flowRunId"] = run
        body = {"connectionId": microblog, "text": f"post {text}", "campaign": campaign}
        answer = browser.client.post(PUBLISH, headers=headers, json=body)
        assert answer.status_code == 200, answer.text
    browser.client.post(PUBLISH, headers=headers, json={"connectionId": microblog, "text": "x"})


def test_campaigns_seen_are_listed_and_prefect_unreachable_is_said(
    browser: Browser, settings: Settings
) -> None:
    _publish_runs(browser)
    settings.prefect_api_url = f"http://127.0.0.1:{_closed_port()}/api"
    settings.prefect_ui_url = "http://prefect.test:4200"
    page = browser.client.get("/campaigns")
    assert page.status_code == 200
    html = page.text
    assert "Prefect is unreachable at <code>http://127.0.0.1:" in html
    rows = re.findall(r'<tr data-campaign="([^"]+)">', html)
    assert rows == ["autumn", "spring-launch"]  # most recent first
    spring = html.split('data-campaign="spring-launch"')[1].split("</tr>")[0]
    assert "manual, scheduled-2027-03-28T09:00+02:00" in spring
    assert "3 published" in spring
    assert f'href="/campaigns/runs/{RUN}"' in spring  # the last run
    assert f'href="http://prefect.test:4200/runs/flow-run/{RUN}"' in spring
    assert 'href="/campaigns/spring-launch/metrics"' in spring  # its figures per network
    figures = browser.client.get("/campaigns/spring-launch/metrics")
    assert figures.status_code == 200 and "spring-launch" in figures.text
    assert "Schedules" not in html

    run = browser.client.get(f"/campaigns/runs/{RUN}").text
    assert re.findall(r"<td>(post \w+)</td>", run) == ["post three", "post two"]
    assert "edition scheduled-2027-03-28T09:00+02:00" in run
    assert f'href="http://prefect.test:4200/runs/flow-run/{RUN}"' in run


def test_without_prefect_the_page_says_what_is_not_shown(
    browser: Browser, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    _publish_runs(browser)
    settings.prefect_api_url = None
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    html = browser.client.get("/campaigns").text
    assert "Prefect's API is not set" in html
    assert re.findall(r'<tr data-campaign="([^"]+)">', html) == ["autumn", "spring-launch"]
