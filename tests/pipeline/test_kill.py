"""A run killed mid fan-out, then run again: every post exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from pressroom.pipeline.runner import run_campaign_file
from tests.pipeline import prefect_api
from tests.pipeline.conftest import LiveService, WriteCampaign

HANDLES = [f"@acme{i}" for i in range(6)]
CAMPAIGN = "name: busy-week\nposts:\n" + "".join(
    f"  - id: day-{day}\n    microblog: {{text: 'Day {day} of launch week.'}}\n"
    for day in range(1, 5)
)


def test_a_killed_run_is_finished_by_a_rerun_without_double_posts(
    live_service: LiveService, write_campaign: WriteCampaign, tmp_path: Path
) -> None:
    for handle in HANDLES:
        live_service.connect("microblog", handle)
    live_service.settings.sandbox.sandbox_latency_ms = 400
    campaign = write_campaign(CAMPAIGN)
    planned = len(HANDLES) * 4

    from prefect.settings import PREFECT_API_URL

    # The killed run reports to the session's Prefect server, where the rerun looks.
    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value())}
    run = subprocess.Popen(
        [sys.executable, "-m", "pressroom.cli.main", "campaign", "run", str(campaign)],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while len(live_service.deliveries()) < 3:
        assert run.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "the run never started publishing"
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    killed_at = len(live_service.deliveries())
    assert killed_at < planned, "the run finished before the kill: nothing to resume"

    live_service.settings.sandbox.sandbox_latency_ms = 0
    outcome = run_campaign_file(campaign)

    assert outcome.ok, outcome.message
    statuses = Counter(row["status"] for row in outcome.rows)
    assert statuses["published"] + statuses["skipped"] == planned
    deliveries = live_service.deliveries()
    per_target = Counter(
        Counter((d.connection_id, d.payload["fields"]["text"]) for d in deliveries).values()
    )
    print(
        f"killed after {killed_at} of {planned} deliveries; rerun rows {dict(statuses)}; "
        f"deliveries per target {dict(per_target)}"
    )  # shown with -rP
    assert len(deliveries) == planned
    per_post = Counter((d.connection_id, d.payload["fields"]["text"]) for d in deliveries)
    assert set(per_post.values()) == {1}
    published = [p for p in live_service.posts() if p.status == "published"]
    assert len(published) == planned

    # The killed run does not stay RUNNING: the rerun found its process gone on this host
    # and marked it Crashed, with the partial results of what it had done.
    killed = prefect_api.flow_run_by_pid(run.pid)
    assert killed.state.type.value == "CRASHED", killed.state
    assert f"its process ({run.pid} on " in (killed.state.message or "")
    [partial] = [a for a in prefect_api.artifacts(str(killed.id)) if a.key == "busy-week-results"]
    assert "Partial results" in (partial.description or "")
