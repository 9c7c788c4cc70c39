"""Errors on the dashboard's paths answer a page in its layout; the API's stay JSON.

A path no route matches, a method a path does not take, or a request refused before a
dashboard route ran (a form or query FastAPI could not read) is, within one of the
dashboard's sections (``/``, ``/media/…``, ``/settings/…``: the first path segments of
its routes), a page with the dashboard's headers, its menu when the visitor is signed
in, and the same status. Everything else, ``/api/…``, ``/storage/…``, the probes, and
any request that asks for JSON (the pages' own scripts do), keeps the error body of
``pressroom.service.errors``.
"""

from __future__ import annotations

from collections.abc import Iterable

from fastapi import FastAPI, Request, Response
from starlette.concurrency import run_in_threadpool

from pressroom import error_codes
from pressroom.service.errors import ServiceError
from pressroom.service.web.security import protect, visitor_if_signed_in
from pressroom.service.web.templating import render_page


def sections_of(paths: Iterable[str]) -> frozenset[str]:
    """``/media/files/{file_id}/delete`` -> ``media``; ``/`` -> the empty section."""
    return frozenset(path.split("/")[1] for path in paths)


def install_error_pages(app: FastAPI, sections: frozenset[str]) -> None:
    async def error_page(request: Request, err: ServiceError) -> Response | None:
        if not is_dashboard_request(request, sections):
            return None
        visitor = await run_in_threadpool(visitor_if_signed_in, request)
        response = render_page(
            request, "refused.html", _wording(request, err, visitor), status=err.status
        )
        response.headers.update(err.headers)
        return protect(request, response)

    app.state.error_page = error_page


def is_dashboard_request(request: Request, sections: frozenset[str]) -> bool:
    if "application/json" in request.headers.get("accept", ""):
        return False
    return request.url.path.split("/")[1] in sections


def _wording(request: Request, err: ServiceError, visitor: object) -> dict[str, object]:
    home = {"visitor": visitor, "back": "/", "back_label": "Go to the overview"}
    if err.error is error_codes.NOT_FOUND:
        return {
            **home,
            "title": "Page not found",
            "message": "There is no page at this address. If you typed it, check it; if "
            "you followed a link, the page may have moved.",
        }
    if err.error is error_codes.METHOD_NOT_ALLOWED:
        return {
            **home,
            "title": "This page cannot do that",
            "message": f"This address does not take a {request.method} request. Go back "
            "to the page you came from and use its buttons and forms.",
        }
    return {**home, "title": "There is a problem", "message": err.message}
