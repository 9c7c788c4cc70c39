"""Conversions in a process of their own, bounded in CPU time, memory and wall-clock time.

A conversion decodes a whole file (every frame of a video), so a hostile or merely huge
file could take a worker's CPU and memory for as long as it likes. Each one therefore
runs in a fresh spawned process (pebble's pool, one task per process, so no limit
outlives its conversion), which first sets, on top of what it has used in starting up:

- ``RLIMIT_CPU`` + ``PRESSROOM_CONVERSION_CPU_SECONDS``: past it the kernel stops the
  process (SIGXCPU; SIGKILL a second later);
- ``RLIMIT_AS`` + ``PRESSROOM_CONVERSION_MEMORY_MB``: an allocation past it fails
  (``MemoryError`` in Pillow, ENOMEM in the codecs), so the process never grows past it;

and pebble kills it after ``PRESSROOM_CONVERSION_TIMEOUT_SECONDS`` of wall-clock time (a
converter stuck on I/O uses no CPU). Before any of that, a file with more pixels a frame
than ``PRESSROOM_CONVERSION_MAX_PIXELS`` is refused without being decoded.

A bound that is hit raises ``OutOfBounds`` naming it; the derived file fails with that
reason, and the worker thread that asked goes on with the next job.
"""

from __future__ import annotations

import atexit
import logging
import math
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import TimeoutError as WallClockExceeded
from dataclasses import dataclass
from typing import Any, TypeVar

from pebble import ProcessExpired, ProcessPool

from pressroom.service.media.probing import exit_with_parent
from pressroom.settings import Settings

log = logging.getLogger(__name__)

T = TypeVar("T")
MIB = 1024 * 1024

_lock = threading.Lock()
_pool: ProcessPool | None = None


@dataclass(frozen=True)
class Bounds:
    cpu_seconds: int
    memory_bytes: int
    wall_seconds: float
    max_pixels: int

    @classmethod
    def of(cls, settings: Settings) -> Bounds:
        return cls(
            cpu_seconds=settings.conversion_cpu_seconds,
            memory_bytes=settings.conversion_memory_mb * MIB,
            wall_seconds=settings.conversion_timeout_seconds,
            max_pixels=settings.conversion_max_pixels,
        )

    def cpu_reason(self) -> str:
        return (
            f"the conversion used more than {self.cpu_seconds} s of CPU time "
            "(PRESSROOM_CONVERSION_CPU_SECONDS) and was stopped"
        )

    def memory_reason(self) -> str:
        return (
            f"the conversion needed more than {self.memory_bytes // MIB} MiB of memory "
            "(PRESSROOM_CONVERSION_MEMORY_MB) and was stopped"
        )

    def wall_reason(self) -> str:
        return (
            f"the conversion took longer than {self.wall_seconds:g} s "
            "(PRESSROOM_CONVERSION_TIMEOUT_SECONDS) and was stopped"
        )

    def pixel_reason(self, width: int, height: int) -> str | None:
        """Why a ``width`` x ``height`` picture is not converted, or None when it may be."""
        if width * height <= self.max_pixels:
            return None
        return (
            f"the file is {width}x{height}, {width * height:,} pixels a picture: more than "
            f"the {self.max_pixels:,} a conversion may decode (PRESSROOM_CONVERSION_MAX_PIXELS)"
        )


class OutOfBounds(Exception):
    """The conversion hit one of its bounds; the message names it."""


def _current_pool(workers: int) -> ProcessPool:
    global _pool
    with _lock:
        if _pool is None or not _pool.active:
            _pool = ProcessPool(
                max_workers=workers,
                max_tasks=1,  # a fresh process per conversion: its limits die with it
                initializer=_prepare,
                initargs=(os.getpid(),),
                context=multiprocessing.get_context("spawn"),
            )
            atexit.register(_stop, _pool)
        return _pool


