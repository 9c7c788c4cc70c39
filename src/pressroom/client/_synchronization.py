"""Locks for the clients: where the async and the blocking client differ in more than names.

``_sync.py`` is generated from ``_async.py`` by ``python scripts/unasync.py``, which renames
``AsyncLock`` to ``Lock``: the code that uses a lock is written once, and what a lock is
for each kind of client is written here, by hand (as httpcore's ``_synchronization.py``).
"""

from __future__ import annotations

import threading

import anyio


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
