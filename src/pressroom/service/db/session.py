"""Engines and sessions. The request owns the transaction: see ``service.deps``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker


def normalise_url(url: str) -> str:
    """Use psycopg 3 for plain ``postgresql://`` URLs (SQLAlchemy would pick psycopg2)."""
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.removeprefix("postgres://")
    return url


def make_engine(url: str) -> Engine:
    url = normalise_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, pool_pre_ping=True
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        # pysqlite defers BEGIN on its own terms; SQLAlchemy's documented recipe hands
        # transaction control back to SQLAlchemy so isolation behaves as on PostgreSQL.
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" hook issues BEGIN
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


WRITE_OPTIONS = {"pressroom_write": True}
"""Execution options for a unit of work that will write. On SQLite it starts with
BEGIN IMMEDIATE: a WAL reader that later writes after another writer committed fails
at once with SQLITE_BUSY_SNAPSHOT, while an immediate writer simply waits its turn."""


def _sqlite_begin(conn: Any) -> None:
    write = conn.get_execution_options().get("pressroom_write", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def begin_write(session: Session) -> None:
    """Mark the session's transaction as a writer before its first statement."""
    session.connection(execution_options=WRITE_OPTIONS)


@contextmanager
def transaction(factory: sessionmaker[Session], *, write: bool = True) -> Iterator[Session]:
    """A unit of work: commit on success, else roll back (requests use it through
    ``service.deps.get_db``; the CLI and the workers directly)."""
    session = factory()
    if write:
        begin_write(session)
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
