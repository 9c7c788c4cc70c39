"""``pressroom api`` says it is serving only when it can."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path


def test_a_busy_port_is_one_line_and_no_claim_of_serving(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pressroom.cli.main",
                "api",
                "--port",
                str(port),
                "--data-dir",
                str(tmp_path / "data"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1
    assert "pressroom service on" not in done.stdout + done.stderr
    assert done.stderr.strip() == (
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use (try --port)"
    )
