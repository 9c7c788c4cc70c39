"""Jinja2 templates with autoescaping, and the page-rendering helper every route uses."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from fastapi import Request, Response
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from pressroom.service.web.prefect_ui import flow_run_url

HERE = Path(__file__).parent
FLASH_COOKIE = "pressroom_flash"


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else "—"


def _size(value: int | None) -> str:
    if value is None:
        return "—"
    size = float(value)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return str(value)


def _run_url(request: Request, flow_run_id: str | None) -> str | None:
    """A campaign run's page in the Prefect UI, where ``PRESSROOM_PREFECT_UI_URL`` is set."""
    return flow_run_url(request.app.state.settings.prefect_ui_url, flow_run_id)


@lru_cache
def templates() -> Jinja2Templates:
    t = Jinja2Templates(directory=str(HERE / "templates"))
    t.env.filters["when"] = _when
    t.env.filters["size"] = _size
    t.env.globals["run_url"] = _run_url
    return t


def render_page(
    request: Request, name: str, context: dict[str, Any], *, status: int = 200
) -> HTMLResponse:
    raw = request.cookies.get(FLASH_COOKIE)
    flash = unquote(raw) if raw else None
    context = {"flash": flash, **context}
    response = templates().TemplateResponse(request, name, context, status_code=status)
    if flash:
        response.delete_cookie(FLASH_COOKIE, path="/")
    return response


def flash(response: Response, message: str) -> Response:
    """A one-line notice shown on the next page (plain text, escaped when shown)."""
    response.set_cookie(FLASH_COOKIE, quote(message[:300]), httponly=True, samesite="lax", path="/")
    return response
