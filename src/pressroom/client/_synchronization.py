"""Where the async and the blocking client differ in more than names: locks, page fetches.

``_sync.py`` is generated from ``_async.py`` by ``python scripts/unasync.py``, which renames
``AsyncLock`` to ``Lock`` and ``AsyncPageFetch`` to ``PageFetch``: the code that uses them
is written once, and what they are for each kind of client is written here, by hand (as
httpcore's ``_synchronization.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import TypeAlias, TypeVar

import anyio

P = TypeVar("P")

AsyncPageFetch: TypeAlias = Callable[[str | None], Awaitable[P]]
"""Fetches the page after a cursor (``None``: the first), as ``AsyncClient`` does."""

PageFetch: TypeAlias = Callable[[str | None], P]
"""Fetches the page after a cursor (``None``: the first), as ``Client`` does."""


class AsyncLock:
    """An anyio lock (asyncio or trio), made on first use inside the event loop that uses it."""

    def __init__(self) -> None:
        self._lock: anyio.Lock | None = None

    async def __aenter__(self) -> None:
        if self._lock is None:
            self._lock = anyio.Lock()
        await self._lock.acquire()

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._lock is not None
        self._lock.release()


class Lock:
    """A thread lock: one blocking client may be shared between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self._lock.release()
