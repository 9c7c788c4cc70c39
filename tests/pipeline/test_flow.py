"""The run-campaign flow end to end: real service over HTTP, real Prefect, sandbox platforms."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pressroom.pipeline.runner import run_campaign_file
from tests.pipeline import prefect_api
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.support.media import make_image

TEXT_CAMPAIGN = """\
name: launch-words
retries: {attempts: 8, backoff_seconds: 0.1, max_delay_seconds: 0.2}
posts:
  - id: teaser
    microblog: {text: "Something is coming."}
    professional_network: {text: "Something is coming, and we are proud of it."}
  - id: reveal
    microblog: {text: "It is here."}
    professional_network: {text: "It is here: the spring collection."}
  - id: thanks
    microblog: {text: "Thank you!"}
"""


def connect_all(live: LiveService) -> None:
    for name in ("@acme", "@acme_help", "@acme_jobs"):
        live.connect("microblog", name)
    live.connect("professional_network", "Acme Inc.")


@pytest.mark.parametrize("mode", ["before", "after"])
def test_every_post_goes_out_once_through_transient_failures(
    live_service: LiveService, write_campaign: WriteCampaign, mode: str
) -> None:
    """With mode ``after`` the platform keeps the post and still answers 503: the retry
    carries the same Idempotency-Key, the service looks the post up on the platform and
    answers with it instead of sending a second one (the sandbox does not dedupe here)."""
    connect_all(live_service)
    knobs = live_service.settings.sandbox
    knobs.sandbox_failure_rate, knobs.sandbox_failure_mode = 0.5, mode
    campaign = write_campaign(TEXT_CAMPAIGN)

    outcome = run_campaign_file(campaign)

    assert outcome.ok, outcome.message
    assert Counter(row["status"] for row in outcome.rows) == {"published": 11}
    delivered = Counter(
        (d.connection_id, d.payload["fields"]["text"]) for d in live_service.deliveries()
    )
    assert len(delivered) == 11 and set(delivered.values()) == {1}, delivered

    runs = prefect_api.task_runs(outcome.flow_run_id or "", expected=12)
    publishes = [r for r in runs if " · " in r.name]
    attempts = sum(r.run_count for r in publishes)
    print(
        f"mode {mode}: {attempts} attempts for {len(publishes)} targets; deliveries per "
        f"target {dict(Counter(delivered.values()))}"
    )  # shown with -rP
    assert len(publishes) == 11
    assert "microblog · @acme_help · reveal" in {r.name for r in publishes}
    assert max(r.run_count for r in publishes) > 1, "the failure knob caused no retry"
    assert all(r.state.is_completed() for r in publishes)


def test_a_retry_waits_for_retry_after(
    live_service: LiveService, write_campaign: WriteCampaign
) -> None:
    live_service.connect("microblog", "@acme")
    knobs = live_service.settings.sandbox
    knobs.sandbox_failure_rate = 0.6
    campaign = write_campaign(TEXT_CAMPAIGN)

    outcome = run_campaign_file(campaign)
    assert outcome.ok
    retried_rows = [r for r in outcome.rows if r["attempts"] > 1]
    assert retried_rows, "no row was retried"
    for r in retried_rows:  # the time of every attempt, the Retry-After waits included
        assert r["duration_seconds"] >= 2.0 * (r["attempts"] - 1), r
    assert all(r["idempotency_key"] for r in outcome.rows if r["kind"] == "post")
    # pressroom's own lines reach the run's logs in Prefect (the UI), and no key does.
    lines = prefect_api.logs(outcome.flow_run_id or "")
    waits = [line for line in lines if line.name == "pressroom.pipeline.steps"]
    assert any("waiting 2 s (" in line.message for line in waits), [w.message for w in waits]
    assert all(line.task_run_id for line in waits), "tied to the task run that waited"
    assert not any(live_service.key in line.message for line in lines)
    by_key: dict[str | None, list[object]] = {}
    for post in live_service.posts():
        by_key.setdefault(post.idempotency_key, []).append(post)
    retried = [records for records in by_key.values() if len(records) > 1]
    assert retried, "no post was retried"
    for records in retried:
        failed, *_, published = records
        assert failed.status == "failed" and published.status == "published"  # type: ignore[attr-defined]
        waited = (published.created_at - failed.created_at).total_seconds()  # type: ignore[attr-defined]
        assert waited >= 2.0, f"retried after {waited:.2f} s; the sandbox said Retry-After: 2"


def test_a_rerun_skips_what_was_published_and_a_new_edition_posts_anew(
    live_service: LiveService, write_campaign: WriteCampaign, tmp_path: Path
) -> None:
    connect_all(live_service)
    campaign = write_campaign(TEXT_CAMPAIGN)
    first = run_campaign_file(campaign)
    assert first.ok and len(live_service.deliveries()) == 11

    again = run_campaign_file(campaign)
    assert again.ok
    assert {row["status"] for row in again.rows} == {"skipped"}
    assert all(row["url"] for row in again.rows), "a skipped row still says where the post is"
    assert len(live_service.deliveries()) == 11

    next_week = run_campaign_file(campaign, edition="2026-w48")
    assert {row["status"] for row in next_week.rows} == {"published"}
    named = prefect_api.flow_run(next_week.flow_run_id or "").name
    assert named == "launch-words · 2026-w48"
    assert prefect_api.flow_run(again.flow_run_id or "").name == "launch-words · manual"
    assert len(live_service.deliveries()) == 22

    log = (tmp_path / "results" / "launch-words.jsonl").read_text().splitlines()
    assert len(log) == 33


def test_the_results_table_is_printed_once_after_the_run(
    live_service: LiveService, write_campaign: WriteCampaign, capsys: pytest.CaptureFixture[str]
) -> None:
    """The runner prints the table the flow left it, once the run has ended."""
    connect_all(live_service)
    outcome = run_campaign_file(write_campaign(TEXT_CAMPAIGN), edition="table")
    assert outcome.ok
    out = capsys.readouterr().out
    assert out.count("launch-words · table") == 1
    for name in ("teaser", "reveal", "thanks"):
        assert name in out
    assert out.count("published") == 11  # 3 posts, 11 targets


def test_requests_in_flight_stay_within_the_run_and_platform_limits(
    live_service: LiveService, write_campaign: WriteCampaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PRESSROOM_PIPELINE_CONCURRENCY bounds the publishes talking to the service at once
    (the flow has more threads than that), PRESSROOM_PIPELINE_PLATFORM_CONCURRENCY those
    to one platform."""
    from pressroom.pipeline import steps

    monkeypatch.setenv("PRESSROOM_PIPELINE_CONCURRENCY", "3")
    monkeypatch.setenv("PRESSROOM_PIPELINE_PLATFORM_CONCURRENCY", "2")
    connect_all(live_service)
    lock = threading.Lock()
    now: Counter[str] = Counter()
    most: Counter[str] = Counter()
    publish = steps.publish_post

    def held(client: Any, planned: Any, *args: Any, **kwargs: Any) -> Any:
        platform = planned.platform.value
        with lock:
            now[platform] += 1
            now["all"] += 1
            for name in (platform, "all"):
                most[name] = max(most[name], now[name])
        try:
            time.sleep(0.3)  # long enough for every free thread to try to join in
            return publish(client, planned, *args, **kwargs)
        finally:
            with lock:
                now[platform] -= 1
                now["all"] -= 1

    monkeypatch.setattr(steps, "publish_post", held)
    outcome = run_campaign_file(write_campaign(TEXT_CAMPAIGN), edition="limits")
    assert outcome.ok and len(outcome.rows) == 11
    assert (most["all"], most["microblog"]) == (3, 2)
    assert most["professional_network"] <= 2


