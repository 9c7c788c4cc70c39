"""The media library in a real service process: memory under a large upload, and restarts.

These start ``pressroom api`` (uvicorn) as a subprocess, because what they show (the
process's own memory, surviving ``kill -9``) does not exist inside a test client.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from pressroom.plans import Plan
from pressroom.service.accounts.service import create_account
from pressroom.service.db.session import make_engine, make_session_factory, transaction
from tests.support.media import make_video
from tests.support.waiting import wait_until

# Minutes long: handed out first (scripts/test runs the files on parallel workers).
pytestmark = pytest.mark.long

MIB = 1024 * 1024
# The polls' one client: each ``httpx.get()`` builds a client, and with it an SSL context
# from the CA bundle (about 25 ms of CPU), ten times a second while a service starts. No
# connection is kept: a later service may be given a port a killed one had.
POLL = httpx.Client(limits=httpx.Limits(max_keepalive_connections=0))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LiveService:
    def __init__(self, process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
        self.process = process
        self.base_url = base_url
        self.log = log

    def memory_kib(self, field: str) -> int:
        """``VmRSS`` (now) or ``VmHWM`` (the peak so far) of the service process."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
        raise AssertionError(f"no {field} in /proc")

    def kill(self) -> None:
        """``kill -9`` the service and everything it started."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)


@contextmanager
def live_service(
    data_dir: Path,
    database_url: str,
    *,
    preexec_fn: Callable[[], None] | None = None,
    **env: str,
) -> Iterator[LiveService]:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PRESSROOM_")}
    environment |= {
        "PRESSROOM_DATABASE_URL": database_url,
        "PRESSROOM_SECRET_KEY": "live-secret",
        **env,
    }
    log = data_dir / f"service-{port}.log"
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pressroom.cli.main",
                "api",
                "--port",
                str(port),
                "--data-dir",
                str(data_dir),
            ],
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group, so kill -9 reaches its probe workers too
            preexec_fn=preexec_fn,
        )
    service = LiveService(process, base_url, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise AssertionError(f"the service exited:\n{log.read_text()}")
            try:
                if POLL.get(f"{base_url}/api/upload/files", timeout=1).status_code == 401:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"the service did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield service
    finally:
        service.kill()


def api_key(database_url: str) -> str:
    engine = make_engine(database_url)
    try:
        with transaction(make_session_factory(engine)) as db:
            _, key = create_account(
                db, email=f"live-{time.time_ns()}@example.com", plan=Plan.AGENCY
            )
            return key
    finally:
        engine.dispose()


def presign(service: LiveService, key: str, filename: str, content_type: str) -> dict[str, Any]:
    response = httpx.post(
        f"{service.base_url}/api/upload/presigned-url",
        json={"filename": filename, "contentType": content_type},
        headers={"X-API-Key": key},
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def status(service: LiveService, key: str, file_id: str) -> dict[str, Any]:
    response = POLL.get(
        f"{service.base_url}/api/upload/status/{file_id}", headers={"X-API-Key": key}
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def wait_for(service: LiveService, key: str, file_id: str, *states: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        found = status(service, key, file_id)
        if found["status"] in states or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_256_mib_upload_streams_to_disk_in_flat_memory(database_url: str, tmp_path: Path) -> None:
    size = 256 * MIB
    chunk = os.urandom(MIB)

    def body() -> Iterator[bytes]:
        for _ in range(size // MIB):
            yield chunk

    with live_service(tmp_path / "data", database_url) as service:
        key = api_key(database_url)
        # Warm up the upload path with a small file, then take the peak so far as the baseline.
        warm = presign(service, key, "warm.mp4", "video/mp4")
        put = httpx.put(warm["uploadUrl"], content=chunk, headers={"Content-Type": "video/mp4"})
        assert put.status_code == 200
        baseline = service.memory_kib("VmHWM")

        issued = presign(service, key, "big.mp4", "video/mp4")
        response = httpx.put(
            issued["uploadUrl"],
            content=body(),
            headers={"Content-Type": "video/mp4", "Content-Length": str(size)},
            timeout=120,
        )
        assert response.status_code == 200, response.text
        growth_mib = (service.memory_kib("VmHWM") - baseline) / 1024
        assert growth_mib < 32, f"the service's peak memory grew by {growth_mib:.0f} MiB"

        stored = tmp_path / "data" / "media" / "files" / issued["fileId"]
        assert stored.stat().st_size == size
        assert status(service, key, issued["fileId"])["size"] == size

        # A client that hangs up halfway leaves nothing behind, and the URL still works.
        cut = presign(service, key, "cut.mp4", "video/mp4")
        abandon_put(cut["uploadUrl"], "video/mp4", declared=64 * MIB, sent=chunk * 8)
        deadline = time.monotonic() + 30
        while True:
            retry = httpx.put(
                cut["uploadUrl"], content=chunk, headers={"Content-Type": "video/mp4"}
            )
            if retry.status_code != 409 or time.monotonic() > deadline:
                break  # 409 only while the server is still winding the first PUT down
            time.sleep(0.05)
        assert retry.status_code == 200, retry.text
        assert status(service, key, cut["fileId"])["size"] == MIB
        assert list((tmp_path / "data" / "media" / "tmp").glob("*.part")) == []


def abandon_put(url: str, content_type: str, *, declared: int, sent: bytes) -> None:
    """Start a PUT of ``declared`` bytes, send only ``sent``, and hang up."""
    parts = httpx.URL(url)
    with socket.create_connection((parts.host, parts.port or 80)) as sock:
        target = parts.raw_path.decode()
        head = (
            f"PUT {target} HTTP/1.1\r\nHost: {parts.host}:{parts.port}\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: {declared}\r\n\r\n"
        )
        sock.sendall(head.encode() + sent)


def test_a_file_left_processing_by_a_killed_service_becomes_ready_after_restart(
    database_url: str, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    video = make_video(tmp_path / "clip.mp4", 3)
    # The killed process's claim on the file stands until its lease runs out: short here.
    lease = {"PRESSROOM_JOB_LEASE_SECONDS": "2"}
    with live_service(
        data_dir, database_url, PRESSROOM_PROCESSING_DELAY_MS="600000", **lease
    ) as service:
        key = api_key(database_url)
        issued = presign(service, key, "clip.mp4", "video/mp4")
        put = httpx.put(
            issued["uploadUrl"], content=video.read_bytes(), headers={"Content-Type": "video/mp4"}
        )
        assert put.status_code == 200
        assert status(service, key, issued["fileId"])["status"] == "processing"
        service.kill()

    with live_service(data_dir, database_url, **lease) as service:
        found = wait_for(service, key, issued["fileId"], "ready", "failed")
        assert found["status"] == "ready", found
        assert abs(found["durationSeconds"] - 3.0) < 0.2
        download = httpx.get(
            f"{service.base_url}/api/upload/direct/{issued['fileId']}", headers={"X-API-Key": key}
        )
        assert download.content == video.read_bytes()


@contextmanager
def live_worker(data_dir: Path, database_url: str, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """``pressroom worker`` as an operator starts it, beside the service."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PRESSROOM_")}
    environment |= {
        "PRESSROOM_DATABASE_URL": database_url,
        "PRESSROOM_SECRET_KEY": "live-secret",
        **env,
    }
    log = data_dir / f"worker-{time.time_ns()}.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "pressroom.cli.main", "worker", "--data-dir", str(data_dir)],
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while b"pressroom worker processing media" not in log.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the worker did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


