"""First comments in campaigns end to end: `first_comment:` in a block, sent by the flow
to the real service over HTTP as a comment on the post; a comment refused reported
partial, and the next run of the edition sends only the comment."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pressroom.pipeline.runner import run_campaign_file
from pressroom.platforms import Platform
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.support.publish import refuse_part

COMMENTED_CAMPAIGN = """\
name: launch-comment
retries: {attempts: 3, backoff_seconds: 0.1, max_delay_seconds: 0.2}
posts:
  - id: hiring
    professional_network:
      text: "We are hiring"
      first_comment: "Apply at acme.example/jobs"
"""


def posts_of(live: LiveService) -> list[dict[str, Any]]:
    answer = httpx.get(f"{live.base_url}/api/posts", headers={"X-API-Key": live.key})
    assert answer.status_code == 200, answer.text
    posts: list[dict[str, Any]] = answer.json()["posts"]
    return posts


def test_a_refused_first_comment_is_partial_and_the_next_run_sends_only_it(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    live_service.connect("professional_network", "Ada Lovelace")
    campaign = write_campaign(COMMENTED_CAMPAIGN)
    with monkeypatch.context() as patched:
        refused = refuse_part(
            live_service.app, patched, Platform.PROFESSIONAL_NETWORK, "Apply at acme.example/jobs"
        )
        cut = run_campaign_file(campaign)

    assert not cut.ok, "a partial post fails the run"
    assert len(refused) == 1, "refused for good: not retried within the run"
    [row] = cut.rows
    assert row["status"] == "partial"
    assert [p["status"] for p in row["parts"]] == ["published", "failed"]
    assert "partial (1/2 parts stand)" in capsys.readouterr().out

    again = run_campaign_file(campaign)
    assert again.ok, again.message
    [resumed] = again.rows
    assert resumed["status"] == "published"
    assert resumed["idempotency_key"] == row["idempotency_key"]
    sent = live_service.deliveries()
    assert [(d.kind, d.payload["fields"]["text"]) for d in sent] == [
        ("post", "We are hiring"),
        ("comment", "Apply at acme.example/jobs"),
    ]
    assert sent[1].payload["commentOn"] == sent[0].platform_post_id
    [record] = posts_of(live_service)
    assert record["status"] == "published"
    assert [(p["kind"], p["status"]) for p in record["parts"]] == [
        ("post", "published"),
        ("comment", "published"),
    ]