def test_inactive_connections_are_skipped_and_reported(
    live_service: LiveService, write_campaign: WriteCampaign
) -> None:
    connect_all(live_service)
    from pressroom.service.connections.service import expire_token
    from pressroom.service.db.session import transaction

    with transaction(live_service.sessions) as db:
        expire_token(db, live_service.connections["@acme_jobs"])
    outcome = run_campaign_file(write_campaign(TEXT_CAMPAIGN))
    assert outcome.ok
    skipped = [r for r in outcome.rows if r["status"] == "skipped"]
    assert {r["connection"] for r in skipped} == {"@acme_jobs"}
    assert all("inactive" in r["error"] for r in skipped)
    assert len(live_service.deliveries()) == 8


def test_a_dry_run_posts_nothing(live_service: LiveService, write_campaign: WriteCampaign) -> None:
    connect_all(live_service)
    outcome = run_campaign_file(write_campaign(TEXT_CAMPAIGN), dry_run=True)
    assert outcome.ok and "11 posts planned" in outcome.message
    assert live_service.deliveries() == []


def test_two_runs_of_one_edition_at_the_same_moment_post_once(
    live_service: LiveService, write_campaign: WriteCampaign
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    connect_all(live_service)
    live_service.settings.sandbox.sandbox_latency_ms = 300
    campaign = write_campaign(TEXT_CAMPAIGN)
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda _: run_campaign_file(campaign), range(2)))

    assert all(outcome.ok for outcome in outcomes), [o.message for o in outcomes]
    delivered = Counter(
        (d.connection_id, d.payload["fields"]["text"]) for d in live_service.deliveries()
    )
    assert len(delivered) == 11 and set(delivered.values()) == {1}, delivered
    # What one run published, the other reports as a replay or a cached result: never twice.
    rows = [row for outcome in outcomes for row in outcome.rows]
    assert Counter(row["status"] for row in rows) == {"published": 11, "skipped": 11}
    assert {row["reason"] for row in rows if row["status"] == "skipped"} == {"already published"}