def _stop(pool: ProcessPool) -> None:
    """At exit: the pool replaces each finished process at once, and a replacement
    started while the interpreter is going away fails noisily."""
    pool.stop()  # type: ignore[no-untyped-call]
    pool.join(timeout=5)


WARM_MODULES = ("pressroom.conversion", "pressroom.conversion.warm")
"""Imported by each waiting process before a conversion reaches it: the next conversion
starts at once, not after the codecs' libraries load."""


def _prepare(parent: int) -> None:
    exit_with_parent(parent)
    for module in WARM_MODULES:
        __import__(module)


def run_bounded(
    task: Callable[..., T], *args: Any, bounds: Bounds, workers: int, warm: str | None = None
) -> T:
    """``task(*args)`` in a bounded process; its result, or the exception it raised, or
    ``OutOfBounds``. ``warm`` names a module imported before the limits are measured
    (the codecs' libraries are large, and are no part of a file's cost)."""
    future = _current_pool(workers).schedule(
        _bounded, args=(task, bounds, warm, *args), timeout=bounds.wall_seconds
    )
    try:
        result: T = future.result()
        return result
    except WallClockExceeded:
        raise OutOfBounds(bounds.wall_reason()) from None
    except MemoryError:
        raise OutOfBounds(bounds.memory_reason()) from None
    except ProcessExpired as exc:
        if exc.exitcode in (-signal.SIGXCPU, -signal.SIGKILL):
            raise OutOfBounds(bounds.cpu_reason()) from None
        if exc.exitcode == -signal.SIGSEGV:
            # A codec that cannot get memory may crash rather than report it.
            raise OutOfBounds(
                f"the converter crashed, most likely for want of memory: {bounds.memory_reason()}"
            ) from None
        raise


def _bounded(task: Callable[..., T], bounds: Bounds, warm: str | None, *args: Any) -> T:
    if warm:
        __import__(warm)
    ceiling = _limit(bounds)
    try:
        return task(*args)
    except MemoryError:
        raise
    except Exception:
        # A codec whose allocation failed reports a generic error of its own (x264:
        # "Generic error in an external library"): near the ceiling, that is the bound.
        peak = _status_bytes("VmPeak:")
        near = max(64 * MIB, bounds.memory_bytes // 4)
        if ceiling is not None and peak is not None and peak >= ceiling - near:
            raise MemoryError("an allocation failed at the address-space bound") from None
        raise


def _limit(bounds: Bounds) -> int | None:
    """CPU time and address space of this process: what it has used so far, plus the
    budget (never above a hard limit the operator already set). The address-space
    ceiling set, or None where it cannot be measured."""
    import resource

    _few_arenas()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = math.ceil(usage.ru_utime + usage.ru_stime) + bounds.cpu_seconds
    _set(resource.RLIMIT_CPU, cpu, cpu + 1)
    size = _status_bytes("VmSize:")
    if size is None:
        return None
    return _set(resource.RLIMIT_AS, size + bounds.memory_bytes, size + bounds.memory_bytes)


M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter for the number of malloc arenas."""


def _few_arenas() -> None:
    """glibc reserves up to 64 MiB of address space for each thread's own malloc arena,
    and codecs start a thread per core: two arenas keep the address space in step with
    the memory used, so ``RLIMIT_AS`` bounds the file's cost and not the machine's cores."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        if libc is not None and hasattr(libc, "mallopt"):
            libc.mallopt(M_ARENA_MAX, 2)
    except OSError:
        return  # not glibc: its allocator does not reserve per thread this way


def _set(which: int, soft: int, hard: int) -> int:
    """Set a limit; the soft limit in force."""
    import resource

    _, current_hard = resource.getrlimit(which)
    if current_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, current_hard), min(hard, current_hard)
    resource.setrlimit(which, (soft, hard))
    return soft


def _status_bytes(field: str) -> int | None:
    """A size of this process from ``/proc/self/status`` (``VmSize:`` now, ``VmPeak:`` the
    most so far), in bytes (Linux); None where it cannot be read."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None
