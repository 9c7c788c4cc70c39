"""Reserving a file's blocks before its bytes arrive, where the system allows it.

Linux's ``fallocate(2)`` with ``FALLOC_FL_KEEP_SIZE`` gives a file its blocks in one
call and leaves its size as it is: ext4 then maps an upload in a few extents up front
instead of block by block while its pages are written back, and the writes of a 512 MiB
upload take about a third less CPU (``benchmarks/README.md``, "Uploads, fourth round").
Not ``os.posix_fallocate``: it also sets the file's size, and where the file system has
no ``fallocate`` the C library emulates it by writing a byte into every block.

Best effort: where the call is missing (not Linux) or refused (a file system without
it, a full disk), nothing is reserved and the writes allocate as they always did; a
full disk is then met, and reported, by them.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

FALLOC_FL_KEEP_SIZE = 0x01


def _load() -> Callable[[int, int, int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        call = ctypes.CDLL(None, use_errno=True).fallocate
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    call.restype = ctypes.c_int
    return call


_FALLOCATE = _load()


def reserve(fd: int, size: int) -> bool:
    """Reserve ``size`` bytes of blocks for the open file ``fd``, keeping its size;
    whether the system did. Releases the interpreter lock while it runs."""
    if _FALLOCATE is None or size <= 0:
        return False
    return _FALLOCATE(fd, FALLOC_FL_KEEP_SIZE, 0, size) == 0
