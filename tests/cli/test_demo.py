"""The main job, as the README's first command runs it: twice, the second all skipped."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
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


def test_a_demo_on_a_taken_port_says_so_before_starting_anything(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "pressroom.cli.main", "demo", "--port", str(port)]
        command += ["--data-dir", str(tmp_path / "data")]
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"error: cannot listen on 127.0.0.1:{port}:" in result.stderr
    assert "(try --port)" in result.stderr
    assert not (tmp_path / "data").exists(), "nothing was started or written"


def test_a_service_that_cannot_start_ends_the_demo_at_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "pressroom.db").write_text("not a database")
    command = [sys.executable, "-m", "pressroom.cli.main", "demo", "--port", str(free_port())]
    command += ["--data-dir", str(data)]
    # Not after the run's retries of a service that is gone: the demo stops when it does.
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "file is not a database" in result.stderr
    assert "error: the demo's service stopped before it served (exit status 1)" in result.stderr
    assert "Traceback" not in result.stderr.split("stopped before it served")[1]


def test_the_demo_with_serve_keeps_the_service_until_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "PRESSROOM_"))}
    env["PRESSROOM_PIPELINE_RESULTS_DIR"] = str(tmp_path / "results")
    command = [sys.executable, "-m", "pressroom.cli.main", "demo", "--serve"]
    command += ["--port", str(port), "--data-dir", str(tmp_path / "data")]
    demo = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert demo.stdout is not None
        lines = []
        while not (line := demo.stdout.readline()).startswith("try: curl"):
            assert line, "".join(lines[-40:])
            lines.append(line)
        key = next(ln for ln in lines if "demo API key:" in ln).split("demo API key: ")[1].strip()
        link = next(ln for ln in lines if "sign-in link" in ln).rsplit(" ", 1)[1].strip()
        assert link.startswith(f"http://127.0.0.1:{port}/sign-in/link/")
        listed = httpx.get(
            f"http://127.0.0.1:{port}/api/connections/unified", headers={"X-API-Key": key}
        )
        assert listed.status_code == 200, listed.text
        demo.send_signal(signal.SIGINT)
        assert demo.wait(timeout=30) == 0
    finally:
        demo.kill()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0, "the service stopped with the demo"
