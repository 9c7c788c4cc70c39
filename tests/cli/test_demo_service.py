"""The demo's service process: a request made before it serves waits for it, it serves
the key the demo made, it ignores Ctrl-C, and it never outlives the demo however the demo
ends; one that cannot start is reported at once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from pressroom.cli.demo_service import DemoService, bind
from pressroom.pipeline.prefect_server import free_port
from tests.support.waiting import wait_until


def _answers(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _start(data_dir: Path, reported: list[str]) -> tuple[DemoService, str]:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    service = DemoService(
        bind(port),
        data_dir=data_dir,
        base_url=base_url,
        log_level="warning",
        on_failure=reported.append,
    )
    return service, base_url


def test_a_request_made_as_it_starts_waits_for_it_and_is_served(tmp_path: Path) -> None:
    reported: list[str] = []
    service, base_url = _start(tmp_path / "data", reported)
    try:
        # At once: the service is still importing, the socket already takes the request.
        listed = httpx.get(
            f"{base_url}/api/connections/unified", headers={"X-API-Key": service.key}, timeout=60
        )
        assert listed.status_code == 200, listed.text
        assert len({connection["platform"] for connection in listed.json()}) == 8
        ready = service.wait_ready()
        assert ready is not None and ready["sign_in_link"].startswith(f"{base_url}/sign-in/link/")
        assert reported == []
    finally:
        service.stop()
    assert service.wait() == 0
    assert not _answers(int(base_url.rsplit(":", 1)[1]))


def test_ctrl_c_is_the_demos_to_handle_not_the_services(tmp_path: Path) -> None:
    reported: list[str] = []
    service, base_url = _start(tmp_path / "data", reported)
    try:
        assert service.wait_ready() is not None, reported
        # Ctrl-C in a terminal reaches the whole group: the demo decides when it stops.
        os.kill(service.pid, signal.SIGINT)
        time.sleep(0.5)  # what a Ctrl-C would do, it has done by now
        listed = httpx.get(
            f"{base_url}/api/connections/unified", headers={"X-API-Key": service.key}
        )
        assert listed.status_code == 200, listed.text
    finally:
        service.stop()


def test_it_never_outlives_a_demo_that_is_killed(tmp_path: Path) -> None:
    port = free_port()
    demo = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
                import time
                from pathlib import Path
                from pressroom.cli.demo_service import DemoService, bind
                service = DemoService(bind({port}), data_dir=Path({str(tmp_path / "data")!r}),
                                      base_url="http://127.0.0.1:{port}", log_level="warning",
                                      on_failure=print)
                service.wait_ready()
                print("serving", flush=True)
                time.sleep(120)
            """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert demo.stdout is not None
        assert demo.stdout.readline() == "serving\n"
        assert _answers(port)
    finally:
        demo.kill()
        demo.wait()
    wait_until(lambda: not _answers(port), "the service to stop with the demo", timeout=15)


def test_a_service_that_cannot_start_is_reported_and_takes_its_socket_with_it(
    tmp_path: Path,
) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    reported: list[str] = []
    service, base_url = _start(not_a_dir, reported)
    assert service.wait_ready() is None
    assert reported == ["the demo's service stopped before it served (exit status 1)"]
    assert service.failure == reported[0]
    with pytest.raises(httpx.ConnectError):  # refused at once, not left waiting
        httpx.get(f"{base_url}/healthz", timeout=5)


def test_a_taken_port_is_refused_before_anything_starts() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            bind(taken.getsockname()[1])
