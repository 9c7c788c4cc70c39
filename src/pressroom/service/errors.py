"""Domain errors and the one handler that renders every error body.

Every non-2xx answer is ``{"success": false, "error": {"code", "message", "field",
"requestId"}}``, FastAPI's own validation errors and unknown routes included; a refusal
by a network's rule adds ``rule`` and ``docUrl`` (absent otherwise, as ``recordStatus``
is outside publish 5xx answers). The codes
and statuses live in ``pressroom.error_codes``; ``requestId`` is the request's
``X-Request-ID`` (``pressroom.service.ops.requests``), so a client's report of an error
leads to its log lines.

The dashboard's paths are people's, not programs': it sets ``app.state.error_page``
(``web.error_pages``), which answers those errors as a page in its layout instead.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pressroom import error_codes
from pressroom.error_codes import ErrorCode
from pressroom.service.db.session import is_busy
from pressroom.service.ops import metrics
from pressroom.service.ops.context import current_request_id

BUSY_RETRY_AFTER_SECONDS = 1

log = logging.getLogger(__name__)


class ServiceError(Exception):
    """An error a client caused or must know about, carrying its status and code."""

    def __init__(
        self,
        error: ErrorCode,
        message: str | None = None,
        *,
        field: str | None = None,
        headers: Mapping[str, str] | None = None,
        record_status: str | None = None,
        rule: str | None = None,
        doc_url: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        self.error = error
        self.message = message or error.summary
        self.field = field
        self.headers = dict(headers or {})
        self.record_status = record_status
        """Publish 5xx answers only: ``not_sent``, ``unknown`` or ``published``."""
        self.rule = rule
        """A network's rule the request breaks (``pressroom.rules``): its id."""
        self.doc_url = doc_url
        """The network's page that rule comes from."""
        self.extra = dict(extra or {})
        """Fields of the answer beside ``error`` (a thread's ``parts``)."""
        super().__init__(self.message)

    @property
    def status(self) -> int:
        return self.error.status

    def body(self) -> dict[str, Any]:
        body = error_body(self.error.code, self.message, self.field)
        if self.record_status is not None:
            body["error"]["recordStatus"] = self.record_status
        if self.rule is not None:
            body["error"]["rule"] = self.rule
            body["error"]["docUrl"] = self.doc_url
        return body | self.extra


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    error = {"code": code, "message": message, "field": field}
    error["requestId"] = current_request_id.get()
    return {"success": False, "error": error}


def error_response(exc: ServiceError) -> JSONResponse:
    if exc.error is error_codes.DATABASE_BUSY:
        metrics.DATABASE_BUSY.inc()
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


def field_path(loc: Sequence[str | int]) -> str | None:
    """``("body", "posts", 0, "text")`` -> ``posts.0.text``; the ``body.`` prefix is dropped."""
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    return ".".join(str(p) for p in parts) or None


def _describe(err: Mapping[str, Any]) -> str:
    field = field_path(err.get("loc", ())) or "body"
    kind = err.get("type", "")
    if kind == "missing":
        return f"{field} is required."
    if kind == "json_invalid":
        return "The body is not valid JSON."
    if kind == "extra_forbidden":
        return f"{field} is not a known field."
    msg = str(err.get("msg", "is invalid")).rstrip(".")
    return f"{field}: {msg[0].lower() + msg[1:] if msg else msg}."


def validation_error(exc: RequestValidationError) -> ServiceError:
    errors = list(exc.errors())
    first = errors[0] if errors else {}
    field = field_path(first.get("loc", ())) if first else None
    if first.get("type") == "json_invalid":
        field = None
    message = " ".join(_describe(err) for err in errors[:5]) or "The request is invalid."
    return ServiceError(error_codes.VALIDATION_ERROR, message, field=field)


def unexpected_error(exc: BaseException) -> ServiceError:
    """What a client is told of an error no code below the routes turned into one."""
    if is_busy(exc):
        log.warning("database busy past its bound: %s", exc)
        return ServiceError(
            error_codes.DATABASE_BUSY,
            "The database is busy; nothing was changed. Retry after Retry-After seconds.",
            headers={"Retry-After": str(BUSY_RETRY_AFTER_SECONDS)},
        )
    log.error("unhandled error", exc_info=exc)
    return ServiceError(error_codes.INTERNAL_ERROR)


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def allowed_methods(request: Request) -> list[str]:
    """Every method some route takes at this path (Starlette names only the first route's),
    found by asking the router, method by method, as it would route the request."""
    allowed = []
    for method in _METHODS:
        probe: Scope = {
            "type": "http",
            "method": method,
            "path": request.scope["path"],
            "root_path": request.scope.get("root_path", ""),
            "query_string": b"",
            "headers": [],
        }
        if any(route.matches(probe)[0] == Match.FULL for route in request.app.router.routes):
            allowed.append(method)
    return allowed


ErrorPage = Callable[[Request, ServiceError], Awaitable[Response | None]]
"""A page for an error on a path that is not the API's, or None to answer JSON."""


async def _answer(request: Request, err: ServiceError) -> Response:
    page: ErrorPage | None = getattr(request.app.state, "error_page", None)
    answer = await page(request, err) if page is not None else None
    return answer if answer is not None else error_response(err)


def http_error(request: Request, exc: StarletteHTTPException) -> ServiceError:
    """The router's 404 and 405, and any other HTTPException, as an error of ours."""
    if exc.status_code == 404:
        err = ServiceError(error_codes.NOT_FOUND, "No route matches this path.")
    elif exc.status_code == 405:
        allowed = allowed_methods(request)
        return ServiceError(
            error_codes.METHOD_NOT_ALLOWED,
            f"This route does not take {request.method}; it takes {', '.join(allowed)}.",
            headers={"Allow": ", ".join(allowed)},
        )
    else:
        code = ErrorCode("http_error", exc.status_code, str(exc.detail))
        err = ServiceError(code, str(exc.detail))
    err.headers.update(exc.headers or {})
    return err


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def _service_error(_: Request, exc: ServiceError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        return await _answer(request, validation_error(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        return await _answer(request, http_error(request, exc))

    app.add_middleware(UnexpectedErrors)


class UnexpectedErrors:
    """Turns any exception that escaped the routes into the JSON error body.

    Starlette's own last-resort handler answers too, but then re-raises, and the server
    drops the keep-alive connection, so a client's next request on it fails. Here the
    answer is sent and the connection stays usable. An error after the response began
    (a broken download stream) can only end the connection, and does.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception as exc:
            if started:
                raise
            await error_response(unexpected_error(exc))(scope, receive, send)


def responses(*errors: ErrorCode, authenticated: bool = True) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` for a route: each status with the codes it can carry
    (those of the API key too, unless the route takes none)."""
    by_status: dict[int, list[str]] = {}
    key_errors = (
        (error_codes.MISSING_API_KEY, error_codes.INVALID_API_KEY, error_codes.PLAN_WITHOUT_API)
        if authenticated
        else ()
    )
    for err in (*key_errors, *errors):
        by_status.setdefault(err.status, []).append(err.code)
    return {
        status: {"model": ErrorResponse, "description": "Error codes: " + ", ".join(codes)}
        for status, codes in sorted(by_status.items())
    }


from pressroom.service.schemas import ErrorResponse  # noqa: E402  (avoids a cycle)
