"""Reading a ``Retry-After`` header, the one way for every part of pressroom: the client,
the networks' drivers and the webhook sender all honour it.

What comes back is always a finite number of seconds from 0 to ``MAX_SECONDS``: a wait
of ``1e15``, ``inf`` or a date in the year 9999 is read as the longest wait pressroom
honours, so no caller builds a ``timedelta``, a deadline or a ``sleep`` it cannot hold.
"""

from __future__ import annotations

import email.utils
import math
from datetime import UTC, datetime

MAX_SECONDS = 86400.0
"""The longest wait a ``Retry-After`` is taken to ask for (a day); longer ones are read as
this. A webhook delivery's retry period and the networks' daily quotas fit inside it."""


def seconds(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from ``Retry-After``: delta seconds or an HTTP date; None when the
    header is missing or unreadable (``nan`` included). Never negative, never more than
    ``MAX_SECONDS``."""
    if not value:
        return None
    value = value.strip()
    try:
        wait = float(value)
    except ValueError:
        found = _until(value, now)
        if found is None:
            return None
        wait = found
    if math.isnan(wait):
        return None
    return min(max(0.0, wait), MAX_SECONDS)


def _until(date: str, now: float | None) -> float | None:
    """Seconds from ``now`` until an HTTP date; None when it is not one."""
    try:
        when = email.utils.parsedate_to_datetime(date)
    except (TypeError, ValueError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return when.timestamp() - current
