"""The post's metrics page lists each measured part of a thread (its replies are posts
of their own on the network) with the total the API gives."""

from __future__ import annotations

import re
import time

from tests.service.web.conftest import Browser
from tests.service.web.test_posts_pages import PUBLISH, signed_up


def test_the_post_metrics_page_lists_each_part_and_the_total(browser: Browser) -> None:
    headers, microblog = signed_up(browser)
    body = {"connectionId": microblog, "text": "part 1", "thread": [{"text": "part 2"}]}
    answer = browser.client.post(PUBLISH, headers=headers, json=body)
    assert answer.status_code == 200, answer.text
    record = answer.json()["recordId"]
    started = browser.client.post("/api/posts/metrics/refresh", headers=headers)
    round_id = started.json()["round"]["roundId"]
    deadline = time.monotonic() + 30
    while (
        browser.client.get(f"/api/posts/metrics/rounds/{round_id}", headers=headers).json()[
            "round"
        ]["status"]
        == "running"
    ):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    found = browser.client.get(f"/api/posts/{record}/metrics", headers=headers).json()
    html = browser.client.get(f"/posts/{record}/metrics").text
    table = html[html.index('id="post-parts-table"') :]
    rows = re.findall(r'<th scope="row">([^<]+)</th>(.*?)</tr>', table, re.S)
    assert [label for label, _ in rows] == ["1 (the post)", "2 (reply)", "Total"]
    for (_, cells), figures in zip(
        rows, (found["latest"], found["parts"][0]["latest"], found["totals"]), strict=True
    ):
        likes = re.search(r'data-figure="likes">([^<]+)<', cells)
        assert likes is not None and likes.group(1) == str(figures["likes"])
