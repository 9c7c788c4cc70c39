"""A real ``pressroom api`` process: JSON log lines an operator's collector can parse."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def pressroom(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pressroom.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_json_access_lines_name_route_status_account_and_request_id(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRESSROOM_")}
    env |= {"PRESSROOM_DATA_DIR": str(tmp_path / "data"), "PRESSROOM_LOG_FORMAT": "json"}
    created = pressroom(
        "admin",
        "create-account",
        "--email",
        "ops@example.com",
        "--plan",
        "business",
        "--json",
        env=env,
    )
    assert created.returncode == 0, created.stderr
    account = json.loads(created.stdout)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "pressroom.cli.main", "api", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, server.communicate()
            time.sleep(0.1)
        secret_path = f"{base}/api/upload/status/file_0123456789abcdef01234567?signature=s3cr3t"
        answer = httpx.get(
            secret_path, headers={"X-API-Key": account["apiKey"], "X-Request-ID": "trace-77"}
        )
        assert answer.status_code == 404
        assert answer.headers["X-Request-ID"] == "trace-77"
        assert answer.json()["error"]["requestId"] == "trace-77"
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=30)

    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    assert lines, stderr
    mine = [line for line in lines if line.get("requestId") == "trace-77"]
    access: dict[str, Any] = next(line for line in mine if line["logger"] == "pressroom.access")
    assert access["method"] == "GET"
    assert access["path"] == "/api/upload/status/{file_id}"
    assert access["status"] == 404
    assert access["accountId"] == account["accountId"]
    assert isinstance(access["durationMs"], float | int) and access["level"] == "info"
    assert access["time"].endswith("Z")
    everything = stderr
    assert account["apiKey"] not in everything and "s3cr3t" not in everything
    assert "file_0123456789abcdef01234567" not in everything
    # uvicorn's own access line (raw path and query) is off; its other lines are ours
    assert not [line for line in lines if line["logger"] == "uvicorn.access"]
    assert any(line["logger"].startswith("uvicorn") for line in lines)
