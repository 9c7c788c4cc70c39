"""A real ``pressroom api`` told to stop: readiness fails at once, work in flight finishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.cli.test_api_logs import free_port, pressroom
from tests.support.media import make_image

GRACE_SECONDS = 3


def test_readyz_answers_503_from_sigterm_while_a_slow_upload_still_finishes(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRESSROOM_")}
    env |= {
        "PRESSROOM_DATA_DIR": str(tmp_path / "data"),
        "PRESSROOM_SHUTDOWN_GRACE_SECONDS": str(GRACE_SECONDS),
    }
    created = pressroom(
        "admin",
        "create-account",
        "--email",
        "a@example.com",
        "--plan",
        "business",
        "--json",
        env=env,
    )
    assert created.returncode == 0, created.stderr
    key = json.loads(created.stdout)["apiKey"]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "pressroom.cli.main", "api", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        _wait_ready(server, base)
        issued = httpx.post(
            f"{base}/api/upload/presigned-url",
            json={"filename": "cover.png", "contentType": "image/png"},
            headers={"X-API-Key": key},
        ).json()
        picture = make_image(tmp_path / "cover.png").read_bytes()
        half = len(picture) // 2
        signalled, finish = threading.Event(), threading.Event()

        def trickle() -> Iterator[bytes]:
            yield picture[:half]
            signalled.set()
            finish.wait(30)
            yield picture[half:]

        answers: list[httpx.Response] = []
        upload = threading.Thread(
            target=lambda: answers.append(
                httpx.put(
                    issued["uploadUrl"],
                    content=trickle(),
                    headers={"Content-Type": "image/png"},
                    timeout=60,
                )
            )
        )
        upload.start()
        assert signalled.wait(10)
        server.send_signal(signal.SIGTERM)
        told = time.monotonic()

        ready = httpx.get(f"{base}/readyz")  # a new connection, at once
        assert ready.status_code == 503, ready.text
        assert ready.json()["checks"]["process"].startswith("shutting down")
        assert httpx.get(f"{base}/healthz").status_code == 200  # alive, and still serving
        assert time.monotonic() - told < GRACE_SECONDS

        while time.monotonic() - told < GRACE_SECONDS + 1:  # past the grace: listening no more
            time.sleep(0.2)
        try:
            refused = httpx.get(f"{base}/readyz", timeout=2).status_code
        except httpx.TransportError:
            refused = 0
        assert refused in (0, 503)
        finish.set()  # the upload begun before SIGTERM is still taken whole
        upload.join(30)
        assert answers and answers[0].status_code == 200, answers
        output, _ = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    # uvicorn ends by raising the signal it caught again, as its shells expect
    assert server.returncode == -signal.SIGTERM, output
    assert "Application shutdown complete" in output
    assert "SIGTERM: not ready from now on" in output


def _wait_ready(server: subprocess.Popen[str], base: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/readyz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert server.poll() is None and time.monotonic() < deadline, server.communicate()
        time.sleep(0.1)
