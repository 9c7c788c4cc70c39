"""Reading a network's answer: its JSON body, whatever came, and its timestamps.

Every network answers JSON objects, except when a proxy or an outage answers for it;
``json_of`` gives ``{}`` then, so a driver reads the fields it expects and decides from
the status. Timestamps come as ISO 8601 (``…Z``, ``…+0000``, or without a zone, which
the networks mean as UTC); the database's come back aware: both compare as UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx


def json_of(response: httpx.Response) -> dict[str, Any]:
    """The answer's JSON object, or ``{}`` when it is not one."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def aware(moment: datetime) -> datetime:
    """``moment`` with its zone; one without is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def parse_time(value: object) -> datetime | None:
    """An ISO 8601 timestamp as an aware datetime, or None when it is not one."""
    if not isinstance(value, str):
        return None
    try:
        return aware(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        return None
