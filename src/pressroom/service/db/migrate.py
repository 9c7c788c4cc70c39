"""Apply the Alembic migrations programmatically (at start-up and from the admin CLI).

One process at a time: replicas that start together, or an operator's ``pressroom admin
migrate`` beside a starting ``pressroom api``, would otherwise both read "no schema"
and both create it (the second fails half way). On PostgreSQL a session advisory lock
is held around the upgrade; on a SQLite file, an exclusive ``flock`` on a file beside
it. The one that waited then finds the schema at head and has nothing to do.

A database already at this code's head is seen with one read of its version table,
before any lock: every app start (and each test's) would otherwise load Alembic's
environment and every migration script to learn that nothing is to be done.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, make_url, pool, text
from sqlalchemy.exc import DBAPIError

from pressroom.service.db.session import normalise_url

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
ADVISORY_LOCK_ID = 0x7072_6573_6D69_6772
"""``pg_advisory_lock`` key of the migration ("presmigr"); any other use picks another."""


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser treats % as interpolation; URLs may hold escaped passwords.
    config.set_main_option("sqlalchemy.url", normalise_url(database_url).replace("%", "%%"))
    return config


@cache
def script_head() -> str | None:
    """The newest migration this code ships (read once: the scripts do not change)."""
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def revision(conn: Connection) -> str | None:
    """The database's Alembic revision, read as Alembic stores it (quietly: Alembic's
    own reader logs a line at each call, and probes call often)."""
    try:
        revisions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    except DBAPIError:
        return None  # no version table: never migrated
    return ", ".join(revisions) or None


def upgrade(database_url: str) -> None:
    if _at_head(database_url):
        return
    with _one_migrator(database_url):
        command.upgrade(alembic_config(database_url), "head")


def _at_head(database_url: str) -> bool:
    """Whether the database is at this code's head already. Read without the lock: a
    schema at head stays there, and any other answer goes on to the locked upgrade."""
    head = script_head()
    engine = create_engine(normalise_url(database_url), poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            return head is not None and revision(conn) == head
    except DBAPIError:  # no database file or server yet: the upgrade makes or reports it
        return False
    finally:
        engine.dispose()


@contextmanager
def _one_migrator(database_url: str) -> Iterator[None]:
    url = make_url(normalise_url(database_url))
    if url.get_backend_name() == "postgresql":
        engine = create_engine(url, poolclass=pool.NullPool)
        try:
            with engine.connect() as lock:
                lock.execute(text("SELECT pg_advisory_lock(:id)"), {"id": ADVISORY_LOCK_ID})
                lock.commit()  # a session lock: no transaction left open while we wait
                try:
                    yield
                finally:
                    lock.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": ADVISORY_LOCK_ID})
                    lock.commit()
        finally:
            engine.dispose()
    elif url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        beside = Path(url.database).with_name(Path(url.database).name + ".migrate-lock")
        beside.parent.mkdir(parents=True, exist_ok=True)
        with beside.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    else:
        yield
