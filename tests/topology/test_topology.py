"""pressroom as a team runs it on several machines, every part a process started as an
operator starts it, and one of each kind killed with ``kill -9`` mid-run:

- PostgreSQL (the CI server) and SeaweedFS as S3, migrated once by ``pressroom admin migrate``;
- two API replicas (``pressroom api --no-worker``) behind a round-robin balancer;
- two media workers (``pressroom worker``), each serving its health on an ops port;
- a Prefect server, the campaign deployed to a process work pool, and a Prefect worker;
- a Dask scheduler with two workers, where the flow run sends its publish tasks.

A campaign of 250 deliveries with six images runs through all of it. One media worker is
killed holding a job, one Dask worker holding publishes, one API replica while posts are
in flight; each is started again. The run must complete with every file processed once
and ready, every (post, connection) delivered exactly once (the sandbox's dedupe by key
is off, so a double would show), and nothing left claimed or RUNNING.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from pressroom.campaign import validate_files
from pressroom.pipeline.runner import ENTRYPOINT
from pressroom.pipeline.serving import LocalPrefectServer
from pressroom.plans import Plan
from pressroom.platforms import Platform
from pressroom.service.accounts.service import create_account
from pressroom.service.connections.service import NewConnection, connect
from pressroom.service.db.models import (
    Derivative,
    File,
    IdempotencyRecord,
    SandboxDelivery,
    ServiceProcess,
)
from pressroom.service.db.session import (
    make_engine,
    make_session_factory,
    normalise_url,
    transaction,
)
from pressroom.service.media import jobs
from tests.conftest import _require_postgres
from tests.support.balancer import Balancer
from tests.support.media import make_image
from tests.support.seaweed import BUCKET, SeaweedS3

# Minutes long: handed out first (scripts/test runs the files on parallel workers).
pytestmark = pytest.mark.long

pytest_plugins = ("tests.support.library",)  # the session's SeaweedFS

ROOT = Path(__file__).resolve().parents[2]
POOL = "pressroom-topology"
IMAGES = 6
POSTS = 50
MICROBLOG = ["@acme", "@acme_news", "@acme_help"]
PHOTOS = ["acme.photos", "acme.studio"]
PLANNED = POSTS * (len(MICROBLOG) + len(PHOTOS))
PUBLISHED = re.compile(r"Task run '(?:microblog|photo_sharing) · [^']*' - Finished in state")
# One client for the test's own requests: each ``httpx.get()`` builds a client, and with
# it an SSL context from the CA bundle (tens of milliseconds of CPU), and the test makes
# thousands (20 health polls a second, a request per task run at the end).
HTTP = httpx.Client(timeout=30)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Processes:
    """Every process the test started, so each is killed at the end whatever happened."""

    logs: Path
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(
        self, name: str, command: list[str], env: dict[str, str]
    ) -> tuple[subprocess.Popen[bytes], Path]:
        log = self.logs / f"{name}-{time.time_ns()}.log"
        with open(log, "wb") as output:
            process = subprocess.Popen(
                command,
                env=env,
                cwd=ROOT,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.started.append(process)
        return process, log

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(20)

    def kill_all(self) -> None:
        for process in self.started:
            self.kill(process)


def wait_until(check: Callable[[], Any], what: str, timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return found


def answers(url: str) -> int | None:
    try:
        return HTTP.get(url, timeout=1).status_code
    except httpx.TransportError:
        return None


@pytest.fixture
def database() -> Iterator[str]:
    """An empty PostgreSQL database: the deployment migrates it itself."""
    server = normalise_url(_require_postgres())
    name = f"pressroom_topology_{secrets.token_hex(4)}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield server.rsplit("/", 1)[0] + f"/{name}"
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def prefect_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    home = tmp_path / "prefect-home"
    home.mkdir()
    env = {**os.environ, "PREFECT_HOME": str(home)}
    env.pop("PREFECT_API_URL", None)
    server = LocalPrefectServer(free_port(), log_file=tmp_path / "prefect-server.log")
    previous = dict(os.environ)
    os.environ["PREFECT_HOME"] = str(home)
    try:
        url = server.start(timeout=180)
    finally:
        os.environ.clear()
        os.environ.update(previous)
    try:
        yield url, {**env, "PREFECT_API_URL": url}
    finally:
        server.stop()


def prefect_api(url: str, path: str, body: dict[str, Any] | None = None) -> Any:
    for attempt in range(5):  # a 503 is its SQLite busy for a moment: Retry-After, again
        response = HTTP.post(f"{url}{path}", json=body or {}, timeout=30)
        if response.status_code != 503 or attempt == 4:
            break
        time.sleep(float(response.headers.get("Retry-After", "1") or 1))
    response.raise_for_status()
    return response.json()


def task_run_states(url: str, task_run_id: str) -> list[str]:
    response = HTTP.get(f"{url}/task_run_states/", params={"task_run_id": task_run_id})
    response.raise_for_status()
    return [state["type"] for state in response.json()]


def campaign_text() -> str:
    media = "".join(f"  photo{i}: {{path: photo{i}.png}}\n" for i in range(IMAGES))
    posts = "".join(
        f"  - id: day-{day}-words\n"
        f"    microblog: {{text: 'Day {day} at Acme.'}}\n"
        f"  - id: day-{day}-pictures\n"
        f"    media: photo{day % IMAGES}\n"
        f"    photo_sharing: {{caption: 'Day {day} in pictures.'}}\n"
        for day in range(POSTS)
    )
    return (
        "name: topology-week\n"
        "retries: {attempts: 5, backoff_seconds: 0.5, max_delay_seconds: 2}\n"
        "defaults:\n"
        f"  microblog: {{connections: {MICROBLOG}}}\n"
        f"  photo_sharing: {{connections: {PHOTOS}}}\n"
        f"media:\n{media}posts:\n{posts}"
    )


def test_a_campaign_survives_kills_of_a_replica_a_media_worker_and_a_task_worker(
    database: str,
    seaweed: SeaweedS3,
    prefect_server: tuple[str, dict[str, str]],
    tmp_path: Path,
) -> None:
    prefect_url, prefect_env = prefect_server
    logs = tmp_path / "logs"
    logs.mkdir()
    processes = Processes(logs)
    pressroom = [sys.executable, "-m", "pressroom.cli.main"]
    service_env = {k: v for k, v in os.environ.items() if not k.startswith("PRESSROOM_")} | {
        "PRESSROOM_DATABASE_URL": database,
        "PRESSROOM_SECRET_KEY": "topology-secret",
        "PRESSROOM_STORAGE": "s3",
        "PRESSROOM_S3_BUCKET": BUCKET,
        "PRESSROOM_S3_ENDPOINT_URL": seaweed.endpoint_url,
        "PRESSROOM_S3_ACCESS_KEY_ID": seaweed.access_key,
        "PRESSROOM_S3_SECRET_ACCESS_KEY": seaweed.secret_key,
        "PRESSROOM_S3_KEY_PREFIX": f"topology-{secrets.token_hex(4)}/",
        "PRESSROOM_SANDBOX_DEDUPE": "0",
        "PRESSROOM_SANDBOX_LATENCY_MS": "100",
        "PRESSROOM_JOB_LEASE_SECONDS": "2",
        # A killed replica counts as dead after four silent beats: its publish claims are
        # then given up and looked up (15 s beats in production).
        "PRESSROOM_PROCESS_HEARTBEAT_SECONDS": "1",
    }
    worker_env = service_env | {
        "PRESSROOM_PROCESSING_DELAY_MS": "1500",  # long enough to be killed holding a job
        "PRESSROOM_PROCESSING_WORKERS": "1",
    }
    sessions: sessionmaker[Session] = make_session_factory(make_engine(database))
    with ExitStack() as stack:
        stack.callback(processes.kill_all)
        stack.callback(lambda: sessions.kw["bind"].dispose())

        # Migrations once, then the services. Two migrations started together are safe
        # (tests/service/test_migrate_together.py); here the operator runs one.
        migrate = subprocess.run(
            [*pressroom, "admin", "migrate"], env=service_env, capture_output=True, timeout=120
        )
        assert migrate.returncode == 0, migrate.stdout + migrate.stderr

        # Every process is started before any is waited for: each spends seconds importing,
        # and one at a time the start-ups added up.
        api_ports = [free_port(), free_port()]

        def launch_replica(port: int) -> tuple[subprocess.Popen[bytes], Path]:
            return processes.start(
                f"api-{port}",
                [
                    *pressroom,
                    "api",
                    "--no-worker",
                    "--workers",
                    "1",
                    "--port",
                    str(port),
                    "--data-dir",
                    str(tmp_path / f"api-{port}"),
                ],
                service_env,
            )

        def replica_up(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
            wait_until(
                lambda: (
                    process.poll() is not None or answers(f"http://127.0.0.1:{port}/healthz") == 200
                ),
                f"the replica on {port}",
            )
            assert process.poll() is None, log.read_text()

        def start_replica(port: int) -> subprocess.Popen[bytes]:
            process, log = launch_replica(port)
            replica_up(port, process, log)
            return process

        launched_replicas = [launch_replica(port) for port in api_ports]
        balancer = Balancer([("127.0.0.1", port) for port in api_ports])
        base_url = balancer.start()
        stack.callback(balancer.stop)

        def launch_media_worker(name: str) -> tuple[subprocess.Popen[bytes], Path, int]:
            ops_port = free_port()
            process, log = processes.start(
                name,
                [*pressroom, "worker", "--data-dir", str(tmp_path / name)],
                worker_env | {"PRESSROOM_OPS_PORT": str(ops_port)},
            )
            return process, log, ops_port

        def media_worker_up(
            name: str, process: subprocess.Popen[bytes], log: Path, ops_port: int
        ) -> tuple[subprocess.Popen[bytes], Path]:
            wait_until(
                lambda: (
                    process.poll() is not None
                    or b"pressroom worker processing media" in log.read_bytes()
                ),
                f"media worker {name}",
            )
            assert process.poll() is None, log.read_text()
            # A worker answers probes too: alive, ready, and its metrics.
            wait_until(lambda: answers(f"http://127.0.0.1:{ops_port}/healthz") == 200, "healthz")
            assert answers(f"http://127.0.0.1:{ops_port}/readyz") == 200
            metrics = HTTP.get(f"http://127.0.0.1:{ops_port}/metrics").text
            assert "pressroom_" in metrics
            return process, log

        def start_media_worker(name: str) -> tuple[subprocess.Popen[bytes], Path]:
            return media_worker_up(name, *launch_media_worker(name))

        launched_media = {f"media-{i}": launch_media_worker(f"media-{i}") for i in range(2)}

        # The Dask cluster the flow sends its tasks to.
        dask_port = free_port()
        dask_address = f"tcp://127.0.0.1:{dask_port}"
        pipeline_env = prefect_env | {
            "PRESSROOM_BASE_URL": base_url,
            "PRESSROOM_PIPELINE_STATE_DIR": str(tmp_path / "state"),
            "PRESSROOM_PIPELINE_RESULTS_DIR": str(tmp_path / "results"),
            "PRESSROOM_PIPELINE_POLL_SECONDS": "0.3",
            "PRESSROOM_PIPELINE_DASK_ADDRESS": dask_address,
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "flows")]),
            "PREFECT_WORKER_QUERY_SECONDS": "1",
        }
        with transaction(sessions) as db:
            account, key = create_account(db, email="team@example.com", plan=Plan.AGENCY)
            for name in MICROBLOG:
                connect(db, account, NewConnection(platform=Platform.MICROBLOG, name=name))
            for name in PHOTOS:
                connect(
                    db,
                    account,
                    NewConnection(
                        platform=Platform.PHOTO_SHARING, name=name, account_type="business"
                    ),  # type: ignore[call-arg]
                )
        pipeline_env["PRESSROOM_API_KEY"] = key
        # The campaign, deployed to a process work pool as scripts/deploy does (in a thread,
        # while the services start), and a Prefect worker of that pool.
        for i in range(IMAGES):
            make_image(tmp_path / f"photo{i}.png", size=(60 + i, 60))  # shapes Instagram takes
        campaign = tmp_path / "topology-week.yaml"
        campaign.write_text(campaign_text())
        [report] = validate_files([campaign])
        assert not report.errors, report.errors
        (tmp_path / "prefect.yaml").write_text(
            "name: pressroom\n"
            "deployments:\n"
            "  - name: topology-week\n"
            f"    entrypoint: {ENTRYPOINT}\n"
            f"    parameters: {{campaign_file: '{campaign}'}}\n"
            f"    work_pool: {{name: {POOL}}}\n"
        )
        prefect = [sys.executable, "-m", "prefect"]

        def deploy() -> None:
            for command in (
                [*prefect, "work-pool", "create", POOL, "--type", "process"],
                [
                    *prefect,
                    "--no-prompt",
                    "deploy",
                    "--all",
                    "--prefect-file",
                    str(tmp_path / "prefect.yaml"),
                ],
            ):
                done = subprocess.run(
                    command, env=pipeline_env, cwd=ROOT, capture_output=True, timeout=180
                )
                assert done.returncode == 0, done.stdout + done.stderr

        deployed = stack.enter_context(ThreadPoolExecutor(1)).submit(deploy)

        processes.start(
            "dask-scheduler",
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(dask_port),
                "--no-dashboard",
                "--no-show",
            ],
            pipeline_env,
        )

        def start_dask_worker(name: str) -> tuple[subprocess.Popen[bytes], Path]:
            return processes.start(
                name,
                [
                    sys.executable,
                    "-m",
                    "distributed.cli.dask_worker",
                    dask_address,
                    "--nthreads",
                    "4",
                    "--no-dashboard",
                    "--name",
                    name,
                ],
                pipeline_env,
            )

        dask_workers = [start_dask_worker(f"dask-{i}") for i in range(2)]
        replicas: list[subprocess.Popen[bytes]] = []
        for port, (process, log) in zip(api_ports, launched_replicas, strict=True):
            replica_up(port, process, log)
            replicas.append(process)
        media_workers = [
            media_worker_up(name, *launched) for name, launched in launched_media.items()
        ]
        from distributed import Client

        with Client(dask_address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)

        deployed.result()
        processes.start(
            "prefect-worker", [*prefect, "worker", "start", "--pool", POOL], pipeline_env
        )
        [deployment] = prefect_api(prefect_url, "/deployments/filter")
        flow_run = prefect_api(prefect_url, f"/deployments/{deployment['id']}/create_flow_run")
        started = time.monotonic()

        # 1. A media worker killed holding a job: its lease runs out and another takes it.
        host = socket.gethostname()
        doomed_media, _ = media_workers[0]

        def held_by(pid: int) -> list[tuple[str, int]]:
            return [
                (file_id, attempts)
                for file_id, claimer, _, attempts in jobs.waiting(sessions)
                if (claimer or "").startswith(f"{host}:{pid}:")
            ]

        [(victim, _)] = wait_until(lambda: held_by(doomed_media.pid), "a media job claimed")
        processes.kill(doomed_media)
        reclaimed = wait_until(
            lambda: [
                (file_id, claimer, attempts)
                for file_id, claimer, _, attempts in jobs.waiting(sessions)
                if file_id == victim and claimer and attempts >= 2
            ],
            "the killed worker's job taken by another",
            timeout=60,
        )
        media_killed_at = time.monotonic() - started
        media_workers[0] = start_media_worker("media-0-again")

        # 2. A Dask worker killed with publishes in hand, and an API replica with posts in
        #    flight; both are started again.
        doomed_dask, doomed_dask_log = dask_workers[0]
        wait_until(
            lambda: len(PUBLISHED.findall(doomed_dask_log.read_text(errors="replace"))) >= 3,
            "the first Dask worker publishing",
            timeout=240,
        )
        interrupted = wait_until(
            lambda: publishes_in_flight(sessions, replicas[0].pid),
            "a publish in flight on the first replica",
        )
        processes.kill(doomed_dask)
        processes.kill(replicas[0])
        fanout_killed_at = time.monotonic() - started
        delivered_at_kill = count_deliveries(sessions)
        served_before = balancer.connections[api_ports[0]]
        dask_workers[0] = start_dask_worker("dask-0-again")
        time.sleep(1)  # a moment with one replica: the balancer passes over the dead one
        replicas[0] = start_replica(api_ports[0])

        def finished() -> dict[str, Any] | None:
            run = prefect_api(
                prefect_url, "/flow_runs/filter", {"flow_runs": {"id": {"any_": [flow_run["id"]]}}}
            )[0]
            return run if run["state_type"] in ("COMPLETED", "FAILED", "CRASHED") else None

        outcome = wait_until(finished, "the flow run to finish", timeout=300)
        took = time.monotonic() - started
        assert outcome["state_type"] == "COMPLETED", outcome["state"]

        # Nothing lost, nothing doubled.
        with transaction(sessions, write=False) as db:
            deliveries = list(db.scalars(select(SandboxDelivery)))
            files = list(db.scalars(select(File)))
        per_target = Counter(
            (
                d.connection_id,
                d.payload.get("fields", {}).get("text")
                or d.payload.get("fields", {}).get("caption"),
            )
            for d in deliveries
        )
        assert len(per_target) == PLANNED and set(per_target.values()) == {1}, Counter(
            per_target.values()
        )
        assert len(files) == IMAGES and {f.status for f in files} == {"ready"}
        media_logs = [log.read_text(errors="replace") for log in logs.glob("media-*.log")]
        ready_lines = Counter(
            match
            for text in media_logs
            for match in re.findall(r"(?<!derived )file (\S+) is ready", text)
        )
        assert ready_lines == {f.id: 1 for f in files}, ready_lines  # each processed once
        # Each PNG fitted into the JPEG Instagram takes: one derived file each, recorded
        # ready once whichever media worker made it.
        with transaction(sessions, write=False) as db:
            derived = list(db.scalars(select(Derivative)))
        made_lines = Counter(
            match
            for text in media_logs
            for match in re.findall(r"derived file (\S+) is ready", text)
        )
        assert len(derived) == IMAGES and {d.status for d in derived} == {"ready"}
        assert made_lines == {d.id: 1 for d in derived}, made_lines
        # The publishes the killed replica was sending were given up once it stopped
        # beating, looked up, and settled: each delivered once (above), none left claimed.
        with transaction(sessions, write=False) as db:
            settled = dict(
                db.execute(
                    select(IdempotencyRecord.key, IdempotencyRecord.state).where(
                        IdempotencyRecord.key.in_(interrupted)
                    )
                ).all()
            )
            claimed = db.scalar(
                select(func.count())
                .select_from(IdempotencyRecord)
                .where(IdempotencyRecord.state != "completed")
            )
        assert set(settled.values()) == {"completed"} and claimed == 0, settled
        assert jobs.waiting(sessions) == [] and jobs.waiting(sessions, jobs.DERIVE) == []
        left_running = prefect_api(
            prefect_url,
            "/flow_runs/filter",
            {"flow_runs": {"state": {"type": {"any_": ["RUNNING", "PENDING"]}}}},
        )
        assert left_running == []

        # Each kill landed mid-work.
        publishes = [
            t
            for offset in range(0, PLANNED + 200, 200)  # the API answers 200 at most
            for t in prefect_api(
                prefect_url,
                "/task_runs/filter",
                {"flow_runs": {"id": {"any_": [flow_run["id"]]}}, "limit": 200, "offset": offset},
            )
            if t["name"].startswith(("microblog", "photo_sharing"))
        ]
        assert len(publishes) == PLANNED
        ran_again = [
            t["name"]
            for t in publishes
            if task_run_states(prefect_url, t["id"]).count("RUNNING") > 1
        ]
        assert ran_again, "no publish was in the killed Dask worker's hands"
        assert delivered_at_kill < PLANNED, "the fan-out was over before the kills"
        assert served_before > 0 and balancer.connections[api_ports[0]] > served_before
        assert balancer.connections[api_ports[1]] > 0
        print(
            f"media worker killed at {media_killed_at:.1f} s holding {victim}, taken over "
            f"({reclaimed[0][2]} claims); Dask worker and replica killed at "
            f"{fanout_killed_at:.1f} s with {delivered_at_kill} of {PLANNED} delivered and "
            f"{len(interrupted)} publishes in flight on the replica; "
            f"publishes run again: {len(ran_again)}; connections per replica "
            f"{dict(balancer.connections)}; deliveries per target "
            f"{dict(Counter(per_target.values()))}; run took {took:.1f} s"
        )  # shown with -rP


def publishes_in_flight(sessions: sessionmaker[Session], pid: int) -> list[str]:
    """The Idempotency-Keys of publishes the API process ``pid`` is running now."""
    with transaction(sessions, write=False) as db:
        return list(
            db.scalars(
                select(IdempotencyRecord.key)
                .join(ServiceProcess, ServiceProcess.id == IdempotencyRecord.claimed_by)
                .where(ServiceProcess.pid == pid, IdempotencyRecord.state == "in_progress")
            )
        )


def count_deliveries(sessions: sessionmaker[Session]) -> int:
    with transaction(sessions, write=False) as db:
        return int(db.scalar(select(func.count()).select_from(SandboxDelivery)) or 0)
