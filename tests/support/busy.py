"""Work for the conversion bounds' tests, importable by a spawned process."""

from __future__ import annotations


def spin() -> None:
    """Burn CPU until stopped."""
    count = 0
    while True:
        count += 1


def sleep_long() -> None:
    """Wait without using CPU (a converter stuck on I/O)."""
    import time

    time.sleep(60)


def allocate(size: int) -> int:
    return len(bytearray(size))


def crash() -> None:
    import os
    import signal

    os.kill(os.getpid(), signal.SIGSEGV)