def test_workers_share_the_jobs_and_take_over_a_killed_ones(
    database_url: str, tmp_path: Path
) -> None:
    """An API without in-process processing leaves uploads to ``pressroom worker``s; a
    worker killed mid-job loses it to the workers after it once its lease runs out, and
    every file ends ready, with no job left behind."""
    from PIL import Image

    from pressroom.service.media import jobs

    data_dir = tmp_path / "data"
    knobs = {
        "PRESSROOM_JOB_LEASE_SECONDS": "2",
        # Long enough that a loaded machine still sees each claim before the job ends:
        # the test watches the killed worker's job from claim to take-over by polling.
        "PRESSROOM_PROCESSING_DELAY_MS": "3000",
        "PRESSROOM_PROCESSING_WORKERS": "1",
    }
    sessions = make_session_factory(make_engine(database_url))
    with live_service(data_dir, database_url, PRESSROOM_PROCESS_IN_API="0") as service:
        key = api_key(database_url)
        files = []
        for shade in range(4):
            image = tmp_path / f"photo{shade}.png"
            Image.new("RGB", (32, 24), (shade * 60, 0, 0)).save(image)
            issued = presign(service, key, image.name, "image/png")
            put = httpx.put(
                issued["uploadUrl"],
                content=image.read_bytes(),
                headers={"Content-Type": "image/png"},
            )
            assert put.status_code == 200
            files.append(issued["fileId"])
        time.sleep(1.5)
        assert {status(service, key, f)["status"] for f in files} == {
            "processing"
        }  # not the API's to do
        assert sorted(
            f for f, claimer, _, _ in jobs.waiting(sessions) if claimer is None
        ) == sorted(files)

        host = socket.gethostname()

        def held_by(*processes: subprocess.Popen[bytes]) -> list[str]:
            owners = tuple(f"{host}:{process.pid}:" for process in processes)
            return [
                f
                for f, claimer, _, _ in jobs.waiting(sessions)
                if (claimer or "").startswith(owners)
            ]

        # The doomed worker runs alone and sits on its first job for a minute, so the kill
        # lands mid-job whatever the machine's load: with another worker beside it, a
        # starved lease renewal could hand its job over before the kill, or a short job
        # could end first (the take-over would then be a no-op too brief to watch).
        with live_worker(
            data_dir, database_url, **knobs | {"PRESSROOM_PROCESSING_DELAY_MS": "60000"}
        ) as doomed:
            deadline = time.monotonic() + 30
            while not (victims := held_by(doomed)):
                assert time.monotonic() < deadline, "the first worker never claimed a job"
                time.sleep(0.02)
            os.killpg(doomed.pid, signal.SIGKILL)  # mid-job: it holds the file for a minute
            doomed.wait(10)
        [victim] = victims
        assert held_by(doomed) == [victim]  # still the dead worker's: no one else is there

        # Two workers share what is left, the dead worker's job among it once its lease is
        # out. The first is watched from its start: it takes the oldest job, the dead
        # worker's, and holds it through the 3-second delay.
        with live_worker(data_dir, database_url, **knobs) as one:
            deadline = time.monotonic() + 30
            while victim not in held_by(one):
                assert time.monotonic() < deadline, "the killed worker's job was never taken over"
                assert victim in {f for f, _, _, _ in jobs.waiting(sessions)}, (
                    "done without a worker"
                )
                time.sleep(0.05)
            [(_, _, _, attempts)] = [j for j in jobs.waiting(sessions) if j[0] == victim]
            assert attempts == 2  # claimed by the dead worker, then by a live one
            with live_worker(data_dir, database_url, **knobs) as other:
                for file_id in files:
                    assert wait_for(service, key, file_id, "ready", "failed")["status"] == "ready"
                # The claimer deletes its job just after recording the outcome, in a
                # transaction of its own: the last file can read "ready" a moment before.
                wait_until(lambda: jobs.waiting(sessions) == [], "no job left behind", 10)
                for worker in (one, other):
                    worker.send_signal(signal.SIGTERM)
                assert [one.wait(20), other.wait(20)] == [0, 0]  # clean stops
    sessions.kw["bind"].dispose()


