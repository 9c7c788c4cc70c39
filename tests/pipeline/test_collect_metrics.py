"""The ``collect-metrics`` flow against the sandbox: one campaign run on every label,
then the flow fills each post's series, stays within every network's budget, and
writes the campaign's table as an artifact."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from prefect.states import State

from pressroom.client import Client
from pressroom.pipeline.deployments import METRICS_ENTRYPOINT
from pressroom.pipeline.runner import run_campaign_file
from pressroom.platforms import RULES, Platform
from pressroom.service.metrics.budgets import budget_of
from tests.pipeline import prefect_api
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.support.media import make_image, make_video

ROOT = Path(__file__).resolve().parents[2]

TEXT_ONLY = """\
name: words-everywhere
posts:
  - id: hello
    microblog: {text: "Hello."}
    text_thread: {text: "Hello from Threads."}
    professional_network: {text: "Hello, network."}
    open_microblog: {text: "Hello, Bluesky."}
  - id: again
    microblog: {text: "Hello again."}
"""


def load_flow() -> Any:
    path, name = METRICS_ENTRYPOINT.split(":")
    spec = importlib.util.spec_from_file_location("collect_metrics_flow", ROOT / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_collect_metrics_fills_every_networks_series_within_budget(
    live_service: LiveService, write_campaign: WriteCampaign, tmp_path: Path
) -> None:
    photo = live_service.connect("photo_sharing", "acme.photos", account_type="business")
    del photo  # its text_thread twin publishes the Threads post
    live_service.connect("microblog", "@acme")
    live_service.connect("professional_network", "Acme Inc.")
    live_service.connect("open_microblog", "acme.bsky.social")
    outcome = run_campaign_file(write_campaign(TEXT_ONLY), edition="2026-w48")
    assert outcome.ok, outcome.message
    with Client(base_url=live_service.base_url, api_key=live_service.key) as client:
        media = _publish_media_posts(live_service, client, tmp_path)
        flow = load_flow()
        state: State[Any] = flow(days=1, poll_seconds=0.1, return_state=True)
        assert state.is_completed(), state
        result = state.result()
        assert result["status"] == "done"
        networks = result["networks"]
        assert set(networks) == {p.value for p in Platform}
        for label, counts in networks.items():
            assert counts["asked"] <= budget_of(Platform(label)) == counts["budget"]
            assert counts["refreshed"] >= 1 and counts["failed"] == 0, (label, counts)
        posts = client.list_posts(limit=100).posts
        assert {p.platform for p in posts} == {p.value for p in Platform}
        for post in posts:
            figures = client.post_metrics(post.record_id)
            assert figures.available and len(figures.series) == 1, post.platform
        totals = client.campaign_metrics("words-everywhere")
    assert totals.measured == 5
    flow_run_id = str(state.state_details.flow_run_id)
    by_key = {a.key: a for a in prefect_api.artifacts(flow_run_id)}
    assert set(by_key) == {"metrics-words-everywhere", "metrics-media-week"}
    table = by_key["metrics-words-everywhere"].data
    likes = {n.platform: n.totals.likes for n in totals.editions[0].networks}
    for label, count in likes.items():
        row = next(line for line in table.splitlines() if f"| {label} |" in line)
        assert (
            row.startswith("| 2026-w48 |")
            and (f"| {count:,} |" if count is not None else "–") in row
        )
    assert media


def _publish_media_posts(live: LiveService, client: Client, tmp_path: Path) -> list[str]:
    """One post on each network that needs media, under a campaign "media-week"."""
    image = client.upload(make_image(tmp_path / "still.png"))
    video = client.upload(make_video(tmp_path / "clip.mp4", 4))
    bodies: dict[Platform, dict[str, Any]] = {
        Platform.VIDEO_SHARING: {"title": "Clip", "fileId": video.file_id},
        Platform.SHORT_VIDEO: {
            "platform": "short_video",
            "fileId": video.file_id,
            "privacyLevel": "SELF_ONLY",
        },
        Platform.PHOTO_SHARING: {"caption": "Still", "fileId": image.file_id},
        Platform.PAGE_SOCIAL: {"message": "Clip", "fileId": video.file_id},
        Platform.PIN_BOARD: {"title": "Still", "fileId": image.file_id, "boardId": "board-1"},
    }
    extra: dict[Platform, dict[str, object]] = {
        Platform.VIDEO_SHARING: {"verified": True},
        Platform.PHOTO_SHARING: {"account_type": "business"},
    }
    made = []
    for platform, body in bodies.items():
        connection = live.connect(
            platform.value, f"media-{platform.value}", **extra.get(platform, {})
        )
        campaign = {
            "name": "media-week",
            "edition": "e1",
            "postId": platform.value,
            "flowRunId": "x",
        }
        for _ in range(120):  # a network's fitted copy of the file may be in the making
            answer = httpx.post(
                live.base_url + RULES[platform].publish_path,
                json={"connectionId": connection, **body, "campaign": campaign},
                headers={"X-API-Key": live.key},
                timeout=30,
            )
            if answer.status_code != 409:
                break
            time.sleep(0.5)
        assert answer.status_code == 200, answer.text
        made.append(answer.json()["recordId"])
    return made
