"""How many attempts a step took and how long all of them took together.

Prefect retries a task by calling it again: each call only sees its own attempt. The
clock remembers, per run and idempotency key, when the first attempt began and how many
began since, so a row reports the whole story (Retry-After waits and backoff included)
rather than its last attempt. Retries run in the process of their flow run, so a clock
per process is enough; ``finish`` drops a run's entries when it ends.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Attempt:
    number: int
    """1 for the first attempt."""
    first_started: float
    """``time.monotonic()`` when the first attempt began."""

    def elapsed(self) -> float:
        return round(time.monotonic() - self.first_started, 3)


class AttemptClock:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], Attempt] = {}

    def begin(self, run: str, key: str) -> Attempt:
        """An attempt of ``key`` in ``run`` begins now."""
        with self._lock:
            earlier = self._seen.get((run, key))
            if earlier is None:
                attempt = Attempt(1, time.monotonic())
            else:
                attempt = Attempt(earlier.number + 1, earlier.first_started)
            self._seen[(run, key)] = attempt
            return attempt

    def last(self, run: str, key: str) -> Attempt | None:
        with self._lock:
            return self._seen.get((run, key))

    def finish(self, run: str) -> None:
        with self._lock:
            for entry in [entry for entry in self._seen if entry[0] == run]:
                del self._seen[entry]
