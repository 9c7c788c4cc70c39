"""``RequestContext``: request id, access line and request metrics, as pure ASGI.

A proxy's ``X-Request-ID`` is kept when it is printable ASCII of at most 128
characters; anything else (missing, too long, control characters that could forge a
log line) is replaced by a fresh id. The id is set in a contextvar before the app runs,
so every log line and error body of the request carries it (worker threads get a copy
of the context), and it is sent back on the response.

The access line and the metrics name the route's path template
(``/api/upload/status/{file_id}``), never the raw path: ids, query strings and
signatures stay out of logs, and the metrics' labels stay bounded.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pressroom.service import randomness
from pressroom.service.ops import metrics
from pressroom.service.ops.context import current_request_id

HEADER = b"x-request-id"
_SANE_ID = re.compile(rb"[\x20-\x7e]{1,128}")
UNMATCHED = "unmatched"
"""The route label of a request no route matched (a 404 of the router)."""

QUIET_ROUTES = frozenset({"/healthz", "/readyz", "/metrics"})
"""Probes and scrapes come every few seconds: their access lines are debug lines."""

access_log = logging.getLogger("pressroom.access")


def request_id_of(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == HEADER:
            if _SANE_ID.fullmatch(value) and value.strip():
                return str(value.decode("ascii"))
            break
    return randomness.token_hex(16)


def route_template(scope: Scope) -> str:
    route = scope.get("route")
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    return template if isinstance(template, str) else UNMATCHED


def account_id_of(scope: Scope) -> str | None:
    account: Any = (scope.get("state") or {}).get("account")
    account_id = getattr(account, "id", None)
    return account_id if isinstance(account_id, str) else None


class RequestContext:
    def __init__(self, app: ASGIApp, *, record_metrics: bool = True) -> None:
        self.app = app
        self.record_metrics = record_metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        token = current_request_id.set(request_id)
        header = (HEADER, request_id.encode("ascii"))
        status = 500  # what the client sees if the app ends before it answers
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = route_template(scope)
            method = scope["method"]
            if self.record_metrics:
                metrics.observe_request(method, route, status, seconds)
            level = logging.DEBUG if route in QUIET_ROUTES else logging.INFO
            if access_log.isEnabledFor(level):
                account = account_id_of(scope)
                access_log.log(
                    level,
                    "%s %s %d %.1fms%s",
                    method,
                    route,
                    status,
                    seconds * 1000,
                    f" account={account}" if account else "",
                    extra={
                        "method": method,
                        "path": route,
                        "status": status,
                        "durationMs": round(seconds * 1000, 2),
                        "accountId": account,
                    },
                )
            current_request_id.reset(token)
