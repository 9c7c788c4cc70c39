"""The pool a large upload's body is read into: a block is reused only once given back,
never held twice, whichever threads take and give back at once."""

from __future__ import annotations

import sys
import threading
import time

from pressroom.service import body_blocks


def test_a_block_is_given_back_once_and_only_blocks_are_kept() -> None:
    body_blocks._free.clear()
    block = body_blocks.take()
    assert len(block) == body_blocks.BLOCK_SIZE
    body_blocks.give_back(memoryview(block)[:10])
    body_blocks.give_back(block)  # given back twice: still one block to hand out
    body_blocks.give_back(b"bytes")
    body_blocks.give_back(bytearray(body_blocks.BLOCK_SIZE))
    assert body_blocks.free_blocks() == 1
    assert body_blocks.take() is block
    for _ in range(body_blocks.KEEP + 3):
        body_blocks.give_back(body_blocks.Block(16))
    assert body_blocks.free_blocks() == body_blocks.KEEP
    body_blocks._free.clear()


def test_blocks_taken_and_given_back_on_several_threads_at_once_stay_single() -> None:
    """The loop takes while upload writers give back: no call fails, and no block is in
    the pool twice (it would be handed to two bodies at once)."""
    body_blocks._free.clear()
    blocks = [body_blocks.Block(16) for _ in range(body_blocks.KEEP - 1)]  # never full
    failures: list[BaseException] = []
    stop = threading.Event()

    def giving() -> None:
        try:
            while not stop.is_set():
                for block in blocks:
                    body_blocks.give_back(block)
        except BaseException as exc:  # reported on the test's thread
            failures.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    givers = [threading.Thread(target=giving) for _ in range(2)]
    for giver in givers:
        giver.start()
    seen_twice = 0
    try:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and not failures:
            body_blocks.take()
            free = list(body_blocks._free)
            seen_twice += len(free) - len({id(block) for block in free})
    finally:
        stop.set()
        for giver in givers:
            giver.join()
        sys.setswitchinterval(interval)
    free = list(body_blocks._free)
    body_blocks._free.clear()
    assert failures == []
    assert seen_twice == 0
    assert len(free) == len({id(block) for block in free}) <= body_blocks.KEEP
