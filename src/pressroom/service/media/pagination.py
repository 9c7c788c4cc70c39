"""Newest-first keyset pagination: ``limit`` and a ``cursor``, for files, folders and posts.

A cursor is the (created_at, id) of the last entry returned, so pages stay stable while
new entries arrive at the top. It is written as ``text_rules.CURSOR`` says and the
OpenAPI document shows, and every string of that shape is accepted: clients pass
``nextCursor`` unchanged, and a schema-valid cursor is never refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
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


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_CURSOR = re.compile(CURSOR)


def encode_cursor(position: Position) -> str:
    return f"{(position.created_at - _EPOCH) // _MICROSECOND}.{position.id}"


def decode_cursor(cursor: str | None, *, field: str = "cursor") -> Position | None:
    """The position a cursor stands for; a 400 naming ``field`` for any other string."""
    if cursor is None:
        return None
    if not _CURSOR.fullmatch(cursor):
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"{field} is not a cursor this service issued; pass nextCursor unchanged.",
            field=field,
        )
    micros, ident = cursor.split(".", 1)
    return Position(_EPOCH + int(micros) * _MICROSECOND, ident)
