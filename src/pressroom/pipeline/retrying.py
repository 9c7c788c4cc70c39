"""Which failures to retry and how long to wait.

Transience comes from the client's errors, which take it from ``pressroom.error_codes``
(by code first: a 429 for an exhausted monthly quota is final, a per-key rate limit is
not). Prefect's own retry delays ignore ``Retry-After`` and its jitter can shorten a
delay, so a step waits out ``Retry-After`` itself before it fails the attempt, and the
jitter here only ever lengthens a delay.
"""

from __future__ import annotations

import random

from pressroom.client import APIError, PressroomError, TransportError
from pressroom.portable import PortableError

MAX_RETRY_AFTER_SECONDS = 300.0
"""A service asking for a longer pause is treated as down for this attempt."""


class TransientFailure(PortableError):
    """An attempt failed in a way that the same request may succeed later: retry it."""

    def __init__(self, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause


def is_transient(error: BaseException) -> bool:
    """Transient and safe to send again as it is. A request that may have gone out
    (``request_sent``) is not: the publish step resolves those before retrying."""
    if isinstance(error, TransportError):
        return not error.request_sent
    return isinstance(error, PressroomError) and bool(getattr(error, "transient", False))


def retry_after(error: BaseException) -> float | None:
    if isinstance(error, APIError) and error.retry_after is not None:
        return min(float(error.retry_after), MAX_RETRY_AFTER_SECONDS)
    return None


def backoff_delays(attempts: int, base: float, cap: float) -> list[float]:
    """Waits before each retry: base, 2·base, 4·base … capped (``attempts`` counts the first)."""
    return [min(base * 2**i, cap) for i in range(max(0, attempts - 1))]


def jittered(
    delays: list[float], factor: float = 0.2, rng: random.Random | None = None
) -> list[float]:
    """Jitter that only lengthens each delay, so a backoff is never shorter than its base."""
    draw = rng or random.Random()
    return [delay * (1 + factor * draw.random()) for delay in delays]
