"""A per-key fixed-window rate limit for the routes that count against quota.

Where the count lives follows the database: SQLite is the embedded default, one process,
so the count is kept in that process's memory (exact, and no write per request).
PostgreSQL is how several processes and replicas share one service, so there the count
is a row per key in the database (``SharedLimiter``), one upsert per request, and every
process counts against the same window.
"""

from __future__ import annotations

import math
import threading
import time
from datetime import datetime, timedelta
from typing import Annotated

from fastapi import Depends, FastAPI, Request, Security
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import case
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session, sessionmaker

from pressroom import error_codes
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Account, RateLimitWindow
from pressroom.service.db.session import transaction
from pressroom.service.deps import API_KEY, authenticate_request
from pressroom.service.errors import ServiceError

WINDOW_SECONDS = 60.0


class FixedWindowLimiter:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[float, int]] = {}

    def hit(self, key: str, now: float | None = None) -> float | None:
        """Count a request; None when allowed, else the seconds until the window resets."""
        if self.per_minute <= 0:
            return None
        now = time.monotonic() if now is None else now
        with self._lock:
            start, count = self._windows.get(key, (now, 0))
            if now - start >= WINDOW_SECONDS:
                start, count = now, 0
            if count >= self.per_minute:
                return WINDOW_SECONDS - (now - start)
            self._windows[key] = (start, count + 1)
            return None


class SharedLimiter:
    """The same windows, counted in the database for every process that uses it."""

    def __init__(self, sessions: sessionmaker[Session], per_minute: int) -> None:
        self.sessions = sessions
        self.per_minute = per_minute

    def hit(self, key: str, now: datetime | None = None) -> float | None:
        if self.per_minute <= 0:
            return None
        now = now or utcnow()
        window = RateLimitWindow
        expired = window.window_start <= now - timedelta(seconds=WINDOW_SECONDS)
        counted = (
            insert(window)
            .values(key=key, window_start=now, count=1)
            .on_conflict_do_update(
                index_elements=[window.key],
                set_={
                    "window_start": case((expired, now), else_=window.window_start),
                    "count": case((expired, 1), else_=window.count + 1),
                },
            )
            .returning(window.window_start, window.count)
        )
        with transaction(self.sessions) as db:
            row = db.execute(counted).one()
        start: datetime = row[0]
        count: int = row[1]
        if count <= self.per_minute:
            return None
        return max(0.0, WINDOW_SECONDS - (now - start).total_seconds())


def install_rate_limiter(app: FastAPI, per_minute: int) -> None:
    sessions: sessionmaker[Session] = app.state.session_factory
    shared = app.state.engine.dialect.name == "postgresql"
    app.state.rate_limiter = (
        SharedLimiter(sessions, per_minute) if shared else FixedWindowLimiter(per_minute)
    )


async def counted_caller(request: Request) -> Account:
    """The caller, authenticated as ``CurrentAccount`` authenticates, with this request
    counted against its key's limit.

    For the busiest reads, which call it themselves (declaring ``KEY_REQUIRED`` for
    the docs) instead of taking ``CountedAccount``: FastAPI's solving of a dependency
    and its security scheme costs more than the key's read (benchmarks/README.md)."""
    account = await authenticate_request(request)
    await rate_limit(request, account)
    return account


async def counted_account(
    request: Request, x_api_key: Annotated[str | None, Security(API_KEY)] = None
) -> Account:
    del x_api_key  # declared for OpenAPI; authenticate_request reads the header
    return await counted_caller(request)


CountedAccount = Annotated[Account, Depends(counted_account)]
"""The caller of a route that counts against the per-key rate limit."""


async def rate_limit(request: Request, account: Account) -> None:
    """Counted after authentication, so a bad key is a 401, never a 429."""
    limiter: FixedWindowLimiter | SharedLimiter = request.app.state.rate_limiter
    if isinstance(limiter, SharedLimiter):
        wait = await run_in_threadpool(limiter.hit, account.id)
    else:
        wait = limiter.hit(account.id)
    if wait is not None:
        seconds = max(1, math.ceil(wait))
        raise ServiceError(
            error_codes.RATE_LIMITED,
            f"Too many requests for this key; retry in {seconds} s.",
            headers={"Retry-After": str(seconds)},
        )
