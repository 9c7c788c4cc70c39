"""Against a real ``prefect server`` process: the run, its task runs and artifacts through
Prefect's API, and ``pressroom serve`` picking up a new campaign without a restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pressroom.pipeline import prefect_registry, prefect_settings
from pressroom.pipeline.serving import LocalPrefectServer, free_port
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.pipeline.test_prefect_settings import BATCHED, server_settings

# Minutes long: handed out first (scripts/test runs the files on parallel workers).
pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("prefect-server-home")
    previous = os.environ.get("PREFECT_HOME")
    os.environ["PREFECT_HOME"] = str(home)
    server = LocalPrefectServer(free_port(), log_file=home / "server.log")
    # Started without pressroom's settings in our environment: the server must add them.
    ours = {k: os.environ.pop(k) for k in prefect_settings.SERVER if k in os.environ}
    try:
        try:
            url = server.start(timeout=180)
        finally:
            os.environ.update(ours)
        yield url
    finally:
        server.stop()
        if previous is not None:
            os.environ["PREFECT_HOME"] = previous


def test_the_local_server_writes_task_runs_in_batches(prefect_server: str) -> None:
    services = server_settings(prefect_server)
    for (service, field), value in BATCHED.items():
        assert services[service][field] == value, (service, field)


def api(url: str, path: str, body: dict[str, Any] | None = None, method: str = "POST") -> Any:
    """A request to the Prefect server's API (POST unless ``method`` says otherwise). A 503
    is its database busy for a moment (SQLite): tried again after its Retry-After, as
    Prefect's own client does. None for an answer without a body."""
    for attempt in range(5):
        response = httpx.request(
            method, f"{url}{path}", json=None if method == "GET" else body or {}, timeout=30
        )
        if response.status_code != 503 or attempt == 4:
            break
        time.sleep(float(response.headers.get("Retry-After", "1") or 1))
    response.raise_for_status()
    return response.json() if response.content else None


