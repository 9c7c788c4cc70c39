"""``pressroom serve``: schedule every campaign in a folder, keep up with edits, stop cleanly.

Prefect cannot schedule on its ephemeral server, so without ``PREFECT_API_URL`` a local
``prefect server`` is started (and stopped with us). The deployments are served by a
child process (``pressroom.pipeline.deployments``) that is restarted whenever a campaign
file is added, changed or removed (watched with ``watchfiles``): Prefect's ``serve`` has
no reload of its own, and a restart re-registers every deployment with its schedule.

Stopping: SIGTERM and SIGINT both end ``serve``. Each child runs in a process group of
its own (so a Ctrl-C in the terminal reaches ``serve`` alone, which then stops the
children in order): the deployments process first (it stops scheduling at once, lets a
run in flight finish within the grace period, then cancels it), then the Prefect server.
A group that does not end in time is killed whole, flow-run processes included.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType

from pressroom.pipeline import prefect_settings, prefect_template

CAMPAIGN_SUFFIXES = (".yaml", ".yml")
CRASH_RESTART_SECONDS = 10.0
"""A deployments process that exited with an error is started again at most this often."""
DEFAULT_GRACE_SECONDS = 30.0
"""How long a run in flight may take to finish once ``serve`` is told to stop."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop_group(
    process: subprocess.Popen[bytes] | None, timeout: float, *, leader_only: bool = False
) -> None:
    """SIGTERM a child's process group (or only its leader, which then stops the rest in
    its own way), then SIGKILL what is left of the group after ``timeout``."""
    if process is None:
        return
    try:
        if process.poll() is None:
            if leader_only:
                process.send_signal(signal.SIGTERM)
            else:
                os.killpg(process.pid, signal.SIGTERM)
            with suppress(subprocess.TimeoutExpired):
                process.wait(timeout=timeout)
        # The leader may be gone while others of its group (a flow run) are not.
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


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
        import httpx

        out = self.log_file.open("ab") if self.log_file else subprocess.DEVNULL
        prefect_template.seed()  # a fresh home starts with its migrations applied
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
        stop_group(self.process, timeout=15)
        self.process = None


@contextmanager
def stop_signals(stop: threading.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set ``stop`` (no KeyboardInterrupt in the middle of a shutdown)."""

    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def is_campaign(path: str) -> bool:
    return path.endswith(CAMPAIGN_SUFFIXES)


class Supervisor:
    """Keeps one deployments process in step with the campaign folder."""

    def __init__(
        self,
        directory: Path,
        *,
        grace_seconds: float = DEFAULT_GRACE_SECONDS,
        say: Callable[[str], None] = print,
    ) -> None:
        self.directory = directory
        self.grace_seconds = grace_seconds
        self.say = say
        self.child: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0
        self.stopping = threading.Event()

    def restart(self) -> None:
        self.stop_child()
        self.started_at = time.monotonic()
        self.child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pressroom.pipeline.deployments",
                str(self.directory),
                "--grace-seconds",
                str(self.grace_seconds),
            ],
            start_new_session=True,
        )

    def stop_child(self) -> None:
        # The child's own shutdown: grace for the run in flight (its flow-run processes
        # share the child's group, so only the child is signalled), then cancelling it.
        stop_group(self.child, timeout=self.grace_seconds + 30, leader_only=True)
        self.child = None

    def _crashed(self) -> bool:
        failed = self.child is not None and self.child.poll() not in (None, 0)
        return failed and time.monotonic() - self.started_at >= CRASH_RESTART_SECONDS

    def run_until_stopped(self) -> None:
        """Serve until ``stopping`` is set (by SIGTERM / SIGINT under ``stop_signals``)."""
        from watchfiles import watch

        self.restart()
        try:
            for changes in watch(
                self.directory,
                watch_filter=lambda _, path: is_campaign(path),
                stop_event=self.stopping,
                yield_on_timeout=True,
                rust_timeout=1000,
                raise_interrupt=False,
            ):
                if self.stopping.is_set():
                    break
                if changes:
                    self.say(f"campaigns in {self.directory} changed: reloading the schedules")
                    self.restart()
                elif self._crashed():
                    self.say("the deployments process stopped with an error: starting it again")
                    self.restart()
        finally:
            self.stop_child()
