"""Engines and sessions. The request owns the transaction: see ``service.deps``.

Waiting on the database is bounded: a SQLite writer waits ``busy_timeout`` seconds for
the write lock and any caller waits as long for a pooled connection. Past that the
driver raises, and the service answers ``503 database_busy`` (``is_busy`` below says
which errors those are), never a 500 and never an unbounded queue.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.db.json_columns import json_text

SQLITE_POOL_SIZE = 40
"""anyio's default number of worker threads, which run the routes."""

DEFAULT_BUSY_TIMEOUT = 10.0
"""Seconds a unit of work waits for SQLite's write lock or a pooled connection."""


def normalise_url(url: str) -> str:
    """Use psycopg 3 for plain ``postgresql://`` URLs (SQLAlchemy would pick psycopg2)."""
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.removeprefix("postgres://")
    return url


def make_engine(url: str, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> Engine:
    url = normalise_url(url)
    if url.startswith("sqlite"):
        # No cap on SQLite connections (they are a file handle each): a capped pool
        # makes threads that hold the write lock queue behind threads that wait for it.
        in_memory = url in ("sqlite://", "sqlite:///:memory:")  # one shared connection
        # As many kept connections as worker threads: a connection beyond the pool is
        # closed on return, and opening one (file, WAL shared memory, pragmas) costs more
        # than most queries. A local file needs no liveness ping.
        pooling: dict[str, Any] = (
            {} if in_memory else {"pool_size": SQLITE_POOL_SIZE, "max_overflow": -1}
        )
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": busy_timeout},
            json_serializer=json_text,
            **pooling,
        )
        event.listen(engine, "connect", _sqlite_pragmas(busy_timeout))
        if not in_memory and engine.url.database:
            watch = SqliteFile(os.path.abspath(engine.url.database))
            _sqlite_files[engine] = watch
            event.listen(engine, "connect", watch.on_connect)
        # pysqlite defers BEGIN on its own terms; SQLAlchemy's documented recipe hands
        # transaction control back to SQLAlchemy so isolation behaves as on PostgreSQL.
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(
        url, pool_pre_ping=True, pool_size=10, max_overflow=30, pool_timeout=busy_timeout
    )


class SqliteFile:
    """Which file an engine's SQLite connections opened, to tell when the path no longer
    leads to it.

    A SQLite file deleted or replaced under a running process goes unnoticed by the
    process: its open connections go on reading and writing the unlinked file, which
    vanishes at exit with every write since, while a new connection opens an empty
    database at the path. Readiness compares the path's device and inode with the file
    the first connection opened.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.opened: tuple[int, int] | None = None

    def on_connect(self, _dbapi_connection: Any, _record: Any) -> None:
        if self.opened is None:
            try:
                found = os.stat(self.path)  # the connection just opened (or made) it
            except OSError:
                return  # nothing to compare with yet; the next connection records it
            self.opened = (found.st_dev, found.st_ino)

    def problem(self) -> str | None:
        """What is wrong with the path, or None while it still leads to the opened file."""
        if self.opened is None:
            return None  # nothing opened yet: the next connection opens what is there
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return "the database file was removed while the service had it open"
        if (found.st_dev, found.st_ino) != self.opened:
            return "the database file was replaced while the service had it open"
        return None


_sqlite_files: weakref.WeakKeyDictionary[Engine, SqliteFile] = weakref.WeakKeyDictionary()


def sqlite_file(engine: Engine) -> SqliteFile | None:
    """The watch on an engine's SQLite file; None on PostgreSQL and in-memory SQLite."""
    return _sqlite_files.get(engine)


def _sqlite_pragmas(busy_timeout: float) -> Any:
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" hook issues BEGIN
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return on_connect


_BUSY_SQLITE = ("database is locked", "database table is locked", "database is busy")
_BUSY_POSTGRES = frozenset({"55P03", "53300", "57014"})
"""lock_not_available, too_many_connections, query_canceled (statement/lock timeouts)."""


def is_busy(error: BaseException) -> bool:
    """Whether ``error`` means the database was busy past its bound, not broken: as
    SQLAlchemy raises it, or as the driver does under a prepared statement
    (``db.prepared``)."""
    if isinstance(error, exc.TimeoutError):
        return True  # no pooled connection within the bound
    if isinstance(error, exc.DBAPIError):
        original: object = error.orig
    elif type(error).__module__.partition(".")[0] in ("sqlite3", "psycopg"):
        original = error
    else:
        return False
    if any(text in str(original).lower() for text in _BUSY_SQLITE):
        return True
    return getattr(original, "sqlstate", None) in _BUSY_POSTGRES


WRITE_OPTIONS = {"pressroom_write": True}
"""Execution options for a unit of work that will write. On SQLite it starts with
BEGIN IMMEDIATE: a WAL reader that later writes after another writer committed fails
at once with SQLITE_BUSY_SNAPSHOT, while an immediate writer simply waits its turn."""


BEGINS_ITSELF = {"pressroom_begins_itself": True}
"""Execution options of a connection whose owner sends BEGIN on the driver's connection
itself (``db.writer``): SQLAlchemy's statement machinery costs three times the BEGIN."""


def _sqlite_begin(conn: Any) -> None:
    options = conn.get_execution_options()
    if options.get("pressroom_begins_itself", False):
        return
    conn.exec_driver_sql("BEGIN IMMEDIATE" if options.get("pressroom_write", False) else "BEGIN")


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def writing_session(factory: sessionmaker[Session]) -> Session:
    """A session whose transaction, once its first statement runs, is a writer's.

    Nothing is connected or locked until then, so the lock is taken by the code that
    writes, on its own thread, and not ahead of time by whoever made the session.
    """
    engine = factory.kw["bind"]
    return factory(bind=engine.execution_options(**WRITE_OPTIONS))


@contextmanager
def transaction(factory: sessionmaker[Session], *, write: bool = True) -> Iterator[Session]:
    """A unit of work: commit on success, else roll back (requests use it through
    ``service.deps.get_db``; the CLI and the workers directly)."""
    session = writing_session(factory) if write else factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
