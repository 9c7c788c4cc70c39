"""A run's own Prefect server, left running for the next runs for a few idle minutes.

Without a Prefect server to talk to, every ``pressroom demo`` or ``campaign run`` starts
a temporary one, about 5 s on two idle cores before the run can begin (see
``prefect_api``). Like a build daemon, the server a run starts is therefore left
running, and the runs that follow within ``PRESSROOM_PIPELINE_PREFECT_IDLE_SECONDS``
(default 300) of the last one use it and start nothing. ``0`` turns this off: each run
then starts its own server and stops it as it ends, as Prefect's ephemeral mode does.

What stays the same: the server is Prefect's own app started as the ephemeral mode starts
it, on the same database in ``PREFECT_HOME``, so every run, on a kept server or not, is in
the one history the Prefect UI shows (``prefect server start`` on that home). The kept
server itself serves no UI.

How it stays out of the way:

- it runs in a session of its own, its output in ``$PREFECT_HOME/pressroom-server.log``,
  so it holds none of the command's pipes or terminal (a caller reading the command's
  output sees it end when the command ends) and Ctrl-C in that terminal does not reach it;
- it stops once no run has used it for the idle time (``prefect_kept_server`` watches
  the lock of ``prefect_registry``), writing its last batches as any Prefect server does
  on SIGTERM, and ``pressroom prefect-stop`` stops it at once;
- a run on another Python or Prefect version, or with the setting at ``0``, does not use
  it.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from contextlib import suppress

from pressroom.pipeline import prefect_registry
from pressroom.pipeline.prefect_home import prefect_home
from pressroom.pipeline.prefect_server import EPHEMERAL_ENVIRONMENT, free_port, wait_healthy

IDLE_SECONDS_ENV = "PRESSROOM_PIPELINE_PREFECT_IDLE_SECONDS"
DEFAULT_IDLE_SECONDS = 300.0
LOG_NAME = "pressroom-server.log"


class InvalidSetting(ValueError):
    """A setting read before any other is checked, with what it must be."""


def idle_seconds() -> float:
    """How long a run's server waits for the next run (0: it stops with its run).

    Read from the environment directly: it decides, in a command's first milliseconds,
    whether a server starts at all (``pressroom.pipeline.config`` documents it).
    """
    raw = os.environ.get(IDLE_SECONDS_ENV, "").strip()
    if not raw:
        return DEFAULT_IDLE_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise InvalidSetting(
            f"{IDLE_SECONDS_ENV}={raw!r}: must be a number of seconds, 0 or more "
            "(0: each run stops its Prefect server as it ends)"
        )
    return value


_lock: prefect_registry.RunsLock | None = None


def hold() -> None:
    """Keep any kept server alive until :func:`let_go` (or this process ends): taken before
    the registry is read (see ``prefect_registry``)."""
    global _lock
    if _lock is None:
        lock = prefect_registry.RunsLock()
        lock.hold_shared()
        _lock = lock


def let_go() -> None:
    global _lock
    lock, _lock = _lock, None
    if lock is not None:
        lock.close()


class KeptServer:
    """Prefect's server started for this run, to be left running after it."""

    def __init__(self, *, environ: Mapping[str, str], idle: float) -> None:
        self.port = free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        env = {**environ, **EPHEMERAL_ENVIRONMENT}
        env.pop("PREFECT_API_URL", None)
        log = prefect_home() / LOG_NAME
        log.parent.mkdir(parents=True, exist_ok=True)
        argv = [
            sys.executable,
            "-m",
            "pressroom.pipeline.prefect_kept_server",
            "--port",
            str(self.port),
            "--idle-seconds",
            repr(idle),
        ]
        self.pid: int | None = os.posix_spawn(
            sys.executable,
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, str(log), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644),
                (os.POSIX_SPAWN_DUP2, 1, 2),
            ],
            setsid=True,
        )

    def exit_code(self) -> int | None:
        """Its exit status once it has ended (reaped here), else None."""
        if self.pid is None:
            return 0
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return 0
        return os.waitstatus_to_exitcode(status) if pid else None

    def wait_ready(self, timeout: float | None = None) -> str:
        try:
            return wait_healthy(self.api_url, self.exit_code, timeout, what="Prefect server")
        except BaseException:
            self.stop()
            raise

    def leave(self) -> None:
        """The run is over; the server stays for the next ones."""
        self.pid = None

    def stop(self) -> None:
        """Stop it now (a server no run will use), as a temporary server is stopped."""
        pid = self.pid
        if pid is None:
            return
        if self.exit_code() is None:
            terminate(pid, ended=lambda: self.exit_code() is not None, timeout=10)
        with suppress(ChildProcessError):
            os.waitpid(pid, 0)  # reaped, killed or not
        self.pid = None


def terminate(pid: int, *, ended: Callable[[], bool], timeout: float) -> None:
    """SIGTERM, so that the server writes its last batches; SIGKILL if it has not ended
    within ``timeout``."""
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while not ended():
        if time.monotonic() > deadline:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.05)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def stop_kept(timeout: float = 15.0) -> int | None:
    """Stop the kept server of this ``PREFECT_HOME`` (``pressroom prefect-stop``): the pid
    it had, or None when none runs. ``pressroom serve``'s server is left alone."""
    entry = prefect_registry.read()
    if entry is None or not entry.kept:
        return None
    try:
        terminate(entry.pid, ended=lambda: _gone(entry.pid), timeout=timeout)
    except ProcessLookupError:
        return None
    return entry.pid
