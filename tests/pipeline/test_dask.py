"""A campaign's fan-out on a Dask cluster (a scheduler and two workers, each a process as an
operator starts them), with one worker killed mid-run: every post exactly once."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.pipeline import prefect_api
from tests.pipeline.conftest import LiveService, WriteCampaign, free_port

ROOT = Path(__file__).resolve().parents[2]
HANDLES = [f"@acme{i}" for i in range(6)]
POSTS = 5
CAMPAIGN = "name: dask-week\nposts:\n" + "".join(
    f"  - id: day-{day}\n    microblog: {{text: 'Day {day} on the cluster.'}}\n"
    for day in range(1, POSTS + 1)
)
FINISHED = re.compile(r"Task run 'microblog · [^']*' - Finished in state Completed")


def start(command: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with open(log, "wb") as output:
        return subprocess.Popen(
            [sys.executable, "-m", *command],
            env=env,
            cwd=ROOT,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def running_states(task_run_id: object) -> int:
    """How many times a task run entered RUNNING: more than once when its worker died with
    it in hand and another ran it again."""
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        states = client.read_task_run_states(task_run_id)  # type: ignore[arg-type]
    return sum(1 for state in states if state.type.value == "RUNNING")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(20)


@pytest.fixture
def cluster_env(live_service: LiveService) -> dict[str, str]:
    """What every process of the run needs: the service, the key, the pipeline's state
    and the Prefect server the flow reports to (the session's)."""
    from prefect.settings import PREFECT_API_URL

    return {
        **os.environ,
        "PREFECT_API_URL": str(PREFECT_API_URL.value()),
        # The flow is loaded from its file as module ``run_campaign``, its tasks from the
        # checkout's ``tasks``: the scheduler and the workers import both from there.
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "flows")]),
    }


@pytest.fixture
def cluster(
    tmp_path: Path, cluster_env: dict[str, str]
) -> Iterator[tuple[str, list[subprocess.Popen[bytes]], list[Path]]]:
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    with ExitStack() as stack:
        scheduler = start(
            [
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
                "--no-show",
            ],
            tmp_path / "scheduler.log",
            cluster_env,
        )
        stack.callback(stop, scheduler)
        logs = [tmp_path / f"worker{i}.log" for i in range(2)]
        workers = [
            start(
                [
                    "distributed.cli.dask_worker",
                    address,
                    "--nthreads",
                    "4",
                    "--no-dashboard",
                    "--name",
                    f"w{i}",
                ],
                log,
                cluster_env,
            )
            for i, log in enumerate(logs)
        ]
        for worker in workers:
            stack.callback(stop, worker)
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers, logs


def test_a_fan_out_on_dask_survives_a_killed_worker_with_every_post_once(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    tmp_path: Path,
    cluster: tuple[str, list[subprocess.Popen[bytes]], list[Path]],
    cluster_env: dict[str, str],
) -> None:
    from pressroom.service.ops import metrics

    address, (doomed, _survivor), (doomed_log, _) = cluster
    replays_before = metrics.IDEMPOTENT_REPLAYS._value.get()
    for handle in HANDLES:
        live_service.connect("microblog", handle)
    live_service.settings.sandbox.sandbox_latency_ms = 500
    planned = len(HANDLES) * POSTS
    campaign = write_campaign(CAMPAIGN)
    run = start(
        ["pressroom.cli.main", "campaign", "run", str(campaign)],
        tmp_path / "run.log",
        {**cluster_env, "PRESSROOM_PIPELINE_DASK_ADDRESS": address},
    )
    try:
        deadline = time.monotonic() + 180
        while len(FINISHED.findall(doomed_log.read_text(errors="replace"))) < 2:
            assert run.poll() is None, (tmp_path / "run.log").read_text()
            assert time.monotonic() < deadline, "the first worker never ran a publish"
            time.sleep(0.05)
        stop(doomed)  # kill -9, with publishes of its own still in hand
        done_before = len(live_service.deliveries())
        assert done_before < planned, "the run finished before the kill: nothing was lost"
        assert run.wait(240) == 0, (tmp_path / "run.log").read_text()
    finally:
        stop(run)

    deliveries = live_service.deliveries()
    per_post = Counter((d.connection_id, d.payload["fields"]["text"]) for d in deliveries)
    replayed = int(metrics.IDEMPOTENT_REPLAYS._value.get() - replays_before)
    flow_run = prefect_api.flow_run_by_pid(run.pid)
    publishes = [
        t
        for t in prefect_api.task_runs(str(flow_run.id), planned + 1)
        if t.name.startswith("microblog")
    ]
    ran_again = [t.name for t in publishes if running_states(t.id) > 1]
    print(
        f"{done_before} of {planned} delivered at the kill, {len(deliveries)} in the end; "
        f"deliveries per post {dict(Counter(per_post.values()))}; publishes run again after "
        f"the kill: {len(ran_again)}; answered by replay: {replayed}"
    )  # shown with -rP
    assert len(per_post) == planned and set(per_post.values()) == {1}, per_post
    assert len(publishes) == planned and all(t.state.is_completed() for t in publishes)
    # The kill landed mid-work: posts were still to be published, and publishes the dead
    # worker held were run again by the survivor (same task run, a second run), each
    # answered once by the service.
    assert len(deliveries) > done_before
    assert ran_again, "no publish was in the killed worker's hands: the kill proved nothing"
