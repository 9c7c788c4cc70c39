"""Core statements built once and compiled once per dialect, run on the driver's cursor.

The request path's hottest statements (the API key's account, the connection list, a
publish's claim, post record, outbox rows and settlement) cost far more in SQLAlchemy's
per-call machinery than in the database: building the statement (``coercions``), its
cache key, the execution context and its events, result objects. Measured on SQLite, an
indexed read by key took 36 µs through ``Connection.execute`` and 8 µs on the cursor.

A ``Prepared`` is such a statement, built at import with named ``bindparam``\\ s. It is
compiled by SQLAlchemy once per dialect; what the compilation says is kept: the SQL,
the order of the parameters (SQLite's ``?``) or their names (psycopg's ``%(name)s``),
each parameter's bind processor (a ``UTCDateTime`` made naive UTC on SQLite, a JSON
document serialised) and each result column's processor (SQLite's timestamps parsed,
JSON decoded). Running it is then the driver's ``execute`` with those conversions and
nothing else, on a ``Link``: the DBAPI connection of a unit of work or a read, which
owns its transaction (``db.writer``, ``db.reads``).

What a ``Prepared`` cannot be: a statement with an expanding ``IN`` list or a literal
rendered at execution, since both change the SQL per call (``__init__`` refuses them).
"""

from __future__ import annotations

import weakref
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

Processor = Callable[[Any], Any]
Row = Any
"""A named tuple of the statement's result columns (``row.platform``)."""


@dataclass(frozen=True)
class _Compiled:
    sql: str
    positional: bool
    names: tuple[str, ...]
    """Every parameter, in the order the SQL takes them (positional styles)."""
    fixed: Mapping[str, Any]
    """Parameters whose value the statement holds (literals in a ``where``)."""
    binds: Mapping[str, Processor]
    results: tuple[tuple[int, Processor], ...]
    """The result columns that need converting, by position."""
    row: Callable[..., Row] | None
    order: tuple[tuple[str, Processor | None], ...]
    """``names`` with each one's bind processor (positional styles)."""


class Prepared:
    """A Core statement compiled once per dialect (see the module's docstring)."""

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._compiled: weakref.WeakKeyDictionary[Dialect, _Compiled] = weakref.WeakKeyDictionary()
        self._last: tuple[Dialect, _Compiled] | None = None
        # Compile once for a default dialect now, so a statement that cannot be
        # prepared fails at import, not on its first request.
        from sqlalchemy.dialects import sqlite

        self._compile(sqlite.dialect())

    def compiled(self, dialect: Dialect) -> _Compiled:
        last = self._last
        if last is not None and last[0] is dialect:  # a weak lookup costs as much again
            return last[1]
        found = self._compiled.get(dialect)
        if found is None:
            found = self._compiled[dialect] = self._compile(dialect)
        self._last = (dialect, found)
        return found

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled = self.statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        fixed: dict[str, Any] = {}
        binds: dict[str, Processor] = {}
        for name, bind in compiled.binds.items():
            if bind.expanding or bind.literal_execute:
                raise ValueError(f"{name}: a prepared statement cannot expand a parameter")
            if name.startswith("%("):
                continue  # SQLAlchemy's alias of an anonymous bind, also listed by name
            if not bind.required and bind.callable is None:
                fixed[name] = bind.value
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                binds[name] = processor
        positional = bool(dialect.positional)
        names = tuple(compiled.positiontup or ()) if positional else tuple(binds)
        columns = compiled._result_columns
        results = tuple(
            (index, processor)
            for index, column in enumerate(columns)
            if (processor := column.type.dialect_impl(dialect).result_processor(dialect, None))
            is not None
        )
        row: Callable[..., Row] | None = None
        if columns:
            fields = [column.keyname for column in columns]
            row = namedtuple("Row", fields, rename=True)._make  # type: ignore[attr-defined]
        order = tuple((name, binds.get(name)) for name in names) if positional else ()
        return _Compiled(compiled.string, positional, names, fixed, binds, results, row, order)


class Link:
    """A DBAPI connection and its dialect: where ``Prepared`` statements run. Whoever
    made it owns its transaction."""

    def __init__(self, dbapi_connection: Any, dialect: Dialect) -> None:
        self.dbapi_connection = dbapi_connection
        self.dialect = dialect

    def _cursor(self, prepared: Prepared, params: Mapping[str, Any]) -> tuple[Any, _Compiled]:
        compiled = prepared.compiled(self.dialect)
        cursor = self.dbapi_connection.cursor()
        if compiled.positional:  # the values in order, each converted: no dict between
            fixed = compiled.fixed
            args = []
            for name, processor in compiled.order:
                value = params[name] if name in params else fixed[name]
                args.append(value if processor is None else processor(value))
            cursor.execute(compiled.sql, args)
            return cursor, compiled
        values = {**compiled.fixed, **params} if compiled.fixed else dict(params)
        for name, processor in compiled.binds.items():
            if name in values:
                values[name] = processor(values[name])
        cursor.execute(compiled.sql, values)
        return cursor, compiled

    def execute(self, prepared: Prepared, **params: Any) -> int:
        """Run a statement without rows; the count of rows it changed."""
        cursor, _ = self._cursor(prepared, params)
        try:
            return int(cursor.rowcount)
        finally:
            cursor.close()

    def rows(self, prepared: Prepared, **params: Any) -> list[Row]:
        cursor, compiled = self._cursor(prepared, params)
        try:
            fetched = cursor.fetchall()
        finally:
            cursor.close()
        return [_converted(compiled, raw) for raw in fetched]

    def first(self, prepared: Prepared, **params: Any) -> Row | None:
        cursor, compiled = self._cursor(prepared, params)
        try:
            raw = cursor.fetchone()
        finally:
            cursor.close()
        return None if raw is None else _converted(compiled, raw)

    def scalar(self, prepared: Prepared, **params: Any) -> Any:
        row = self.first(prepared, **params)
        return None if row is None else row[0]


def _converted(compiled: _Compiled, raw: Sequence[Any]) -> Row:
    assert compiled.row is not None
    if not compiled.results:
        return compiled.row(raw)
    values = list(raw)
    for index, processor in compiled.results:
        if values[index] is not None:
            values[index] = processor(values[index])
    return compiled.row(values)
