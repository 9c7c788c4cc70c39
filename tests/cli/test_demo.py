"""The main job, as the README's first command runs it: twice, the second all skipped."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.prefect  # the demo runs its campaign through Prefect


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_demo_publishes_everything_once_then_skips_it_all(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "PRESSROOM_"))}
    env["PRESSROOM_PIPELINE_RESULTS_DIR"] = str(tmp_path / "results")
    command = [
        sys.executable,
        "-m",
        "pressroom.cli.main",
        "demo",
        "--data-dir",
        str(tmp_path / "data"),
        "--port",
        str(free_port()),
    ]

    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "completed: 9 posts: 9 published; 1 thumbnail: 1 published\n" in first.stdout
    assert "prefect server start" in first.stdout and "/runs/flow-run/" in first.stdout
    assert (tmp_path / "data" / "prefect").is_dir(), "Prefect's database stays with the demo's data"

    # Its Prefect server stays for the next run (the default), in the demo's Prefect home.
    registry = tmp_path / "data" / "prefect" / "pressroom-server.json"
    kept = json.loads(registry.read_text())
    assert kept["kept"] is True
    os.kill(kept["pid"], 0)
    try:
        # The same address: the pipeline's state is kept per service address.
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
        assert "completed: 9 posts: 9 skipped; 1 thumbnail: 1 skipped\n" in second.stdout
        assert "skipped (already published)" in second.stdout
        # It ran on the server the first run left: that one is still the registered one.
        assert json.loads(registry.read_text()) == kept
    finally:
        stop = [sys.executable, "-m", "pressroom.cli.main", "prefect-stop"]
        home = {"PREFECT_HOME": str(tmp_path / "data" / "prefect")}
        stopped = subprocess.run(stop, env=env | home, capture_output=True, text=True)
    assert f"(pid {kept['pid']})" in stopped.stdout
    assert not registry.exists()
