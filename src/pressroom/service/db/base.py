"""Declarative base with stable constraint names and UTC-aware timestamps."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, MetaData
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.sql.type_api import _BindProcessorType, _ResultProcessorType
from sqlalchemy.types import TypeDecorator

from pressroom.service import randomness

# Alembic and both databases see the same constraint names this way.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """Stores UTC and always hands back aware datetimes (SQLite keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    # On SQLite the two steps (``process_*`` above, then the dialect's text format)
    # are one function each: a publish binds and reads a dozen timestamps, and the
    # steps through SQLAlchemy's chain cost 3.5 us a bind and 1.7 us a read, against
    # under 1 us for the same text and the same datetime done at once. Anything but
    # a ``datetime`` (or text, read back) takes the chain, which answers it as ever.

    def bind_processor(self, dialect: Dialect) -> _BindProcessorType[datetime] | None:
        chain = super().bind_processor(dialect)
        if dialect.name != "sqlite" or chain is None:
            return chain

        def process(value: Any) -> Any:
            if type(value) is datetime and (zone := value.tzinfo) is not None:
                utc = value if zone is UTC else value.astimezone(UTC)
                # the dialect's storage format: microseconds always, a space between
                return utc.replace(tzinfo=None).isoformat(" ", "microseconds")
            return chain(value)

        return process

    def result_processor(
        self, dialect: Dialect, coltype: Any
    ) -> _ResultProcessorType[datetime] | None:
        chain = super().result_processor(dialect, coltype)
        if dialect.name != "sqlite" or chain is None:
            return chain
        parse = datetime.fromisoformat

        def process(value: Any) -> Any:
            if type(value) is str and len(value) == 26 and value[19] == ".":
                # the storage format, no offset: read as UTC, as the chain reads it
                return parse(value + "+00:00")
            return chain(value)

        return process


def utcnow() -> datetime:
    return datetime.now(UTC)


ID_TICK_SHIFT = 22
"""A record id's clock ticks every 2**22 ns (4.2 ms): ``time_ns() >> 22`` in 10 hex
digits lasts until the year 2116."""


def new_id(prefix: str) -> str:
    """Opaque ids with a readable prefix (``file_...``), unguessable across accounts, in
    the order they were made: 24 hex digits, the 4.2 ms tick first (10), then 56 random
    bits (14).

    Why in order: a new row's primary key then lands at the end of its table's index,
    on the pages the last rows already touched, instead of on a random page of an index
    that outgrows the page cache as an account's history grows. Measured on SQLite
    (``benchmarks/id_order.py``), a post's row and its event's cost 37-39 us with random
    ids while the tables were small, 63-83 us once they held 55,000 rows, and 22-37 us
    throughout with ordered ids (``benchmarks/README.md``, "sixteenth round"). 56 random
    bits per tick stay unguessable; the time an id tells, its record's ``createdAt`` says
    already.
    """
    return f"{prefix}_{time.time_ns() >> ID_TICK_SHIFT:010x}{randomness.token_hex(7)}"
