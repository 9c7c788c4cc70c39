"""The Prefect server a run leaves for the next runs: used by them, holding none of the
command's pipes, with every run in the one history, gone after its idle time or on
``pressroom prefect-stop``; and the lock protocol that keeps it from stopping under a run."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pressroom.pipeline import prefect_kept_server, prefect_registry
from pressroom.pipeline.prefect_keep import IDLE_SECONDS_ENV
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.pipeline.test_prefect_api import processes_with_home
from tests.pipeline.test_prefect_server import pressroom as run_pressroom

CAMPAIGN = "name: kept-server\nposts:\n  - id: hello\n    microblog: {text: hi}\n"


def pressroom(*args: str, home: Path, idle: str) -> subprocess.CompletedProcess[str]:
    """A pressroom command in a fresh process, no Prefect server named."""
    return run_pressroom(*args, api_url=None, home=home, extra_env={IDLE_SECONDS_ENV: idle})


@pytest.fixture
def home(
    live_service: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """A Prefect home of its own (this process reads its registry), the service with a
    microblog connection, and no process of that home left after the test."""
    live_service.connect("microblog", "@acme")
    home = tmp_path / "prefect-home"
    monkeypatch.setenv("PREFECT_HOME", str(home))
    yield home
    for pid in processes_with_home(home):
        os.kill(pid, signal.SIGKILL)


def completed_runs(home: Path) -> list[tuple[str]]:
    with sqlite3.connect(home / "prefect.db") as db:
        return db.execute("SELECT state_type FROM flow_run").fetchall()


def wait_until_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_the_next_run_uses_the_server_the_first_left_and_prefect_stop_ends_it(
    home: Path, write_campaign: WriteCampaign
) -> None:
    campaign = str(write_campaign(CAMPAIGN))
    first = pressroom("campaign", "run", campaign, home=home, idle="120")
    # Returned, its output read to the end: the server it left holds none of its pipes.
    assert first.returncode == 0, first.stdout + first.stderr
    entry = prefect_registry.read()
    assert entry is not None and entry.kept
    assert processes_with_home(home) == [entry.pid]
    # No UI on it: the way to see the run is the same as after a temporary server.
    assert f"PREFECT_HOME={home} prefect server start" in first.stdout
    # The process left behind is announced, with how to end it.
    assert (
        "Prefect's server stays for the next run until 120 s pass without one "
        f"(pressroom prefect-stop ends it; {IDLE_SECONDS_ENV}=0 turns this off)"
    ) in first.stdout

    second = pressroom("campaign", "run", campaign, "--edition", "second", home=home, idle="120")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "1 post: 1 published" in second.stdout
    # Nothing new started: the one server served both runs, and both are in the
    # database the Prefect UI shows.
    assert prefect_registry.read() == entry
    assert processes_with_home(home) == [entry.pid]
    assert completed_runs(home) == [("COMPLETED",), ("COMPLETED",)]

    stopped = pressroom("prefect-stop", home=home, idle="120")
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.strip() == (
        f"stopped the Prefect server kept for {home} (pid {entry.pid})"
    )
    assert processes_with_home(home) == []
    assert prefect_registry.read() is None
    again = pressroom("prefect-stop", home=home, idle="120")
    assert again.stdout.strip() == f"no Prefect server is kept for {home}"


def test_the_server_stops_by_itself_once_no_run_has_held_it_for_the_idle_time(
    home: Path, write_campaign: WriteCampaign
) -> None:
    done = pressroom("campaign", "run", str(write_campaign(CAMPAIGN)), home=home, idle="2")
    assert done.returncode == 0, done.stdout + done.stderr
    entry = prefect_registry.read()
    assert entry is not None and entry.kept
    # A run holding the lock (as a run does from before it reads the registry to its
    # end) keeps it past its idle time.
    run = prefect_registry.RunsLock()
    run.hold_shared()
    time.sleep(5)
    assert processes_with_home(home) == [entry.pid]
    assert prefect_registry.live_entry() == entry
    run.close()
    assert wait_until_gone(entry.pid, timeout=30)
    assert prefect_registry.read() is None
    assert completed_runs(home) == [("COMPLETED",)]


def test_an_idle_time_that_is_not_a_number_of_seconds_is_refused_by_name(
    live_service: LiveService, tmp_path: Path, write_campaign: WriteCampaign
) -> None:
    home = tmp_path / "prefect-home"
    done = pressroom("campaign", "run", str(write_campaign(CAMPAIGN)), home=home, idle="-1")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"error: {IDLE_SECONDS_ENV}='-1': must be a number of seconds, 0 or more "
        "(0: each run stops its Prefect server as it ends)"
    )
    assert processes_with_home(home) == []


class _Server:
    """What the watch sees of uvicorn's server."""

    started = True
    should_exit = False


def test_the_watch_unregisters_only_when_no_run_holds_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    monkeypatch.setattr(prefect_kept_server, "CHECK_SECONDS", 0.05)
    server = _Server()
    run = prefect_registry.RunsLock()
    run.hold_shared()

    async def scenario() -> None:
        watching = asyncio.create_task(
            prefect_kept_server.watch(server, "http://127.0.0.1:9/api", idle_seconds=0.2)
        )
        await asyncio.sleep(0.6)  # three idle times with a run holding the lock
        entry = prefect_registry.read()
        assert entry is not None and entry.kept and entry.pid == os.getpid()
        assert not server.should_exit
        run.close()
        await asyncio.wait_for(watching, timeout=5)

    asyncio.run(scenario())
    assert server.should_exit
    assert prefect_registry.read() is None


def test_a_shared_holder_keeps_the_lock_from_being_taken_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    first, second, server = (prefect_registry.RunsLock() for _ in range(3))
    first.hold_shared()
    second.hold_shared()  # runs share it
    assert not server.try_exclusive()
    first.close()
    assert not server.try_exclusive()
    second.close()
    assert server.try_exclusive()
    server.close()
