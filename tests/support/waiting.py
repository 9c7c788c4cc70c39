"""Waiting for a state another thread or process brings about, with a deadline.

A test that checks right away races the code that makes the change; one that sleeps a
fixed time is slow and still races on a busy machine. Poll for the state instead, and
fail naming what never came.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(check: Callable[[], T], what: str, timeout: float = 20.0) -> T:
    """Call ``check`` until it returns something true, and return that; fail after
    ``timeout`` seconds saying ``what`` was awaited and what ``check`` last returned."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}: last {found!r}"
        time.sleep(0.02)
    return found
