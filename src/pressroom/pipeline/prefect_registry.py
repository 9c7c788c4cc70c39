"""The local Prefect server a run may use instead of starting its own, as named in
``$PREFECT_HOME/pressroom-server.json``, and the lock that says whether runs use it.

Two kinds of server register there:

- the one ``pressroom serve`` starts, for as long as ``serve`` runs;
- one a run left for the next runs (``prefect_keep``), which stops by itself once no run
  has used it for a few minutes.

A run that may use a kept server holds ``pressroom-server.lock`` shared from before it
reads the entry until its run has ended. The kept server takes the lock exclusively,
without waiting, to learn that no run holds it; it removes its entry while it holds the
lock that way and only then stops. So a run either finds the entry and keeps the server
alive by its lock, or does not find it and starts a server of its own: never an entry
whose server is stopping under it.

Read without importing Prefect: a run decides before Prefect's import is done.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from contextlib import suppress
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from pressroom.pipeline.prefect_home import prefect_home

REGISTRY_NAME = "pressroom-server.json"
LOCK_NAME = "pressroom-server.lock"


@dataclass(frozen=True)
class Entry:
    api_url: str
    pid: int
    """The process that keeps the entry: ``serve``'s own, or the kept server's."""
    kept: bool = False
    """Left by a run for the next ones (it stops when idle), not ``pressroom serve``'s."""
    executable: str | None = None
    """For a kept server: the Python it runs on, so that a run of another environment
    (another Prefect) starts its own rather than talk to it."""
    prefect: str | None = None


def installed_prefect() -> str | None:
    try:
        return version("prefect")
    except PackageNotFoundError:  # pragma: no cover - a dependency of the pipeline
        return None


def read() -> Entry | None:
    try:
        raw = json.loads((prefect_home() / REGISTRY_NAME).read_text())
        return Entry(
            api_url=str(raw["api_url"]),
            pid=int(raw["pid"]),
            kept=bool(raw.get("kept", False)),
            executable=raw.get("executable"),
            prefect=raw.get("prefect"),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def register(api_url: str, *, kept: bool = False) -> Path:
    """Name this process's server in the registry (written whole: a reader never sees
    half an entry)."""
    entry = Entry(api_url, os.getpid())
    if kept:
        entry = Entry(api_url, os.getpid(), kept, sys.executable, installed_prefect())
    fields = {name: value for name, value in asdict(entry).items() if value not in (None, False)}
    path = prefect_home() / REGISTRY_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{REGISTRY_NAME}.{os.getpid()}")
    partial.write_text(json.dumps(fields))
    partial.replace(path)
    return path


def unregister() -> None:
    """Remove this process's entry; one another process wrote since stays."""
    entry = read()
    if entry is not None and entry.pid == os.getpid():
        with suppress(OSError):
            (prefect_home() / REGISTRY_NAME).unlink()


def registered_server(*, kept: bool = True) -> str | None:
    entry = live_entry(kept=kept)
    return None if entry is None else entry.api_url


def live_entry(*, kept: bool = True) -> Entry | None:
    """The registered server, when its process is alive, it answers, and (for a kept
    server) it runs on this process's Python and Prefect. ``kept=False`` leaves a kept
    server out."""
    import httpx

    entry = read()
    if entry is None or (entry.kept and not kept):
        return None
    if entry.kept and (entry.executable, entry.prefect) != (sys.executable, installed_prefect()):
        return None
    try:
        os.kill(entry.pid, 0)
        healthy = httpx.get(f"{entry.api_url}/health", timeout=1.0).status_code == 200
    except (OSError, httpx.HTTPError):
        return None
    return entry if healthy else None


class RunsLock:
    """``pressroom-server.lock``: held shared by each run that may use a kept server,
    taken exclusively by the kept server to see that none does."""

    def __init__(self) -> None:
        path = prefect_home() / LOCK_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd: int | None = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)

    def hold_shared(self) -> None:
        """Wait (at most the moment a kept server takes to decide) and hold it shared."""
        assert self._fd is not None
        fcntl.flock(self._fd, fcntl.LOCK_SH)

    def try_exclusive(self) -> bool:
        """Whether no run holds it; if so, this process now holds it alone."""
        assert self._fd is not None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # releases it too
