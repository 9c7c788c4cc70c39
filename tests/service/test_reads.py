"""``db.reads``: the request path's one-statement reads, on the embedded SQLite."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, column, event, select, table, text

from pressroom.service.db.prepared import Link, Prepared
from pressroom.service.db.reads import read_now, read_on_loop
from pressroom.service.db.session import make_engine, make_session_factory, transaction

NOTES = table("notes", column("body"))
ALL_NOTES = Prepared(select(NOTES.c.body))
COUNT_NOTES = Prepared(select(NOTES.c.body).where(NOTES.c.body.is_not(None)))


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'reads.db'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE notes (body TEXT)")
        connection.exec_driver_sql("INSERT INTO notes VALUES ('spring')")
    yield engine
    engine.dispose()


def traced(link: Link, seen: list[str]) -> None:
    link.dbapi_connection.set_trace_callback(seen.append)


def test_a_one_statement_read_opens_no_transaction(engine: Engine) -> None:
    """The statement reads one snapshot alone; nothing stays open after it to hold
    back SQLite's checkpoints or a later writer on the same pooled connection."""
    seen: list[str] = []
    open_after: list[bool] = []

    def body(link: Link) -> str:
        traced(link, seen)
        found = str(link.scalar(ALL_NOTES))
        open_after.append(link.dbapi_connection.in_transaction)
        link.dbapi_connection.set_trace_callback(None)
        return found

    assert read_now(engine, body) == "spring"
    assert seen == ["SELECT notes.body \nFROM notes"]
    assert open_after == [False]
    assert read_on_loop(engine, body) == "spring"
    assert open_after == [False, False]


def test_writes_on_the_same_connections_still_take_the_write_lock_first(
    engine: Engine,
) -> None:
    read_now(engine, lambda link: link.scalar(ALL_NOTES))
    read_on_loop(engine, lambda link: link.scalar(ALL_NOTES))
    seen: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: seen.append(args[2]))
    with transaction(make_session_factory(engine)) as db:
        db.execute(text("INSERT INTO notes VALUES ('summer')"))
    assert seen[0] == "BEGIN IMMEDIATE"
    assert len(read_now(engine, lambda link: link.rows(COUNT_NOTES))) == 2
    assert len(read_on_loop(engine, lambda link: link.rows(COUNT_NOTES))) == 2


def test_a_loop_keeps_one_connection_and_each_thread_its_own(engine: Engine) -> None:
    """Reads on an event loop take no pool checkout each; a second loop, in another
    thread (the ops server, a test client), gets a connection of its own."""
    mine = {read_on_loop(engine, lambda link: id(link.dbapi_connection)) for _ in range(3)}
    theirs: list[int] = []
    other = threading.Thread(
        target=lambda: theirs.append(read_on_loop(engine, lambda link: id(link.dbapi_connection)))
    )
    other.start()
    other.join()
    assert len(mine) == 1 and theirs and theirs[0] not in mine


def test_a_failed_read_gives_its_connection_back(engine: Engine) -> None:
    broken = Prepared(select(column("nothing")).select_from(table("no_such_table")))
    read_on_loop(engine, lambda link: link.scalar(ALL_NOTES))
    checked_out = engine.pool.checkedout()  # type: ignore[attr-defined]
    with pytest.raises(engine.dialect.loaded_dbapi.OperationalError):
        read_on_loop(engine, lambda link: link.rows(broken))
    assert engine.pool.checkedout() == checked_out - 1  # type: ignore[attr-defined]
    assert read_on_loop(engine, lambda link: link.scalar(ALL_NOTES)) == "spring"
