"""Ids cut from blocks of the system's randomness: each byte handed out once, and a
forked child (a server process per core) never hands out its parent's bytes."""

from __future__ import annotations

import os

from pressroom.service import randomness


def test_ids_are_hex_of_the_length_asked_and_never_repeat() -> None:
    drawn = [randomness.token_hex(12) for _ in range(3 * randomness.BLOCK_BYTES // 12)]
    assert all(len(value) == 24 and int(value, 16) >= 0 for value in drawn)
    assert len(set(drawn)) == len(drawn)  # across several blocks, nothing handed out twice


def test_a_request_larger_than_a_block_is_served_whole() -> None:
    assert len(randomness.token_hex(randomness.BLOCK_BYTES + 1)) == 2 * (randomness.BLOCK_BYTES + 1)


def test_a_forked_child_never_hands_out_its_parents_bytes() -> None:
    randomness.token_hex(4)  # the parent holds a block with bytes still to hand out
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the next id it makes, to the parent
        os.close(read_end)
        os.write(write_end, randomness.token_hex(16).encode())
        os._exit(0)
    os.close(write_end)
    child = os.read(read_end, 64).decode()
    os.close(read_end)
    os.waitpid(pid, 0)
    parent = randomness.token_hex(16)
    assert len(child) == 32
    assert child != parent  # without the reset at fork both cut the same bytes next
