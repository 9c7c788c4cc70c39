"""Blocks a large request body is read into straight from the socket, and given back
once written, so the next MiB lands in memory already mapped and in the cache.

Why a pool: a fresh MiB for every MiB received costs 256 page faults and a zeroing
each time (the C library maps large blocks anew and unmaps them when freed), more CPU
than the copy the blocks save (``benchmarks/README.md``, "thirteenth round"). Why given
back explicitly: a block is only reused once whoever received it says it is done with
it; a block that is never given back is simply freed, so a consumer that keeps a body
(or forgets) can never see it overwritten.

The protocol takes blocks (:func:`take`) in ``pressroom.service.http_protocol``; the
upload's writer thread gives them back (:func:`give_back`) after hashing and writing
them. The two run on different threads: the pool is guarded by a lock, taken once a MiB.
"""

from __future__ import annotations

import threading
from collections import deque

BLOCK_SIZE = 1024 * 1024
"""The size of a block: about four socket reads, one write and one hash update each."""

KEEP = 12
"""Free blocks kept for the next body (12 MiB at most); more are freed. Enough for one
upload in flight: the block being read, two waiting for the app, the app's own, the
writer's queue (``upload_pipeline.DEPTH``) and the one being written."""


class Block(bytearray):
    """A block of a request body, taken from the pool (a ``bytearray``: hashlib,
    ``os.writev`` and ``bytes.join`` take it as they take ``bytes``)."""

    __slots__ = ()


_free: deque[Block] = deque()
_lock = threading.Lock()


def take() -> Block:
    """A block to read into: a given-back one if there is one, else a new one."""
    with _lock:
        if _free:
            return _free.pop()
    return Block(BLOCK_SIZE)


def give_back(piece: object) -> None:
    """Return the block behind ``piece`` (a :class:`Block`, or a ``memoryview`` of one,
    as the last part of a body is handed over) for reuse; anything else is ignored, so a
    consumer may give back every piece it received, whatever read it."""
    block = piece
    if isinstance(piece, memoryview):
        block = piece.obj
        piece.release()
    if not isinstance(block, Block):
        return
    with _lock:
        if len(_free) < KEEP and not any(free is block for free in _free):  # twice: once
            _free.append(block)


def free_blocks() -> int:
    """How many blocks wait for reuse (for the tests)."""
    return len(_free)
