"""Reading a ``Retry-After`` header, the one way for every part of pressroom: the client,
the networks' drivers and the webhook sender all honour it."""

from __future__ import annotations

import email.utils
from datetime import UTC, datetime


def seconds(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from ``Retry-After``: delta seconds or an HTTP date; None when the
    header is missing or unreadable. Never negative."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)
