"""Identical requests racing each other post once: threads in one process (SQLite and
PostgreSQL), and two service processes sharing one PostgreSQL database.

The sandbox's latency keeps the first request at the platform while the others arrive;
whatever the interleaving, the database's unique constraint lets exactly one post.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pressroom.platforms import Platform
from tests.conftest import Service
from tests.support.publish import deliveries, post_count, valid_body

PATH = "/api/v2/microblog/publish"


def race(send: list[Callable[[], httpx.Response]]) -> list[httpx.Response]:
    """Run the senders at the same moment, one thread each."""
    barrier = threading.Barrier(len(send))
    results: list[httpx.Response | BaseException] = [RuntimeError("not run")] * len(send)

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = send[index]()
        except BaseException as exc:  # reported below
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(send))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return [r for r in results if isinstance(r, httpx.Response)]


def assert_posted_once(responses: list[httpx.Response]) -> None:
    statuses = [r.status_code for r in responses]
    assert statuses == [200] * len(responses), [r.text for r in responses]
    assert len({r.text for r in responses}) == 1, "every caller gets the first result"
    fresh = [r for r in responses if r.headers.get("Idempotent-Replayed") != "true"]
    assert len(fresh) == 1


def test_racing_threads_post_once(service: Service) -> None:
    service.settings.sandbox.sandbox_latency_ms = 300
    account = service.account()
    body = valid_body(account, Platform.MICROBLOG)
    headers = {**account.headers, "Idempotency-Key": "race-threads"}
    responses = race([lambda: service.client.post(PATH, json=body, headers=headers)] * 6)
    assert_posted_once(responses)
    assert len(deliveries(service)) == 1 and post_count(service) == 1


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def two_services(service: Service, tmp_path: Path) -> Iterator[list[str]]:
    """Two ``pressroom api`` processes on the test's PostgreSQL database."""
    assert service.settings.database_url.startswith("postgresql")
    processes: list[subprocess.Popen[bytes]] = []
    urls = []
    for index in range(2):
        port = _free_port()
        env = {
            **os.environ,
            "PRESSROOM_DATABASE_URL": service.settings.database_url,
            "PRESSROOM_DATA_DIR": str(tmp_path / f"data{index}"),
            "PRESSROOM_SANDBOX_LATENCY_MS": "300",
        }
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "pressroom.cli.main", "api", "--port", str(port)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        )
        urls.append(f"http://127.0.0.1:{port}")
    try:
        for url, process in zip(urls, processes, strict=True):
            _wait_until_up(url, process)
        yield urls
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


def _wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            assert process.stderr is not None
            raise AssertionError(f"the service exited: {process.stderr.read().decode()}")
        try:
            httpx.get(f"{url}/openapi.json", timeout=1).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError(f"the service at {url} did not start")


# Several service processes need PostgreSQL; on SQLite the threads above race instead.
@pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
def test_racing_processes_on_postgres_post_once(service: Service, two_services: list[str]) -> None:
    account = service.account()
    with httpx.Client(timeout=30) as client:
        for round_ in range(3):
            body = valid_body(account, Platform.MICROBLOG, text=f"round {round_}")
            headers = {**account.headers, "Idempotency-Key": f"race-processes-{round_}"}

            def sender(
                url: str, body: dict[str, Any] = body, headers: dict[str, str] = headers
            ) -> Callable[[], httpx.Response]:
                return lambda: client.post(f"{url}{PATH}", json=body, headers=headers)

            # Each process gets half of the identical requests.
            assert_posted_once(race([sender(url) for url in two_services * 3]))
    assert len(deliveries(service)) == 3 and post_count(service) == 3
