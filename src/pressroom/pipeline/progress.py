"""Progress of a run in this process, for ``pressroom campaign run``'s progress bars.

The flow says how much there is to do, the tasks say when they finish a piece. Only a
run in this process (Prefect's thread pool) reaches the listener; a run on a worker has
no listener, and these calls cost nothing there.
"""

from __future__ import annotations

import threading
from enum import StrEnum
from typing import Protocol


class Stage(StrEnum):
    UPLOAD = "uploads"
    READY = "ready"
    POST = "posts"


class Listener(Protocol):
    def planned(self, stage: Stage, total: int) -> None: ...

    def advanced(self, stage: Stage) -> None: ...

    def notice(self, text: str) -> None:
        """A line for the person watching (a long wait), above the bars."""


_lock = threading.Lock()
_listener: Listener | None = None


def listen(listener: Listener | None) -> None:
    global _listener
    with _lock:
        _listener = listener


def planned(stage: Stage, total: int) -> None:
    with _lock:
        if _listener is not None:
            _listener.planned(stage, total)


def advanced(stage: Stage) -> None:
    with _lock:
        if _listener is not None:
            _listener.advanced(stage)


def notice(text: str) -> bool:
    """Show ``text`` to the person watching this run; False when nobody listens here."""
    with _lock:
        if _listener is None:
            return False
        _listener.notice(text)
        return True