def pressroom(
    *args: str, api_url: str | None, home: Path, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A pressroom command in a fresh process, its output read to the end (as a script
    reading it through a pipe would); ``api_url=None``: no Prefect server named."""
    env = {**os.environ, "PREFECT_HOME": str(home), **(extra_env or {})}
    env.pop("PREFECT_API_URL", None)
    if api_url is not None:
        env["PREFECT_API_URL"] = api_url
    return subprocess.run(
        [sys.executable, "-m", "pressroom.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_run_on_a_real_server_shows_its_tasks_and_artifacts(
    prefect_server: str,
    live_service: LiveService,
    write_campaign: WriteCampaign,
    tmp_path: Path,
) -> None:
    live_service.connect("microblog", "@acme")
    live_service.connect("professional_network", "Acme Inc.")
    campaign = write_campaign(
        "name: on-server\nposts:\n  - id: hello\n    microblog: {text: hi}\n"
        "    professional_network: {text: hello}\n"
    )
    done = pressroom("campaign", "run", str(campaign), api_url=prefect_server, home=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert prefect_server.removesuffix("/api") + "/runs/flow-run/" in done.stdout

    [flow_run] = api(prefect_server, "/flow_runs/filter")
    assert flow_run["state_type"] == "COMPLETED"
    run_filter = {"flow_runs": {"id": {"any_": [flow_run["id"]]}}}
    names: set[str] = set()
    for _ in range(100):
        task_runs = api(prefect_server, "/task_runs/filter", run_filter)
        names = {t["name"] for t in task_runs if t["state_type"] == "COMPLETED"}
        if {"microblog · @acme · hello", "professional_network · Acme Inc. · hello"} <= names:
            break
        time.sleep(0.1)
    assert "microblog · @acme · hello" in names and "fetch-connections" in " ".join(names)
    artifacts = api(
        prefect_server,
        "/artifacts/filter",
        {"artifacts": {"flow_run_id": {"any_": [flow_run["id"]]}}},
    )
    by_key = {a["key"]: a for a in artifacts}
    assert by_key["on-server-results"]["type"] == "table"
    assert "published" in str(by_key["on-server-results"]["data"])
    assert "on-server-summary" in by_key


def scheduled_campaign(tmp_path: Path, name: str, cron: str, timezone: str, text: str) -> Path:
    """A ``pipelines`` folder holding one scheduled campaign of one microblog post."""
    folder = tmp_path / "pipelines"
    folder.mkdir()
    (folder / f"{name}.yaml").write_text(
        f"name: {name}\nschedule: {{cron: '{cron}', timezone: {timezone}}}\n"
        f"posts: [{{id: a, microblog: {{text: {text}}}}}]\n"
    )
    return folder


def start_serve(
    folder: Path, api_url: str, home: Path, log: Path, *extra: str
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PREFECT_API_URL": api_url,
        "PREFECT_HOME": str(home),
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",
    }
    with log.open("wb") as out:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pressroom.cli.main",
                "serve",
                "--pipelines",
                str(folder),
                *extra,
            ],
            env=env,
            # serve leads a process group of its own, as in a terminal: the test signals
            # serve alone and then checks that nothing of that group is left.
            start_new_session=True,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def stop_with_sigterm(
    serve: subprocess.Popen[bytes], signum: signal.Signals = signal.SIGTERM
) -> set[int]:
    """SIGTERM (or ``signum``) to serve alone; returns the processes it had started."""
    started = descendants(serve.pid)
    groups = {os.getpgid(pid) for pid in started if alive(pid)}
    os.kill(serve.pid, signum)
    try:
        serve.wait(timeout=120)
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = {pid for pid in started if alive(pid)}
    for pid in left:  # clean up before failing, so no test leaves one behind
        os.kill(pid, signal.SIGKILL)
    assert not left, f"serve left processes behind: {left}"
    assert not group_exists(serve.pid)
    assert not any(group_exists(g) for g in groups), "a process group serve started remains"
    return started


def test_serve_picks_up_a_new_campaign_without_a_restart(
    prefect_server: str, tmp_path: Path
) -> None:
    folder = scheduled_campaign(tmp_path, "weekly", "0 9 * * 1", "Europe/Berlin", "hi")
    serve = start_serve(folder, prefect_server, tmp_path, tmp_path / "serve.log")
    try:
        first = wait_for_deployment(prefect_server, "weekly")
        assert first["schedules"][0]["schedule"]["cron"] == "0 9 * * 1"
        assert first["schedules"][0]["schedule"]["timezone"] == "Europe/Berlin"
        (folder / "daily.yaml").write_text(
            "name: daily\nschedule: {cron: '30 7 * * *', timezone: UTC}\n"
            "posts: [{id: a, microblog: {text: hi}}]\n"
        )
        added = wait_for_deployment(prefect_server, "daily")
        assert added["parameters"]["campaign_file"] == str((folder / "daily.yaml").resolve())
        assert serve.poll() is None, "serve had to restart"
    finally:
        stop_with_sigterm(serve)


def test_serve_stops_on_sigterm_and_nothing_it_started_posts_afterwards(
    prefect_server: str, live_service: LiveService, tmp_path: Path
) -> None:
    live_service.connect("microblog", "@acme")
    folder = scheduled_campaign(tmp_path, "nightly", "0 3 * * *", "UTC", "late night")
    log = tmp_path / "serve.log"
    serve = start_serve(folder, prefect_server, tmp_path, log)
    deployment = wait_for_deployment(prefect_server, "nightly")
    time.sleep(2)  # the runner polls for due runs every second from here on

    started = stop_with_sigterm(serve)
    assert started, "serve started no process"
    assert serve.returncode == 0, log.read_text()
    # A run that comes due now is picked up by nobody: nothing of serve is left to post.
    run = api(prefect_server, f"/deployments/{deployment['id']}/create_flow_run", {})
    try:
        time.sleep(6)
        assert live_service.deliveries() == []
    finally:
        # Due and unclaimed, it would be the first run of the next test's "nightly" on
        # this shared server.
        api(prefect_server, f"/flow_runs/{run['id']}", method="DELETE")
    output = log.read_text()
    assert "never awaited" not in output and "Traceback" not in output, output


SLOW_RUNNER_START = """
import sys, time
from prefect.runner import Runner
entered = Runner.__aenter__
async def slow_enter(self):
    print("runner starting", flush=True)
    time.sleep(3)  # a slow machine's start-up, on the event loop's own thread
    return await entered(self)
Runner.__aenter__ = slow_enter
from pressroom.pipeline.deployments import main
main(sys.argv[1:])
"""


def test_a_sigterm_while_the_runner_is_still_starting_stops_it_the_graceful_way(
    prefect_server: str, tmp_path: Path
) -> None:
    """The deployments process, SIGTERMed in its first seconds (by ``serve`` stopping or
    reloading): it finishes starting, stops, and exits 0 without a traceback."""
    folder = scheduled_campaign(tmp_path, "nightly", "0 3 * * *", "UTC", "late night")
    log = tmp_path / "deployments.log"
    env = {**os.environ, "PREFECT_API_URL": prefect_server, "PREFECT_HOME": str(tmp_path)}
    with log.open("wb") as out:
        child = subprocess.Popen(
            [sys.executable, "-c", SLOW_RUNNER_START, str(folder)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while "runner starting" not in log.read_text() and time.monotonic() < deadline:
            assert child.poll() is None, log.read_text()
            time.sleep(0.05)
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    output = log.read_text()
    assert child.returncode == 0, output
    assert "stopping: no new runs" in output, output
    assert "never awaited" not in output and "Traceback" not in output, output


def run_in_flight(
    prefect_server: str, live_service: LiveService, tmp_path: Path, *serve_args: str
) -> tuple[subprocess.Popen[bytes], str, Path]:
    """serve with one campaign whose post takes seconds, and a run of it in flight."""
    live_service.connect("microblog", "@acme")
    live_service.settings.sandbox.sandbox_latency_ms = 4000
    folder = scheduled_campaign(tmp_path, "slow", "0 3 * * *", "UTC", "taking its time")
    log = tmp_path / "serve.log"
    serve = start_serve(folder, prefect_server, tmp_path, log, *serve_args)
    deployment = wait_for_deployment(prefect_server, "slow")
    run = api(prefect_server, f"/deployments/{deployment['id']}/create_flow_run", {})
    deadline = time.monotonic() + 120
    while not live_service.posts():  # the publish request is at the platform
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)
    return serve, str(run["id"]), log


def flow_run_state(url: str, flow_run_id: str) -> str:
    return str(api(url, f"/flow_runs/{flow_run_id}", method="GET")["state_type"])


def test_ctrl_c_lets_the_run_in_flight_finish_then_stops_everything(
    prefect_server: str, live_service: LiveService, tmp_path: Path
) -> None:
    serve, flow_run_id, log = run_in_flight(prefect_server, live_service, tmp_path)
    stop_with_sigterm(serve, signal.SIGINT)
    assert serve.returncode == 0, log.read_text()
    assert flow_run_state(prefect_server, flow_run_id) == "COMPLETED", log.read_text()
    assert len(live_service.deliveries()) == 1
    assert "never awaited" not in log.read_text()


def test_a_run_still_in_flight_after_the_grace_period_is_cancelled(
    prefect_server: str, live_service: LiveService, tmp_path: Path
) -> None:
    serve, flow_run_id, log = run_in_flight(
        prefect_server, live_service, tmp_path, "--grace-seconds", "0.5"
    )
    stop_with_sigterm(serve)
    assert serve.returncode == 0, log.read_text()
    assert flow_run_state(prefect_server, flow_run_id) == "CANCELLED", log.read_text()


def test_serve_marks_a_run_whose_process_died_crashed_and_leaves_a_live_one(
    prefect_server: str, tmp_path: Path
) -> None:
    import socket

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    flow = api(prefect_server, "/flows/", {"name": "run-campaign"})
    lease = "2099-01-01T00:00:00+00:00"
    runs = {}
    for name, pid in (("dead", gone.pid), ("live", os.getpid())):
        run = api(
            prefect_server,
            "/flow_runs/",
            {"flow_id": flow["id"], "name": name, "state": {"type": "RUNNING"}},
        )
        labels = {"pressroom.host": socket.gethostname(), "pressroom.pid": str(pid)}
        api(
            prefect_server,
            f"/flow_runs/{run['id']}/labels",
            {**labels, "pressroom.lease-until": lease},
            method="PATCH",
        )
        runs[name] = run["id"]
    folder = tmp_path / "pipelines"
    folder.mkdir()
    serve = start_serve(folder, prefect_server, tmp_path, tmp_path / "serve.log")
    try:
        deadline = time.monotonic() + 120
        while flow_run_state(prefect_server, runs["dead"]) == "RUNNING":
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.5)
    finally:
        stop_with_sigterm(serve)
    assert flow_run_state(prefect_server, runs["dead"]) == "CRASHED"
    assert flow_run_state(prefect_server, runs["live"]) == "RUNNING"
    api(
        prefect_server,
        f"/flow_runs/{runs['live']}/set_state",
        {"state": {"type": "CANCELLED"}, "force": True},
    )


def wait_for_deployment(url: str, name: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = api(url, "/deployments/filter", {"deployments": {"name": {"any_": [name]}}})
        if found:
            return dict(found[0])
        time.sleep(0.5)
    raise AssertionError(f"no deployment {name!r} after {timeout:.0f} s")


def test_prefect_yaml_is_generated_from_the_campaigns_and_deploys(
    prefect_server: str, tmp_path: Path
) -> None:
    root = Path(__file__).resolve().parents[2]
    generated = subprocess.run(
        [sys.executable, "-m", "pressroom.cli.main", "campaign", "deployments"],
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    ).stdout
    assert (root / "prefect.yaml").read_text() == generated, (
        "prefect.yaml is stale: run `pressroom campaign deployments -o prefect.yaml`"
    )
    env = {**os.environ, "PREFECT_API_URL": prefect_server, "PREFECT_HOME": str(tmp_path)}
    done = subprocess.run(
        ["bash", "scripts/deploy", "--no-worker"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    deployment = wait_for_deployment(prefect_server, "spring-launch", timeout=10)
    assert deployment["work_pool_name"] == "pressroom-process"
    assert deployment["parameters"] == {"campaign_file": "pipelines/spring-launch.yaml"}
    assert deployment["schedules"][0]["schedule"]["cron"] == "0 9 * * 1"


def test_a_run_beside_serve_uses_the_server_serve_started(
    prefect_server: str,
    live_service: LiveService,
    write_campaign: WriteCampaign,
    tmp_path: Path,
) -> None:
    live_service.connect("microblog", "@acme")
    campaign = write_campaign("name: beside-serve\nposts:\n  - id: hi\n    microblog: {text: hi}\n")
    # What `pressroom serve` writes when it starts a local server (here for this process).
    registry = tmp_path / prefect_registry.REGISTRY_NAME
    registry.write_text(json.dumps({"api_url": prefect_server, "pid": os.getpid()}))
    done = pressroom("campaign", "run", str(campaign), api_url=None, home=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    ui = prefect_server.removesuffix("/api") + "/runs/flow-run/"
    assert ui in done.stdout
    flow_run_id = done.stdout.split(ui, 1)[1].split()[0]
    runs = api(prefect_server, "/flow_runs/filter", {"flow_runs": {"id": {"any_": [flow_run_id]}}})
    assert [(r["name"], r["state_type"]) for r in runs] == [("beside-serve · manual", "COMPLETED")]
