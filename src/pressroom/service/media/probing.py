"""Probing in worker processes, so a decoder that crashes, leaks or hangs costs one file.

One pool per service process (spawned, not forked: the service has threads and open
database connections that a fork would copy), from ``pebble``, because the standard
library's pool can neither stop a task that runs too long nor survive a worker's
crash. Here a probe past ``PRESSROOM_PROBE_TIMEOUT_SECONDS`` has its worker killed and
its file fails with a reason; a worker that crashes takes only its own file with it.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as ProbeTimeout
from pathlib import Path
from typing import TypeVar

from pebble import ProcessExpired, ProcessPool

from pressroom.probe import Probed, ProbeError, probe_file

_lock = threading.Lock()
_pool: ProcessPool | None = None

Probe = Callable[[Path, str], Probed]
T = TypeVar("T")


def _current_pool(workers: int) -> ProcessPool:
    global _pool
    with _lock:
        if _pool is None or not _pool.active:
            _pool = ProcessPool(
                max_workers=workers,
                max_tasks=200,
                initializer=exit_with_parent,
                initargs=(os.getpid(),),
                context=multiprocessing.get_context("spawn"),
            )
        return _pool


def exit_with_parent(parent: int) -> None:
    """A worker whose service was killed would wait forever on its task pipe. Leave with
    the parent."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def probe_isolated(
    path: Path, content_type: str, *, workers: int, timeout: float, run: Probe = probe_file
) -> Probed:
    """``run`` (``pressroom.probe.probe_file``) in a worker process; ProbeError says what is
    wrong, also when the decoder crashed or did not finish within ``timeout`` seconds."""
    return run_isolated(run, path, content_type, workers=workers, timeout=timeout)


def run_isolated(
    run: Callable[[Path, str], T], path: Path, content_type: str, *, workers: int, timeout: float
) -> T:
    """Any decoding of an uploaded file, in a worker process that is killed past
    ``timeout`` seconds."""
    future = _current_pool(workers).schedule(run, args=(path, content_type), timeout=timeout)
    try:
        result: T = future.result()
        return result
    except ProbeTimeout:
        raise ProbeError(
            f"the decoder did not finish reading the file within {timeout:g} s and was "
            "stopped; the file is damaged or not media"
        ) from None
    except ProcessExpired:
        raise ProbeError(
            "the decoder crashed while reading the file; it is damaged or not media"
        ) from None