def limit_file_size(max_bytes: int) -> Callable[[], None]:
    """For ``preexec_fn``: the process may not write a file past ``max_bytes`` (its writes
    then fail with EFBIG, as on a full disk; Python ignores the SIGXFSZ signal)."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    return apply


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_disk_that_refuses_the_bytes_is_a_503_that_keeps_nothing_and_the_url_works(
    database_url: str, tmp_path: Path
) -> None:
    with live_service(
        tmp_path / "data", database_url, preexec_fn=limit_file_size(48 * MIB)
    ) as service:
        key = api_key(database_url)
        issued = presign(service, key, "big.mp4", "video/mp4")
        refused = httpx.put(
            issued["uploadUrl"],
            content=os.urandom(64 * MIB),
            headers={"Content-Type": "video/mp4"},
            timeout=60,
        )
        assert refused.status_code == 503, refused.text
        error = refused.json()["error"]
        assert error["code"] == "storage_unavailable"
        assert "could not be written to disk" in error["message"]
        assert refused.headers["Retry-After"] == "30"
        assert list((tmp_path / "data" / "media" / "tmp").glob("*.part")) == []
        assert status(service, key, issued["fileId"])["status"] == "pending_upload"

        video = make_video(tmp_path / "small.mp4", seconds=1)
        retried = httpx.put(
            issued["uploadUrl"], content=video.read_bytes(), headers={"Content-Type": "video/mp4"}
        )
        assert retried.status_code == 200, retried.text
        assert wait_for(service, key, issued["fileId"], "ready", "failed")["status"] == "ready"


def test_a_derived_file_is_made_by_a_worker_process_and_taken_over_when_it_dies(
    database_url: str, tmp_path: Path
) -> None:
    """A PNG posted to photo_sharing needs a JPEG made for Instagram: the derive job waits
    on the queue for a ``pressroom worker`` (the API does not process here), a worker
    killed while making it loses it to another once its lease runs out, and the post
    then goes out as the JPEG. Until then every publish is a 409 with Retry-After."""
    from PIL import Image

    from pressroom.platforms import Platform
    from pressroom.service.connections.service import NewConnection, connect
    from pressroom.service.media import jobs

    data_dir = tmp_path / "data"
    knobs = {
        "PRESSROOM_JOB_LEASE_SECONDS": "2",
        "PRESSROOM_PROCESSING_DELAY_MS": "1500",
        "PRESSROOM_PROCESSING_WORKERS": "1",
    }
    sessions = make_session_factory(make_engine(database_url))
    with live_service(data_dir, database_url, PRESSROOM_PROCESS_IN_API="0") as service:
        with transaction(sessions) as db:
            account, key = create_account(db, email="fit@example.com", plan=Plan.AGENCY)
            connection = connect(
                db,
                account,
                NewConnection(
                    platform=Platform.PHOTO_SHARING, name="@acme", account_type="business"
                ),
            ).id
        image = tmp_path / "cover.png"
        Image.new("RGB", (320, 240), (200, 30, 30)).save(image)
        issued = presign(service, key, image.name, "image/png")
        httpx.put(
            issued["uploadUrl"], content=image.read_bytes(), headers={"Content-Type": "image/png"}
        )
        file_id = issued["fileId"]

        def publish() -> httpx.Response:
            return httpx.post(
                f"{service.base_url}/api/v2/photo_sharing/publish",
                json={"connectionId": connection, "fileId": file_id},
                headers={"X-API-Key": key},
            )

        with live_worker(data_dir, database_url, **knobs) as doomed:
            assert wait_for(service, key, file_id, "ready", "failed")["status"] == "ready"
            first = publish()
            assert first.status_code == 409 and first.headers["Retry-After"] == "1"
            host = socket.gethostname()
            deadline = time.monotonic() + 30
            while not any(
                (claimer or "").startswith(f"{host}:{doomed.pid}:")
                for _, claimer, _, _ in jobs.waiting(sessions, jobs.DERIVE)
            ):
                assert time.monotonic() < deadline, "the worker never claimed the derive job"
                time.sleep(0.02)
            os.killpg(doomed.pid, signal.SIGKILL)  # mid-job: it holds the job for 1.5 s
            doomed.wait(10)
        assert publish().status_code == 409
        with live_worker(data_dir, database_url, **knobs):
            deadline = time.monotonic() + 60
            while (answer := publish()).status_code == 409:
                assert time.monotonic() < deadline, "the derived file was never made"
                time.sleep(0.2)
            assert answer.status_code == 200, answer.text
            # deleted by the worker just after it records the derived file ready
            wait_until(lambda: jobs.waiting(sessions, jobs.DERIVE) == [], "no derive job")
        (derived,) = status(service, key, file_id)["derivatives"]
        assert (derived["status"], derived["contentType"]) == ("ready", "image/jpeg")
        # One derived file, however many workers took the job.
        assert len(list((data_dir / "media" / "derived").iterdir())) == 1
    sessions.kw["bind"].dispose()
