"""What no log line of a pressroom process may carry: URLs' paths and queries, keys, tokens.

Libraries log what they send: httpx writes every request line at INFO (a webhook URL
whose path and query are its credentials, a presigned upload URL with its signature),
botocore and urllib3 write headers and bodies at DEBUG, SQLAlchemy the statements and
their parameters. The rule, for ``pressroom api``, ``pressroom worker`` and ``pressroom
demo`` alike (``install``):

- **Libraries speak from WARNING up.** The libraries known to log requests, headers,
  bodies or statements (``QUIETED``) are set to WARNING, whatever level was asked for,
  so those lines are not even made; and the handler of ``pressroom api`` and ``pressroom
  worker`` writes lines under WARNING only for the loggers in ``OURS`` (pressroom's,
  uvicorn's server lines, Alembic's migrations, Prefect's), so a library nobody listed
  is held to the same. (The demo and flow runs print through Prefect's handlers, which
  keep the first of the two.)
- **Every line, ours included, is scrubbed as it is made** (a log record factory, so it
  holds for every handler, Prefect's API handler too): a URL keeps its scheme and host
  and loses its user and password, path, query and fragment (``https://hooks.example.com/…``: a webhook's
  path may be its secret, a query its signature); a path's query string is dropped
  (``/storage/upload/file_…?…``); API keys (``prk_live_…``) and bearer tokens are
  masked. Tracebacks are scrubbed the same way.

A line that must name where something went says the route template (``pressroom.access``)
or the host and path without a scheme or query (the drivers' call lines).
"""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Callable
from typing import Any

OURS = ("pressroom", "uvicorn.error", "alembic", "prefect", "flows", "tasks", "__main__")
"""Loggers whose lines below WARNING are written."""

QUIETED = (
    "httpx",
    "httpcore",
    "h11",
    "h2",
    "hpack",
    "urllib3",
    "botocore",
    "boto3",
    "s3transfer",
    "authlib",
    "requests_oauthlib",
    "oauthlib",
    "sqlalchemy",
    "aiosqlite",
    "websockets",
    "multipart",
    "python_multipart",
    "PIL",
    "asyncio",
    "uvicorn.access",
)
"""Libraries known to log requests, headers, bodies or statements: set to WARNING."""

MASK = "…"

_URL = re.compile(
    r"(?i)\b([a-z][a-z0-9+.\-]*://)(?:[^/\s?#'\"<>@]*@)?([^/\s?#'\"<>@]+)([/?#][^\s'\"<>]*)?"
)
_QUERY = re.compile(r"(/[\w.\-~%/{}]*)\?[^\s'\"<>]+")
_API_KEY = re.compile(r"\bprk_(?:live|test)_[A-Za-z0-9_\-]+")
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=\-]{8,}")


def scrub(text: str) -> str:
    """``text`` with every URL cut to its origin, queries dropped and keys masked."""
    if "/" in text:
        text = _URL.sub(_origin, text)
        text = _QUERY.sub(lambda m: f"{m.group(1)}?{MASK}", text)
    if "prk_" in text:
        text = _API_KEY.sub(f"prk_{MASK}", text)
    return _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)


def _origin(url: re.Match[str]) -> str:
    """Scheme and host, without a user or password; ``/…`` for whatever followed."""
    rest = url.group(3) or ""
    return f"{url.group(1)}{url.group(2)}{rest if rest in ('', '/') else '/' + MASK}"


class OnlyOursBelowWarning(logging.Filter):
    """Drops lines under WARNING from loggers outside ``OURS``."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or _is_ours(record.name)


def _is_ours(name: str) -> bool:
    return any(name == ours or name.startswith(ours + ".") for ours in OURS)


_installed_factory: Callable[..., logging.LogRecord] | None = None


def install() -> None:
    """Apply the rule in this process: the libraries in ``QUIETED`` set to WARNING and
    every record scrubbed as it is made. Safe to call again. A process that makes its own
    handler adds ``OnlyOursBelowWarning`` to it (``guard``); one whose handlers are
    Prefect's (the demo, a flow run) relies on the first two."""
    global _installed_factory
    for name in QUIETED:
        logger = logging.getLogger(name)
        if logger.level < logging.WARNING:
            logger.setLevel(logging.WARNING)
    current = logging.getLogRecordFactory()
    if current is not _installed_factory:
        _installed_factory = _scrubbing(current)
        logging.setLogRecordFactory(_installed_factory)


def guard(handler: logging.Handler) -> None:
    """Let ``handler`` write lines below WARNING from ``OURS`` only."""
    if not any(isinstance(f, OnlyOursBelowWarning) for f in handler.filters):
        handler.addFilter(OnlyOursBelowWarning())


def _scrubbing(make: Callable[..., logging.LogRecord]) -> Callable[..., logging.LogRecord]:
    def record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        made = make(*args, **kwargs)
        try:
            message = made.getMessage()
        except Exception:  # a broken format string: logging reports it as it writes
            return made
        scrubbed = scrub(message)
        if scrubbed != message:
            made.msg, made.args = scrubbed, None
        if made.exc_info and made.exc_info[1] is not None:
            made.exc_text = scrub("".join(traceback.format_exception(*made.exc_info)).rstrip())
        if made.stack_info:
            made.stack_info = scrub(made.stack_info)
        return made

    return record
