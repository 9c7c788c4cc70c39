"""Prefect's server in a child process, as Prefect's ephemeral mode runs it.

Used for a run's temporary server (``prefect_api``), the server kept between runs
(``prefect_keep``) and to build the database template (``prefect_template``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from contextlib import suppress

from pressroom.tls import client_context

START_TIMEOUT_SECONDS = 120.0
"""A fresh Prefect database takes seconds to migrate; a busy 2-core machine, up to ~15 s."""


EPHEMERAL_ENVIRONMENT: Mapping[str, str] = {
    # What Prefect's own ephemeral server is started with.
    "PREFECT_UI_ENABLED": "0",
    "PREFECT__SERVER_EPHEMERAL": "1",
    "PREFECT__SERVER_FINAL": "1",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(
    api_url: str,
    exit_code: Callable[[], int | None],
    timeout: float | None = None,
    *,
    what: str = "temporary Prefect server",
) -> str:
    """``api_url`` once it answers its health check; an error as soon as the process
    (``exit_code`` not None) has ended, or after ``timeout``."""
    import httpx

    timeout = START_TIMEOUT_SECONDS if timeout is None else timeout
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=2.0, verify=client_context()) as client:
        while time.monotonic() < deadline:
            if (code := exit_code()) is not None:
                raise RuntimeError(f"the {what} exited with {code}")
            with suppress(httpx.HTTPError):
                if client.get(f"{api_url}/health").status_code == 200:
                    return api_url
            time.sleep(0.05)
    raise RuntimeError(f"the {what} did not start in {timeout:.0f} s")


class TemporaryServer:
    """Prefect's server for the length of one command, as its ephemeral mode runs it."""

    def __init__(self, *, environ: Mapping[str, str] | None = None) -> None:
        self.port = free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        env = {**(os.environ if environ is None else environ), **EPHEMERAL_ENVIRONMENT}
        env.pop("PREFECT_API_URL", None)
        self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "prefect.server.api.server:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "error",
                "--lifespan",
                "on",
            ],
            env=env,
            stdin=subprocess.DEVNULL,
        )

    def exit_code(self) -> int | None:
        """None while it runs; stopped by :meth:`stop`, the SIGTERM it was given."""
        return -15 if self.process is None else self.process.poll()

    def wait_ready(self, timeout: float | None = None) -> str:
        try:
            return wait_healthy(self.api_url, self.exit_code, timeout)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """SIGTERM, so the server writes its last batch of events before it ends."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
