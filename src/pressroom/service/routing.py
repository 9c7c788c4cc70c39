"""Route classes: ``UnitOfWorkRoute``, a route whose database work starts and ends on
one thread; ``RequestRoute``, a route that takes the request alone.

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
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
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


class RequestRoute(APIRoute):
    """A route whose endpoint is an ``async def`` of the request alone that returns a
    ``Response`` (the connection lists): it is called with the request, and nothing
    else of FastAPI's handling runs around it (its dependency solver, the body and
    response bookkeeping), which cost a third of such a route. The OpenAPI document
    is FastAPI's, as for any route."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        parameters = list(inspect.signature(endpoint, eval_str=True).parameters.values())
        if (
            not inspect.iscoroutinefunction(endpoint)
            or len(parameters) != 1
            or parameters[0].annotation is not Request
        ):
            raise TypeError(f"{endpoint.__name__}: a RequestRoute takes (request: Request)")
        super().__init__(path, endpoint, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        endpoint: Callable[[Request], Coroutine[Any, Any, Response]] = self.endpoint
        return endpoint
