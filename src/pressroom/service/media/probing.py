"""Probing in worker processes, so a decoder that crashes or leaks takes only itself down.

One pool per service process (spawned, not forked: the service has threads and open
database connections that a fork would copy). A crash breaks the pool; it is rebuilt
and the probe tried once more, so a file that crashed only because a neighbour did
still gets its verdict.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from pressroom.probe import MediaInfo, ProbeError, probe

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None


def _current_pool(workers: int) -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                max_tasks_per_child=200,
                initializer=_exit_with_parent,
                initargs=(os.getpid(),),
            )
        return _pool


def _exit_with_parent(parent: int) -> None:
    """A worker whose service was killed would wait forever: its task queue's pipe has a
    writer in the worker itself, so it never reads end-of-file. Leave with the parent."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _discard(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    pool.shutdown(wait=False, cancel_futures=True)


def probe_isolated(path: Path, content_type: str, *, workers: int) -> MediaInfo:
    """``pressroom.probe.probe`` in a worker process; ProbeError says what is wrong."""
    for _ in range(2):
        pool = _current_pool(workers)
        try:
            return pool.submit(probe, path, content_type).result()
        except BrokenProcessPool:
            _discard(pool)
    raise ProbeError("the decoder crashed while reading the file; it is damaged or not media")
