"""``db.reads``: the request path's one-statement reads, on the embedded SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, text

from pressroom.service.db.reads import read_now
from pressroom.service.db.session import make_engine, make_session_factory, transaction


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'reads.db'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE notes (body TEXT)")
        connection.exec_driver_sql("INSERT INTO notes VALUES ('spring')")
    yield engine
    engine.dispose()


def statements_of(engine: Engine) -> list[str]:
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    return seen


def test_a_one_statement_read_opens_no_transaction(engine: Engine) -> None:
    """The statement reads one snapshot alone; nothing stays open after it to hold
    back SQLite's checkpoints or a later writer on the same pooled connection."""
    seen = statements_of(engine)
    open_after: list[bool] = []

    def body(connection: Any) -> str:
        found = str(connection.execute(text("SELECT body FROM notes")).scalar_one())
        open_after.append(connection.connection.dbapi_connection.in_transaction)
        return found

    assert read_now(engine, body) == "spring"
    assert seen == ["SELECT body FROM notes"]
    assert open_after == [False]


def test_writes_on_the_same_connections_still_take_the_write_lock_first(
    engine: Engine,
) -> None:
    read_now(engine, lambda connection: connection.execute(text("SELECT 1")).scalar_one())
    seen = statements_of(engine)
    with transaction(make_session_factory(engine)) as db:
        db.execute(text("INSERT INTO notes VALUES ('summer')"))
    assert seen[0] == "BEGIN IMMEDIATE"
    assert (
        read_now(
            engine,
            lambda connection: connection.execute(text("SELECT count(*) FROM notes")).scalar(),
        )
        == 2
    )
