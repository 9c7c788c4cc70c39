"""``pressroom serve``: schedule every campaign in a folder, and keep up with edits.

Prefect cannot schedule on its ephemeral server, so without ``PREFECT_API_URL`` a local
``prefect server`` is started (and stopped with us). The deployments are served by a
child process (``pressroom.pipeline.deployments``) that is restarted whenever a campaign
file is added, changed or removed: ``serve`` has no reload of its own, and a restart
re-registers every deployment with its current schedule.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from pressroom.pipeline import prefect_settings

Snapshot = tuple[tuple[str, int, int], ...]


def snapshot(directory: Path) -> Snapshot:
    """What changing a campaign changes: names, sizes and modification times."""
    entries = []
    for path in sorted(directory.glob("*.y*ml")):
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue
        entries.append((path.name, stat.st_size, stat.st_mtime_ns))
    return tuple(entries)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalPrefectServer:
    """``prefect server start`` on loopback, for as long as we run."""

    def __init__(self, port: int | None = None, log_file: Path | None = None) -> None:
        self.port = port or 4200
        self.log_file = log_file
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def start(self, timeout: float = 120.0) -> str:
        out = self.log_file.open("ab") if self.log_file else subprocess.DEVNULL
        env = dict(os.environ)
        env.pop("PREFECT_API_URL", None)
        prefect_settings.apply(env, prefect_settings.SERVER)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "prefect",
                "server",
                "start",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"prefect server exited with {self.process.returncode}")
            try:
                if httpx.get(f"{self.api_url}/health", timeout=1.0).status_code == 200:
                    return self.api_url
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"prefect server did not answer on {self.api_url} in {timeout:.0f} s")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


class Supervisor:
    """Keeps one deployments process in step with the campaign folder."""

    def __init__(
        self, directory: Path, *, poll_seconds: float = 2.0, say: Callable[[str], None] = print
    ) -> None:
        self.directory = directory
        self.poll_seconds = poll_seconds
        self.say = say
        self.child: subprocess.Popen[bytes] | None = None
        self.seen: Snapshot | None = None

    def step(self) -> None:
        current = snapshot(self.directory)
        crashed = self.child is not None and self.child.poll() not in (None, 0)
        if current != self.seen or crashed:
            if self.seen is not None:
                self.say(f"campaigns in {self.directory} changed: reloading the schedules")
            self.seen = current
            self.restart()

    def restart(self) -> None:
        self.stop_child()
        self.child = subprocess.Popen(
            [sys.executable, "-m", "pressroom.pipeline.deployments", str(self.directory)],
            start_new_session=True,
        )

    def stop_child(self) -> None:
        if self.child and self.child.poll() is None:
            os.killpg(self.child.pid, signal.SIGTERM)
            try:
                self.child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.child.pid, signal.SIGKILL)
                self.child.wait()
        self.child = None

    def run_forever(self) -> None:
        try:
            while True:
                self.step()
                time.sleep(self.poll_seconds)
        finally:
            self.stop_child()