def test_a_post_that_keeps_failing_reports_its_key_attempts_and_total_time(
    live_service: LiveService, write_campaign: WriteCampaign
) -> None:
    live_service.connect("microblog", "@acme")
    live_service.settings.sandbox.sandbox_failure_rate = 1.0
    outcome = run_campaign_file(
        write_campaign(
            "name: doomed\nretries: {attempts: 2, backoff_seconds: 0.1, max_delay_seconds: 0.1}\n"
            "posts: [{id: a, microblog: {text: 'Never.'}}]\n"
        )
    )
    assert outcome.state == "FAILED"
    [row] = outcome.rows
    assert row["status"] == "failed" and row["error"].startswith("gave up after 2 attempts")
    assert row["idempotency_key"] and row["attempts"] == 2
    assert row["duration_seconds"] >= 2.0  # the first attempt waited out Retry-After: 2


def test_a_post_ready_later_goes_out_while_a_full_platforms_posts_still_wait(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Text posts are ready first and media posts once their files are: the text posts
    of a platform whose places are full must not hold every thread, or the image post
    waits behind all of them (``pressroom.pipeline.feeding``)."""
    from pressroom.pipeline import steps

    monkeypatch.setenv("PRESSROOM_PIPELINE_CONCURRENCY", "2")  # 4 threads
    monkeypatch.setenv("PRESSROOM_PIPELINE_PLATFORM_CONCURRENCY", "1")
    for name in ("@acme", "@acme_help", "@acme_jobs"):
        live_service.connect("microblog", name)
    live_service.connect("photo_sharing", "acme.photos", account_type="business")
    make_image(tmp_path / "still.png", size=(40, 40))
    posts = "".join(f'  - id: words-{n}\n    microblog: {{text: "Part {n}."}}\n' for n in range(3))
    campaign = tmp_path / "fed.yaml"
    campaign.write_text(
        "name: fed\nmedia:\n  still: {path: still.png}\nposts:\n"
        + posts
        + '  - id: still\n    media: still\n    photo_sharing: {caption: "A still."}\n',
        encoding="utf-8",
    )
    started: list[str] = []
    publish = steps.publish_post

    def slow(client: Any, planned: Any, *args: Any, **kwargs: Any) -> Any:
        started.append(planned.platform.value)
        time.sleep(0.3)
        return publish(client, planned, *args, **kwargs)

    monkeypatch.setattr(steps, "publish_post", slow)
    outcome = run_campaign_file(campaign, edition="fed")
    assert outcome.ok and len(outcome.rows) == 10
    # Nine microblog posts go out one at a time; the image does not wait for them all.
    assert started.index("photo_sharing") < 4, started
