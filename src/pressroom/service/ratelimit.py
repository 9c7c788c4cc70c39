"""A per-key, per-process fixed-window rate limit for the routes that count against quota.

Kept in memory: with several worker processes each enforces its own window, which is
the usual trade-off of an embedded service; the limit is a courtesy brake, not billing.
"""

from __future__ import annotations

import math
import threading
import time

from fastapi import Request

from pressroom import error_codes
from pressroom.service.deps import CurrentAccount
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


async def rate_limit(request: Request, account: CurrentAccount) -> None:
    """Counted after authentication, so a bad key is a 401, never a 429."""
    limiter: FixedWindowLimiter = request.app.state.rate_limiter
    wait = limiter.hit(account.id)
    if wait is not None:
        seconds = max(1, math.ceil(wait))
        raise ServiceError(
            error_codes.RATE_LIMITED,
            f"Too many requests for this key; retry in {seconds} s.",
            headers={"Retry-After": str(seconds)},
        )
