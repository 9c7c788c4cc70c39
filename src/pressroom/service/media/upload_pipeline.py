"""An upload's bytes hashed and written on a thread of its own while the event loop
receives the next ones.

The loop hands each block (the pieces the connection delivered, about a MiB, never
joined) to the thread through a queue and waits only when the thread is :data:`DEPTH`
blocks behind: so receiving overlaps hashing and writing, and memory stays at a few
blocks whatever the size. The thread lets go of the interpreter lock for the work
itself (``hashlib`` on more than 2 KiB, ``os.writev``).

One thread does both, the hash and then the write of each block, while the block is
still in the core's cache. Measured on two cores shared with the client
(``benchmarks/README.md``, 2026-11-27), that beat a thread for each (they and the loop
then fought over two cores, the cache and the interpreter lock: more CPU per GiB, and no
faster) and the block received, then written and hashed on two threads of the pool
before the next was read (the loop idle meanwhile).

When the request declared its size, the thread first reserves the file's blocks
(:meth:`UploadSlot.reserve`): a fifth less CPU in the writes, on the thread that sets the
pace (``benchmarks/README.md``, "Uploads, fourth round").

Once a block is hashed and written the thread gives its memory back for the next MiB
(:func:`~pressroom.service.body_blocks.give_back`; pieces that are not pooled blocks are
left alone); a block whose write failed, or that was dropped, is left to be freed.

The thread owns the file from the first block to the last: it also makes it durable and
puts it in place (:meth:`UploadSlot.finish`) or removes it (:meth:`UploadSlot.discard`),
so nothing else touches the file while it writes, even when the request is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Final

from pressroom.service import body_blocks
from pressroom.service.storage.local import UploadSlot

DEPTH = 4
"""Blocks the thread may be behind the loop: enough to ride out a slow write or a busy
core, small enough that memory stays flat (4 blocks of about a MiB)."""

Block = Sequence[bytes]
_FINISH: Final = "finish"
_ABORT: Final = "abort"


class UploadPipeline:
    """Hashes and writes an upload's blocks as they are received (see the module)."""

    def __init__(self, slot: UploadSlot, size: int | None = None) -> None:
        """``size``: the upload's declared size, if it has one: its blocks are reserved
        first (:meth:`UploadSlot.reserve`)."""
        self._slot = slot
        self._size = size
        self._loop = asyncio.get_running_loop()
        self._blocks: queue.SimpleQueue[Block | str] = queue.SimpleQueue()
        self._room = asyncio.Semaphore(DEPTH)
        self._done: asyncio.Future[None] = self._loop.create_future()
        self._failure: BaseException | None = None
        self._skip = False  # set when abandoned: the blocks still queued are dropped
        self._ended = False
        threading.Thread(target=self._run, name="upload-writer", daemon=True).start()

    async def put(self, block: Block) -> None:
        """Queue a block; waits while the thread is :data:`DEPTH` blocks behind.
        Raises what the thread met (e.g. a full disk) as soon as the loop hears of it."""
        await self._room.acquire()
        self._raise_failure()
        self._blocks.put(block)

    async def finish(self) -> tuple[int, str]:
        """Once every block is hashed and written: fsync, put the file in place, and
        return its size and SHA-256."""
        await self._end(_FINISH)
        self._raise_failure()
        return self._slot.size, self._slot.sha256

    async def abort(self) -> None:
        """Stop the thread and remove the partial file (a no-op after :meth:`finish`).
        Waits for it, so that the slot is free again when the answer goes out; a
        cancelled wait leaves the removal to the thread."""
        if not self._ended:
            self._skip = True
            await self._end(_ABORT)

    async def _end(self, how: str) -> None:
        self._ended = True
        self._blocks.put(how)
        await self._done

    def _run(self) -> None:
        if self._size:
            self._slot.reserve(self._size)
        while not isinstance(block := self._blocks.get(), str):
            if self._failure is None and not self._skip:
                try:
                    self._slot.hash(block)
                    self._slot.store(block)
                except BaseException as exc:  # handed to the loop, which raises it
                    self._failure = exc
                else:
                    for piece in block:  # hashed and written: its memory may be reused
                        body_blocks.give_back(piece)
            self._tell(self._room.release)
        try:
            if block == _FINISH and self._failure is None:
                self._slot.finish()
            else:
                self._slot.discard()
        except BaseException as exc:  # e.g. the fsync failed: the file is not kept either
            self._failure = exc
            with contextlib.suppress(OSError):
                self._slot.discard()
        self._tell(self._finished)

    def _finished(self) -> None:
        if not self._done.done():
            self._done.set_result(None)

    def _tell(self, callback: Callable[[], None]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            self._loop.call_soon_threadsafe(callback)

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure
