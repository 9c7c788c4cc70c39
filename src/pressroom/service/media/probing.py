"""Probing in worker processes, so a decoder that crashes or leaks takes only itself down.

One pool per service process (spawned, not forked: the service has threads and open
database connections that a fork would copy). A crash breaks the pool; it is rebuilt
and the probe tried once more, so a file that crashed only because a neighbour did
still gets its verdict.
"""

from __future__ import annotations

import multiprocessing
import threading
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
            )
        return _pool


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
