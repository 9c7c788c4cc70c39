"""Newest-first keyset pagination: ``limit`` and an opaque ``cursor``, for files and folders.

A cursor is the (created_at, id) of the last entry returned, so pages stay stable while
new entries arrive at the top.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Generic, TypeVar

from fastapi import Query

from pressroom import error_codes
from pressroom.service.errors import ServiceError
from pressroom.service.text_rules import CURSOR

DEFAULT_LIMIT = 50
MAX_LIMIT = 200

T = TypeVar("T")

Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description=f"Page size, 1 to {MAX_LIMIT}.")]
Cursor = Annotated[
    str | None,
    Query(
        description="`nextCursor` of the previous page, unchanged; omit for the first.",
        json_schema_extra={"minLength": 1, "pattern": CURSOR},
    ),
]


@dataclass(frozen=True)
class Position:
    created_at: datetime
    id: str


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_cursor: str | None


def encode_cursor(position: Position) -> str:
    raw = f"{position.created_at.astimezone(UTC).isoformat()}|{position.id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> Position | None:
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, ident = raw.split("|", 1)
        created_at = datetime.fromisoformat(stamp)
        if created_at.tzinfo is None or not ident:
            raise ValueError("incomplete cursor")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "cursor is not a cursor this service issued; pass nextCursor unchanged.",
            field="cursor",
        ) from None
    return Position(created_at, ident)
