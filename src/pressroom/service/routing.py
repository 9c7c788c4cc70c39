"""``UnitOfWorkRoute``: a route whose database work starts and ends on one thread.

FastAPI runs a sync route in a worker thread, and the exit of a ``yield`` dependency
in another, later. A transaction committed there would keep its locks (SQLite's write
lock above all) while the request waits for that second thread; under a burst every
worker thread can end up waiting for the lock such a request holds, and nobody moves
until the busy timeout. So the route's own thread commits the request's session as
the route returns, or rolls it back when it raises.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from fastapi.routing import APIRoute
from sqlalchemy.orm import Session


def finishing_unit_of_work(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a sync endpoint so the sessions it was given end with it, on its thread."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint  # async routes open their own short units of work

    @functools.wraps(endpoint)
    def run(*args: Any, **kwargs: Any) -> Any:
        sessions = [value for value in kwargs.values() if isinstance(value, Session)]
        try:
            result = endpoint(*args, **kwargs)
            for session in sessions:
                session.commit()
        except BaseException:
            for session in sessions:
                session.rollback()
            raise
        return result

    return run


class UnitOfWorkRoute(APIRoute):
    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, finishing_unit_of_work(endpoint), **kwargs)
