"""The id of the request being served, for log lines and error bodies."""

from __future__ import annotations

from contextvars import ContextVar

current_request_id: ContextVar[str | None] = ContextVar("pressroom_request_id", default=None)
