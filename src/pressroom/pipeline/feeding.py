"""Which posts a run hands to its task runner next, so that none holds a thread while its
platform is full.

A publish task holds a worker thread from the moment the runner starts it, also while it
waits for its platform's place (``tasks.common.held``). Handed to the runner all at once,
the posts that are ready first took every thread: in a fan-out of three text platforms
and five media ones (``benchmarks/``), the text posts were ready before any medium, and
for the run's first second 12 requests were in flight instead of 16, the media posts
queued behind text posts waiting for their own platforms.

A ``Feed`` hands out at most ``per_platform`` unfinished posts of one platform and
``total`` in all (the runner's threads), taking platforms in turn; each post that ends
makes room for the next. ``None`` lifts a bound: on a Dask cluster each worker keeps its
own places, and the cluster takes everything at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Feed(Generic[T]):
    """Items waiting per platform, and how many of each are out and unfinished."""

    def __init__(
        self,
        platform_of: Callable[[T], str],
        *,
        per_platform: int | None,
        total: int | None,
    ) -> None:
        if (per_platform is not None and per_platform < 1) or (total is not None and total < 1):
            raise ValueError("a feed hands out at least one item at a time")
        self._platform_of = platform_of
        self._per_platform = per_platform
        self._total = total
        self._waiting: dict[str, deque[T]] = {}
        self._out: dict[str, int] = {}
        self._turn = 0

    def add(self, item: T) -> None:
        """``item`` may go out once its platform has room (in the order added)."""
        platform = self._platform_of(item)
        self._waiting.setdefault(platform, deque()).append(item)
        self._out.setdefault(platform, 0)

    def take(self) -> list[T]:
        """What may go out now, one platform after the other; each is counted as out."""
        taken: list[T] = []
        platforms = list(self._waiting)
        while platforms and self._room_in_all():
            fed = False
            for offset in range(len(platforms)):
                platform = platforms[(self._turn + offset) % len(platforms)]
                if self._waiting[platform] and self._room_in(platform):
                    taken.append(self._waiting[platform].popleft())
                    self._out[platform] += 1
                    self._turn = (self._turn + offset + 1) % len(platforms)
                    fed = True
                    break
            if not fed:
                break
        return taken

    def finished(self, platform: str) -> None:
        """One item of ``platform`` that went out has ended."""
        if not self._out.get(platform):
            raise ValueError(f"nothing of {platform!r} is out")
        self._out[platform] -= 1

    @property
    def out(self) -> int:
        """Items out and unfinished."""
        return sum(self._out.values())

    @property
    def waiting(self) -> int:
        """Items not handed out yet."""
        return sum(len(queue) for queue in self._waiting.values())

    def _room_in(self, platform: str) -> bool:
        return self._per_platform is None or self._out[platform] < self._per_platform

    def _room_in_all(self) -> bool:
        return self._total is None or self.out < self._total
