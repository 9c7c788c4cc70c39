"""Threads in campaigns end to end: `thread:` in a block, sent by the flow to the real
service over HTTP, each part a reply to the one before; a part refused reported partial."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from pressroom.pipeline.runner import run_campaign_file
from pressroom.platforms import Platform
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.support.publish import refuse_part

THREAD_CAMPAIGN = """\
name: launch-thread
retries: {attempts: 3, backoff_seconds: 0.1, max_delay_seconds: 0.2}
posts:
  - id: story
    microblog:
      text: "part 1"
      thread:
        - "part 2"
        - "part 3"
"""


def posts_of(live: LiveService) -> list[dict[str, Any]]:
    """The account's post records as ``GET /api/posts`` answers them."""
    answer = httpx.get(f"{live.base_url}/api/posts", headers={"X-API-Key": live.key})
    assert answer.status_code == 200, answer.text
    posts: list[dict[str, Any]] = answer.json()["posts"]
    return posts


def test_a_campaign_thread_goes_out_as_a_chain_of_replies(
    live_service: LiveService, write_campaign: WriteCampaign, tmp_path: Path
) -> None:
    live_service.connect("microblog", "@acme")
    outcome = run_campaign_file(write_campaign(THREAD_CAMPAIGN))

    assert outcome.ok, outcome.message
    [row] = outcome.rows
    assert row["status"] == "published"
    sent = live_service.deliveries()
    assert [d.payload["fields"]["text"] for d in sent] == ["part 1", "part 2", "part 3"]
    assert [d.payload["replyTo"] for d in sent] == [
        None,
        sent[0].platform_post_id,
        sent[1].platform_post_id,
    ]

    [record] = posts_of(live_service)
    assert record["status"] == "published"
    assert record["idempotencyKey"] == row["idempotency_key"]
    assert [(p["index"], p["kind"], p["platformPostId"], p["status"]) for p in record["parts"]] == [
        (i, "post" if i == 0 else "reply", d.platform_post_id, "published")
        for i, d in enumerate(sent)
    ]
    # The result log keeps the parts.
    [logged] = [
        json.loads(line)
        for line in (tmp_path / "results" / "launch-thread.jsonl").read_text().splitlines()
    ]
    assert [(p["index"], p["status"], p["url"]) for p in logged["parts"]] == [
        (p["index"], "published", p["url"]) for p in record["parts"]
    ]


def test_a_thread_cut_short_is_partial_and_the_next_run_resumes_it(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    live_service.connect("microblog", "@acme")
    campaign = write_campaign(THREAD_CAMPAIGN)
    with monkeypatch.context() as patched:
        refused = refuse_part(live_service.app, patched, Platform.MICROBLOG, "part 3")
        cut = run_campaign_file(campaign)

    assert not cut.ok, "a partial post fails the run"
    assert refused == ["part 3"], "refused for good: not retried within the run"
    [row] = cut.rows
    assert row["status"] == "partial"
    assert [p["status"] for p in row["parts"]] == ["published", "published", "failed"]
    assert row["url"] == row["parts"][0]["url"] and "refused part 2" in row["error"]
    assert "partial (2/3 parts stand)" in capsys.readouterr().out
    [record] = posts_of(live_service)
    assert record["status"] == "partial"

    # The next run of the edition sends the same key: the service resumes after part 2.
    again = run_campaign_file(campaign)
    assert again.ok, again.message
    [resumed] = again.rows
    assert resumed["status"] == "published"
    assert resumed["idempotency_key"] == row["idempotency_key"]
    sent = live_service.deliveries()
    assert [d.payload["fields"]["text"] for d in sent] == ["part 1", "part 2", "part 3"]
    assert sent[2].payload["replyTo"] == sent[1].platform_post_id
    [record] = posts_of(live_service)
    assert record["status"] == "published"
    assert [p["status"] for p in record["parts"]] == ["published"] * 3


def test_a_part_that_keeps_failing_in_passing_is_retried_then_reported_partial(
    live_service: LiveService, write_campaign: WriteCampaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sandbox's failure knobs fail every delivery of part 3 before it reaches the
    network (503, transient): each retry carries the same key and resends part 3 alone;
    when the retries are spent, the row is partial with the two parts that stand."""
    live_service.connect("microblog", "@acme")
    tried = fail_part(live_service, monkeypatch, Platform.MICROBLOG, "part 3")

    outcome = run_campaign_file(write_campaign(THREAD_CAMPAIGN))

    assert not outcome.ok
    [row] = outcome.rows
    assert (row["status"], row["attempts"]) == ("partial", 3)
    assert row["error"].startswith("gave up after 3 attempts: 503 platform_unavailable")
    assert [p["status"] for p in row["parts"]] == ["published", "published", "failed"]
    assert len(tried) == 3, "part 3 tried once per attempt"
    sent = live_service.deliveries()
    assert [d.payload["fields"]["text"] for d in sent] == ["part 1", "part 2"]  # never resent
    [record] = posts_of(live_service)
    assert record["status"] == "partial"


def fail_part(
    live: LiveService, monkeypatch: pytest.MonkeyPatch, platform: Platform, words: str
) -> list[str]:
    """Every delivery of ``words`` fails as the sandbox's failure knobs make it fail
    (``before``: it never reaches the network); the others go out."""
    from pressroom.service.drivers import drivers_of

    knobs = live.settings.sandbox
    sandbox = drivers_of(live.app)[platform]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]
    tried: list[str] = []

    async def failing(delivery: Any) -> Any:
        if delivery.fields.get("text") != words:
            return await sent_on_loop(delivery)
        tried.append(words)
        knobs.sandbox_failure_rate, knobs.sandbox_failure_mode = 1.0, "before"  # type: ignore[assignment]
        try:
            return await sent_on_loop(delivery)
        finally:
            knobs.sandbox_failure_rate = 0.0

    monkeypatch.setattr(sandbox, "publish_async", failing)
    return tried
