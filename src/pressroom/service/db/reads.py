"""Short reads on the request path, run where they cost least.

Every authenticated request reads its key's account, and the busiest routes read
little else. On SQLite (the embedded default, WAL mode) a read never waits for a
writer and takes a fraction of a millisecond, less than handing it to a worker
thread: under 32 concurrent requests each hand-off and the contention of forty
threads for the interpreter cost several times the query (benchmarks/README.md,
"Where a request's time goes"). So such a read runs on the event loop there, on a
plain connection (SQLAlchemy Core, no session, no unit of work). On a database
server a read waits on the network, and runs on a worker thread as routes do.

Only reads of one statement go through here. Writes keep their unit of work
(``service.deps``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Connection, Engine
from starlette.concurrency import run_in_threadpool

from pressroom.service.db.session import SINGLE_STATEMENT_OPTIONS

T = TypeVar("T")


def reads_on_loop(engine: Engine) -> bool:
    """Whether a short read may run on the event loop: SQLite's WAL readers never wait."""
    return engine.dialect.name == "sqlite"


def read_now(engine: Engine, fn: Callable[[Connection], T]) -> T:
    """``fn``, which runs one statement, on a pooled connection.

    One statement reads one snapshot on every database, so on SQLite no transaction is
    opened around it (``SINGLE_STATEMENT_OPTIONS``); a server database gets its usual
    one, ended before returning."""
    with engine.connect() as connection:
        return fn(connection.execution_options(**SINGLE_STATEMENT_OPTIONS))


async def read(engine: Engine, fn: Callable[[Connection], T]) -> T:
    """``fn``'s answer from a short read, on the loop or a worker thread (see above)."""
    if reads_on_loop(engine):
        return read_now(engine, fn)
    return await run_in_threadpool(read_now, engine, fn)
