"""An upload's bytes written and hashed on two threads of their own while the event loop
receives the next ones.

The loop hands each block (the pieces the connection delivered, about a MiB, never
joined) to a writer thread and a hasher thread through a queue each, and waits only when
either is :data:`DEPTH` blocks behind: so receiving, writing and hashing run at once,
and memory stays at a few blocks whatever the size. Both threads let go of the
interpreter lock for the work itself (``os.writev``, ``hashlib`` on more than 2 KiB).
Handing a block to a thread of the pool and awaiting it, twice a block, held the PUT
to one block at a time (``benchmarks/README.md``).

The writer thread owns the file from the first block to the last: it also makes it
durable and puts it in place (:meth:`UploadSlot.finish`) or removes it
(:meth:`UploadSlot.discard`), so nothing else touches the file while it writes, even
when the request is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Final

from pressroom.service.storage.local import UploadSlot

DEPTH = 4
"""Blocks a thread may be behind the loop: enough to ride out a slow write or a busy
core, small enough that memory stays flat (4 blocks of about a MiB)."""

Block = Sequence[bytes]
_FINISH: Final = "finish"
_ABORT: Final = "abort"


class _Stage:
    """One thread working through the blocks in order, with room for :data:`DEPTH`."""

    def __init__(
        self, name: str, work: Callable[[Block], None], last: Callable[[bool], None]
    ) -> None:
        self._loop = asyncio.get_running_loop()
        self._work = work
        self._last = last
        self._blocks: queue.SimpleQueue[Block | str] = queue.SimpleQueue()
        self.room = asyncio.Semaphore(DEPTH)
        self.failure: BaseException | None = None
        self.skip = False
        """Set when the upload is abandoned: the blocks still queued are dropped."""
        self.done: asyncio.Future[None] = self._loop.create_future()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def put(self, block: Block | str) -> None:
        self._blocks.put(block)

    def join(self) -> None:
        self._thread.join()

    def _run(self) -> None:
        while True:
            block = self._blocks.get()
            if isinstance(block, str):
                break
            if self.failure is None and not self.skip:
                try:
                    self._work(block)
                except BaseException as exc:  # handed to the loop, which raises it
                    self.failure = exc
            self._tell(self.room.release)
        try:
            self._last(block == _FINISH and self.failure is None)
        except BaseException as exc:
            self.failure = exc
        self._tell(self._finished)

    def _finished(self) -> None:
        if not self.done.done():
            self.done.set_result(None)

    def _tell(self, callback: Callable[[], None]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            self._loop.call_soon_threadsafe(callback)


class UploadPipeline:
    """Writes and hashes an upload's blocks as they are received (see the module)."""

    def __init__(self, slot: UploadSlot) -> None:
        self._slot = slot
        self._writer = _Stage("upload-writer", slot.store, self._close_file)
        self._hasher = _Stage("upload-hasher", slot.hash, lambda _finished: None)
        self._stages = (self._writer, self._hasher)
        self._ended = False

    async def put(self, block: Block) -> None:
        """Queue a block for both threads; waits while either is :data:`DEPTH` behind.
        Raises what the writer met (e.g. a full disk) as soon as the loop hears of it."""
        for stage in self._stages:
            await stage.room.acquire()
        self._raise_failure()
        for stage in self._stages:
            stage.put(block)

    async def finish(self) -> tuple[int, str]:
        """Once every block is written and hashed: fsync, put the file in place, and
        return its size and SHA-256."""
        await self._end(_FINISH)
        self._raise_failure()
        return self._slot.size, self._slot.sha256

    async def abort(self) -> None:
        """Stop both threads and remove the partial file (a no-op after :meth:`finish`).
        Waits for them, so that the slot is free again when the answer goes out; a
        cancelled wait leaves the removal to the writer thread."""
        if not self._ended:
            await self._end(_ABORT)

    async def _end(self, how: str) -> None:
        self._ended = True
        for stage in self._stages:
            stage.skip = how == _ABORT
            stage.put(how)
        await asyncio.gather(*(stage.done for stage in self._stages))

    def _close_file(self, finished: bool) -> None:
        """On the writer thread, after its last block: the file is put in place only
        once the hasher has taken every byte too."""
        self._hasher.join()
        if finished and self._hasher.failure is None:
            self._slot.finish()
        else:
            self._slot.discard()

    def _raise_failure(self) -> None:
        for stage in self._stages:
            if stage.failure is not None:
                raise stage.failure
