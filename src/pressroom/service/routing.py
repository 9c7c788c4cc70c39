"""Route classes: ``UnitOfWorkRoute``, a route whose database work starts and ends on
one thread; ``RequestRoute``, a route that takes the request alone; and
``json_body_handler``, FastAPI's handling of a route of a JSON body and the request
skipped when the body is valid.

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
from fastapi.params import Body, Form
from fastapi.routing import APIRoute
from pydantic import BaseModel
from sqlalchemy.orm import Session

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


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


def json_body_handler(route: APIRoute, handler: Handler) -> Handler:
    """``handler`` (FastAPI's, for ``route``) with a shorter way for a valid JSON body.

    For an ``async def`` endpoint of a model body and the request alone, that returns a
    ``Response`` (the publish routes): a body sent as ``application/json`` that parses
    and validates is handed to the endpoint at once. It is parsed by ``Request.json``
    and validated by the model in Python mode, as FastAPI does; what FastAPI's
    dependency solver, its second parse of the content type and its bookkeeping add
    around it cost as much as the checks of a publish. Anything else (another content
    type, no body, invalid JSON, a body the model refuses) goes to FastAPI's handler,
    which answers it as it always has. Any other route gets ``handler`` unchanged."""
    dependant = route.dependant
    endpoint = route.endpoint
    body = route.body_field
    if (
        body is None
        or not inspect.iscoroutinefunction(endpoint)
        or dependant.dependencies
        or dependant.path_params
        or dependant.query_params
        or dependant.header_params
        or dependant.cookie_params
        or len(dependant.body_params) != 1
        or route._embed_body_fields
        or dependant.request_param_name is None
        or dependant.response_param_name is not None
        or dependant.background_tasks_param_name is not None
        or not isinstance(body.field_info, Body)
        or isinstance(body.field_info, Form)
        or not (isinstance(body.field_info.annotation, type))
        or not issubclass(body.field_info.annotation, BaseModel)
    ):
        return handler
    model: type[BaseModel] = body.field_info.annotation
    body_name = body.name
    request_name = dependant.request_param_name

    async def direct(request: Request) -> Response:
        if request.headers.get("content-type") != "application/json":
            return await handler(request)
        try:
            value = model.model_validate(await request.json())
        except ValueError:  # invalid JSON or an invalid body: FastAPI's own answer
            return await handler(request)
        response: Response = await endpoint(**{body_name: value, request_name: request})
        return response

    return direct
