"""Prefect's server in a child process, as Prefect's ephemeral mode runs it.

Used for a run's temporary server (``prefect_api``) and to build the database template
(``prefect_template``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from contextlib import suppress

START_TIMEOUT_SECONDS = 120.0
"""A fresh Prefect database takes seconds to migrate; a busy 2-core machine, up to ~15 s."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TemporaryServer:
    """Prefect's server for the length of one command, as its ephemeral mode runs it."""

    def __init__(self, *, environ: Mapping[str, str] | None = None) -> None:
        self.port = _free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        env = {
            **(os.environ if environ is None else environ),
            # What Prefect's own ephemeral server is started with.
            "PREFECT_UI_ENABLED": "0",
            "PREFECT__SERVER_EPHEMERAL": "1",
            "PREFECT__SERVER_FINAL": "1",
        }
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

    def wait_ready(self, timeout: float = START_TIMEOUT_SECONDS) -> str:
        import httpx

        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=2.0) as client:
            while time.monotonic() < deadline:
                if self.process is None or self.process.poll() is not None:
                    code = None if self.process is None else self.process.returncode
                    raise RuntimeError(f"the temporary Prefect server exited with {code}")
                with suppress(httpx.HTTPError):
                    if client.get(f"{self.api_url}/health").status_code == 200:
                        return self.api_url
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the temporary Prefect server did not start in {timeout:.0f} s")

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
