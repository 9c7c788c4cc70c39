"""An upload written and hashed on threads of its own while the loop receives: the bytes
in order, the loop held back when the threads fall behind, a refusing disk raised on
the loop, and nothing left behind when the PUT stops half way."""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pressroom.service import body_blocks
from pressroom.service.media.upload_pipeline import DEPTH, UploadPipeline
from pressroom.service.storage import preallocate
from pressroom.service.storage.local import WRITEBACK_BYTES, LocalStorage, UploadSlot
from pressroom.settings import Settings

FILE_ID = "file_" + "ef" * 12


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(Settings(data_dir=tmp_path))


def blocks(count: int, size: int) -> list[list[bytes]]:
    """Blocks of three unequal pieces each, every piece different."""
    found = []
    for _ in range(count):
        data = os.urandom(size)
        found.append([data[:7], data[7 : size // 2], data[size // 2 :]])
    return found


def supports_reserving(directory: Path) -> bool:
    """Whether this system and file system reserve blocks (Linux, most file systems)."""
    with (directory / "probe").open("wb") as probe:
        return preallocate.reserve(probe.fileno(), 4096)


def held_slot(
    storage: LocalStorage, monkeypatch: pytest.MonkeyPatch
) -> tuple[UploadSlot, threading.Event]:
    """A slot whose writes wait until the returned event is set: a disk that falls behind."""
    gate = threading.Event()
    slot = storage.claim(FILE_ID)
    store = slot.store

    def slow_store(pieces: list[bytes]) -> None:
        gate.wait()
        store(pieces)

    monkeypatch.setattr(slot, "store", slow_store)
    return slot, gate


def test_every_block_is_written_in_order_hashed_and_put_in_place(storage: LocalStorage) -> None:
    sent = blocks(3 * DEPTH + 1, 3 * WRITEBACK_BYTES // 8)  # past the writeback hint

    async def upload() -> tuple[int, str]:
        pipeline = UploadPipeline(storage.claim(FILE_ID))
        for block in sent:
            await pipeline.put(block)
        found = await pipeline.finish()
        await pipeline.abort()  # after finish: nothing to undo
        return found

    whole = b"".join(b"".join(block) for block in sent)
    assert asyncio.run(upload()) == (len(whole), hashlib.sha256(whole).hexdigest())
    assert (storage.root / "files" / FILE_ID).read_bytes() == whole
    assert list((storage.root / "tmp").iterdir()) == []


def test_a_declared_size_reserves_the_blocks_but_the_file_is_what_was_written(
    storage: LocalStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The blocks of the declared size are reserved before the first write, the file's
    size stays the bytes written (a shorter body never leaves a longer file)."""
    slot = storage.claim(FILE_ID)
    store, seen = slot.store, []

    def store_and_look(pieces: list[bytes]) -> None:
        if not seen:
            seen.append(os.fstat(slot._handle.fileno()))  # before the first write
        store(pieces)

    monkeypatch.setattr(slot, "store", store_and_look)
    sent = blocks(2, 256 * 1024)

    async def upload() -> tuple[int, str]:
        pipeline = UploadPipeline(slot, 16 * 1024 * 1024)
        for block in sent:
            await pipeline.put(block)
        return await pipeline.finish()

    whole = b"".join(b"".join(block) for block in sent)
    assert asyncio.run(upload()) == (len(whole), hashlib.sha256(whole).hexdigest())
    (before,) = seen
    assert before.st_size == 0
    if supports_reserving(storage.root):
        assert before.st_blocks * 512 >= 16 * 1024 * 1024  # reserved up front
    assert (storage.root / "files" / FILE_ID).read_bytes() == whole


def test_the_loop_waits_while_the_writer_is_the_depth_behind(
    storage: LocalStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory stays at DEPTH blocks: the loop is held back, never the blocks piled up."""
    slot, gate = held_slot(storage, monkeypatch)

    async def upload() -> int:
        pipeline = UploadPipeline(slot)
        for block in blocks(DEPTH, 64):
            await pipeline.put(block)
        held = asyncio.ensure_future(pipeline.put([b"one more"]))
        await asyncio.sleep(0.2)
        assert not held.done()
        gate.set()
        await held
        size, _ = await pipeline.finish()
        return size

    assert asyncio.run(upload()) == DEPTH * 64 + len(b"one more")


def test_blocks_are_given_back_once_written_and_not_when_the_write_failed(
    storage: LocalStorage, tmp_path: Path
) -> None:
    body_blocks._free.clear()
    sent = [body_blocks.take() for _ in range(3)]
    for number, block in enumerate(sent):
        block[:] = os.urandom(len(block))
        assert number == 0 or block is not sent[0]

    async def upload(slot: UploadSlot, pieces: list[list[bytes | bytearray | memoryview]]) -> None:
        pipeline = UploadPipeline(slot)
        try:
            for block in pieces:
                await pipeline.put(block)  # type: ignore[arg-type]
            await pipeline.finish()
        finally:
            await pipeline.abort()

    last = memoryview(sent[2])[:1000]
    asyncio.run(upload(storage.claim(FILE_ID), [[b"head", sent[0]], [sent[1]], [last]]))
    whole = b"head" + sent[0] + sent[1] + bytes(sent[2][:1000])
    assert (storage.root / "files" / FILE_ID).read_bytes() == whole
    assert sorted(map(id, body_blocks._free)) == sorted(map(id, sent))

    body_blocks._free.clear()
    part, target = tmp_path / "upload.part", tmp_path / "upload"
    refusing = UploadSlot(open("/dev/full", "r+b"), part, target)  # noqa: SIM115
    with pytest.raises(OSError):
        asyncio.run(upload(refusing, [[sent[0]], [sent[1]]]))
    assert body_blocks.free_blocks() == 0  # not written: not known to be done with


def test_a_disk_that_refuses_the_bytes_is_raised_on_the_loop_and_nothing_stays(
    tmp_path: Path,
) -> None:
    part, target = tmp_path / "upload.part", tmp_path / "upload"
    part.write_bytes(b"")
    handle = open("/dev/full", "r+b")  # noqa: SIM115 - the slot closes it
    slot = UploadSlot(handle, part, target)

    async def upload() -> None:
        pipeline = UploadPipeline(slot)
        try:
            for block in blocks(2 * DEPTH, 1024):
                await pipeline.put(block)
            await pipeline.finish()
        finally:
            await pipeline.abort()

    with pytest.raises(OSError) as refused:
        asyncio.run(upload())
    assert refused.value.errno == errno.ENOSPC
    assert handle.closed and not part.exists() and not target.exists()


def test_a_put_stopped_half_way_removes_its_file_and_frees_the_url(
    storage: LocalStorage,
) -> None:
    async def upload() -> None:
        pipeline = UploadPipeline(storage.claim(FILE_ID))
        for block in blocks(DEPTH, 4096):
            await pipeline.put(block)
        await pipeline.abort()  # the client hung up

    asyncio.run(upload())
    assert list((storage.root / "tmp").iterdir()) == []
    assert not (storage.root / "files" / FILE_ID).exists()
    slot = storage.claim(FILE_ID)  # the lock went with the file
    slot.write(b"again")
    assert slot.finish() == 5


def test_a_cancelled_request_still_leaves_nothing(
    storage: LocalStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelled while waiting for the writer: the writer removes the file on its own."""
    slot, gate = held_slot(storage, monkeypatch)

    async def upload() -> None:
        pipeline = UploadPipeline(slot)
        try:
            for block in blocks(DEPTH + 1, 64):
                await pipeline.put(block)
        finally:
            await pipeline.abort()

    async def cancelled() -> None:
        task = asyncio.ensure_future(upload())
        await asyncio.sleep(0.1)
        task.cancel()
        await asyncio.sleep(0.1)
        task.cancel()  # twice: the abort's wait is cancelled too
        with pytest.raises(asyncio.CancelledError):
            await task
        gate.set()

    asyncio.run(cancelled())
    deadline = datetime.now(UTC) + timedelta(seconds=10)
    while list((storage.root / "tmp").iterdir()) and datetime.now(UTC) < deadline:
        threading.Event().wait(0.01)
    assert list((storage.root / "tmp").iterdir()) == []
    storage.claim(FILE_ID).discard()


def test_the_thread_is_gone_once_the_upload_is(storage: LocalStorage) -> None:
    before = threading.active_count()

    async def upload() -> None:
        pipeline = UploadPipeline(storage.claim(FILE_ID))
        await pipeline.put([b"bytes"])
        await pipeline.finish()

    asyncio.run(upload())
    deadline = datetime.now(UTC) + timedelta(seconds=10)
    while threading.active_count() > before and datetime.now(UTC) < deadline:
        threading.Event().wait(0.01)  # the thread ends just after telling the loop
    assert threading.active_count() == before


def test_a_failed_fsync_keeps_nothing_and_frees_the_url(
    storage: LocalStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    async def upload() -> None:
        pipeline = UploadPipeline(storage.claim(FILE_ID))
        try:
            await pipeline.put([b"bytes"])
            with monkeypatch.context() as patched:
                patched.setattr(os, "fsync", failing)
                await pipeline.finish()
        finally:
            await pipeline.abort()

    with pytest.raises(OSError) as failed:
        asyncio.run(upload())
    assert failed.value.errno == errno.EIO
    assert list((storage.root / "tmp").iterdir()) == []
    assert not (storage.root / "files" / FILE_ID).exists()
    storage.claim(FILE_ID).discard()  # the lock went with the file
