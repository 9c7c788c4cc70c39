"""Logging for ``pressroom api``: plain lines for a terminal, JSON lines for a collector.

Every record gets the request id of the request it was written in (``-`` outside one).
What may be written at all is ``pressroom.log_safety``'s rule.
A JSON line is one object: ``time``, ``level``, ``logger``, ``message``, ``requestId``,
and for access lines ``method``, ``path`` (the route template), ``status``,
``durationMs`` and ``accountId``.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal

from pressroom import log_safety
from pressroom.service.ops.context import current_request_id

LogFormat = Literal["plain", "json"]
ACCESS_FIELDS = ("method", "path", "status", "durationMs", "accountId")
_HANDLER_NAME = "pressroom"


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get() or "-"
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "requestId": getattr(record, "request_id", None),
        }
        for field in ACCESS_FIELDS:
            if field in record.__dict__:
                line[field] = record.__dict__[field]
        if record.exc_info:
            line["exception"] = record.exc_text or self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


PLAIN = "%(asctime)s %(levelname)-7s %(name)s [%(request_id)s] %(message)s"


def configure_logging(level: str = "info", log_format: LogFormat = "plain") -> None:
    """Send every logger's records (uvicorn's included) to stderr in one format, under
    ``pressroom.log_safety``'s rule: below WARNING our own lines only, and every line
    scrubbed of URLs' paths and queries, keys and tokens.

    Safe to call again (a worker process calls it as it imports the app): the handler
    it added before is replaced, not doubled.
    """
    log_safety.install()
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.addFilter(RequestIdFilter())
    log_safety.guard(handler)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(PLAIN))
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers = []
        logging.getLogger(name).propagate = True
    # ours replaces uvicorn's access line (which shows raw paths, query strings included)
    uvicorn_access = logging.getLogger("uvicorn.access")
    uvicorn_access.handlers = []
    uvicorn_access.propagate = False
