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

import threading
import weakref
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy.pool import PoolProxiedConnection
from starlette.concurrency import run_in_threadpool

from pressroom.service.db.prepared import Link

T = TypeVar("T")


def reads_on_loop(engine: Engine) -> bool:
    """Whether a short read may run on the event loop: SQLite's WAL readers never wait."""
    return engine.dialect.name == "sqlite"


def read_now(engine: Engine, fn: Callable[[Link], T]) -> T:
    """``fn``, which runs one ``Prepared`` statement, on a pooled connection.

    One statement reads one snapshot on every database, so on SQLite no transaction is
    opened around it (the driver runs it in autocommit mode, as every SQLite
    connection of ours is set up: ``db.session``); a server database gets its usual
    one, ended (rolled back) as the connection goes back to the pool."""
    connection = engine.raw_connection()
    try:
        return fn(Link(connection.driver_connection, engine.dialect))
    finally:
        connection.close()


class _Kept(threading.local):
    connection: PoolProxiedConnection | None = None


_kept: weakref.WeakKeyDictionary[Engine, _Kept] = weakref.WeakKeyDictionary()
_kept_lock = threading.Lock()
_opened: weakref.WeakKeyDictionary[Engine, list[PoolProxiedConnection]] = (
    weakref.WeakKeyDictionary()
)
"""Every connection the loops keep, per engine, so the app's end can close them: a
checked-out connection outlives ``engine.dispose()``, and each held its file handles
(the database, its log and its shared memory) until a garbage collection reached it."""


def read_on_loop(engine: Engine, fn: Callable[[Link], T]) -> T:
    """``fn`` on the SQLite connection the calling event loop keeps for its reads.

    A loop runs one read at a time and each ends before the loop moves on, so one
    connection per loop thread serves them all without a pool checkout each. It holds
    nothing between reads (no transaction: see ``read_now``), and a connection that
    failed is given back, to be replaced on the next read."""
    kept = _kept.get(engine)
    if kept is None:
        with _kept_lock:
            kept = _kept.setdefault(engine, _Kept())
    connection = kept.connection
    if connection is None:
        connection = kept.connection = engine.raw_connection()
        with _kept_lock:
            _opened.setdefault(engine, []).append(connection)
    try:
        return fn(Link(connection.driver_connection, engine.dialect))
    except engine.dialect.loaded_dbapi.Error:
        kept.connection = None
        with _kept_lock:
            _opened.get(engine, []).remove(connection)
        connection.close()
        raise


def release_kept(engine: Engine) -> None:
    """Close the connections the loops keep for ``engine``'s reads, as the app stops
    (no read runs any more); a loop that reads again opens another."""
    with _kept_lock:
        connections = _opened.pop(engine, [])
        _kept.pop(engine, None)
    for connection in connections:
        connection.close()


async def read(engine: Engine, fn: Callable[[Link], T]) -> T:
    """``fn``'s answer from a short read, on the loop or a worker thread (see above)."""
    if reads_on_loop(engine):
        return read_on_loop(engine, fn)
    return await run_in_threadpool(read_now, engine, fn)
