"""Short units of work on the request path, and on SQLite one writer that commits the
waiting ones together (group commit).

SQLite takes one writer at a time. When every request opened its own write
transaction, 32 concurrent publishes queued for the write lock three times each, and
a writer that found it taken slept in SQLite's busy handler (1 to 100 ms a try): the
p99 of a publish was 2.5 s. Here a unit of work is a function of a ``Tx`` (its
statements, ``db.prepared``, and a session if it needs the ORM), handed to the
engine's ``Writes``:

- on a SQLite file, to ``GroupWriter``: one thread takes every unit waiting, runs them
  in one transaction, each inside a savepoint of its own, and commits them at once.
  A unit that raises is rolled back to its savepoint and fails alone; a commit that
  fails fails the whole batch, none of which was durable. A caller hears its unit's
  answer only once the batch's commit returned, so "committed before the platform
  call" holds as it did with a transaction per unit.
- on PostgreSQL (several processes and real concurrency), to ``DirectWrites``: each
  unit is its own transaction on the caller's thread, as before.

Writers outside the request path (the reconciler, the dashboard, the CLI) keep their
own transactions (``db.session.transaction``); on SQLite they take the write lock in
turn with the group writer.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from pressroom.service.db.prepared import Link
from pressroom.service.db.session import WRITE_OPTIONS

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_BATCH = 64
"""Units one commit takes at most; the rest wait for the next."""

IDLE_SECONDS = 30.0
"""How long the writer thread waits for work before it ends (a new unit starts it)."""


class Tx:
    """What a unit of work runs on: the transaction's DBAPI connection for ``Prepared``
    statements, and an ORM session on the same transaction for code that needs one."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.link = Link(connection.connection.driver_connection, connection.dialect)
        self._session: Session | None = None

    def session(self) -> Session:
        """A session inside this unit's transaction, in a savepoint of its own (so an
        error it rolls back never takes the rest of the transaction with it); its
        changes are kept as the unit ends. For the cold paths: the ORM's flush and
        its savepoint cost several times a unit's prepared statements."""
        if self._session is None:
            self._session = Session(bind=self.connection, join_transaction_mode="create_savepoint")
        return self._session

    def finish(self) -> None:
        if self._session is not None:
            self._session.commit()  # releases its savepoint; the transaction goes on
            self._session.close()
            self._session = None

    def discard(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None


Unit = Callable[[Tx], T]


class Writes:
    """Where the request path's units of work run (see the module's docstring)."""

    def run(self, unit: Unit[T]) -> T:  # pragma: no cover - abstract
        """``unit``'s answer once it is committed; its exception if it failed."""
        raise NotImplementedError

    async def run_async(self, unit: Unit[T]) -> T:
        """The same from the event loop, which it never blocks."""
        return await run_in_threadpool(self.run, unit)

    def stop(self) -> None:
        """Finish what is queued and let go of the database."""


class DirectWrites(Writes):
    """Each unit its own transaction, on the caller's thread (PostgreSQL)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def run(self, unit: Unit[T]) -> T:
        with self.engine.connect() as connection, connection.begin():
            tx = Tx(connection)
            try:
                result = unit(tx)
                tx.finish()
            except BaseException:
                tx.discard()
                raise
            return result


class GroupWriter(Writes):
    """One thread commits the waiting units together (SQLite)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        self._waiting = threading.Condition(self._lock)
        self._queue: deque[tuple[Unit[Any], Future[Any]]] = deque()
        """Each unit bound to its caller's context (its request id, for its logs and
        error bodies), as a worker thread would run it."""
        self._thread: threading.Thread | None = None
        self._stopping = False

    def submit(self, unit: Unit[T]) -> Future[T]:
        if self._thread is not None and threading.current_thread() is self._thread:
            raise RuntimeError("a unit of work may not wait for another: it would wait forever")
        future: Future[T] = Future()
        context = contextvars.copy_context()
        with self._lock:
            self._queue.append((_in_context(context, unit), future))
            if self._thread is None:
                self._stopping = False
                self._thread = threading.Thread(
                    target=self._serve, name="pressroom-writer", daemon=True
                )
                self._thread.start()
            else:
                self._waiting.notify()
        return future

    def run(self, unit: Unit[T]) -> T:
        return self.submit(unit).result()

    async def run_async(self, unit: Unit[T]) -> T:
        return await asyncio.wrap_future(self.submit(unit))

    def stop(self) -> None:
        with self._lock:
            thread = self._thread
            self._stopping = True
            self._waiting.notify()
        if thread is not None:
            thread.join(timeout=30)

    def _next_batch(self) -> list[tuple[Unit[Any], Future[Any]]] | None:
        with self._lock:
            while not self._queue:
                if (self._stopping or not self._waiting.wait(IDLE_SECONDS)) and not self._queue:
                    self._thread = None
                    return None
            count = min(len(self._queue), MAX_BATCH)
            return [self._queue.popleft() for _ in range(count)]

    def _serve(self) -> None:
        connection: Connection | None = None
        try:
            while (batch := self._next_batch()) is not None:
                # A unit whose caller gave up before it started is not run; one put back
                # after a failed batch is already running.
                batch = [
                    (unit, future)
                    for unit, future in batch
                    if future.running() or future.set_running_or_notify_cancel()
                ]
                if not batch:
                    continue
                try:
                    if connection is None:
                        connection = self.engine.connect().execution_options(**WRITE_OPTIONS)
                    healthy = self._commit(connection, batch)
                except BaseException as exc:  # the writer itself failed: answer everyone
                    log.exception("the group writer failed a batch")
                    healthy = False
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                if not healthy and connection is not None:
                    connection.invalidate()
                    connection.close()
                    connection = None
        finally:
            if connection is not None:
                connection.close()

    def _commit(self, connection: Connection, batch: list[tuple[Unit[Any], Future[Any]]]) -> bool:
        """Run ``batch`` in one transaction, each unit in a savepoint, and answer each
        unit once the commit returned. False when the connection is in doubt."""
        try:
            transaction = connection.begin()
        except Exception as exc:  # the write lock not had within the busy timeout
            for _, future in batch:
                future.set_exception(exc)
            return False
        dbapi: Any = connection.connection.driver_connection
        answers: list[tuple[Future[Any], Any, BaseException | None]] = []
        for index, (unit, future) in enumerate(batch):
            dbapi.execute("SAVEPOINT unit")
            tx = Tx(connection)
            try:
                result = unit(tx)
                tx.finish()
            except BaseException as exc:
                tx.discard()
                if not dbapi.in_transaction:
                    # SQLite gave the whole transaction up (a full disk, an I/O error):
                    # nothing of this batch so far is durable, so none of it succeeded.
                    # The units not run yet wait for the next batch.
                    self._put_back(batch[index + 1 :])
                    future.set_exception(exc)
                    for earlier, _, error in answers:
                        earlier.set_exception(error or exc)
                    return False
                dbapi.execute("ROLLBACK TO unit")
                dbapi.execute("RELEASE unit")
                answers.append((future, None, exc))
                continue
            dbapi.execute("RELEASE unit")
            answers.append((future, result, None))
        try:
            transaction.commit()
        except Exception as exc:
            log.warning("a group commit of %d units failed: %s", len(answers), exc)
            for future, _, error in answers:
                future.set_exception(error or exc)
            return False
        for future, result, error in answers:
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)
        return True

    def _put_back(self, units: list[tuple[Unit[Any], Future[Any]]]) -> None:
        with self._lock:
            self._queue.extendleft(reversed(units))


def _in_context(context: contextvars.Context, unit: Unit[T]) -> Unit[T]:
    def run(tx: Tx) -> T:
        return context.run(unit, tx)

    return run


_writes: weakref.WeakKeyDictionary[Engine, Writes] = weakref.WeakKeyDictionary()
_writes_lock = threading.Lock()


def writes_for(engine: Engine) -> Writes:
    """The engine's ``Writes``: a group writer for a SQLite file, direct otherwise."""
    found = _writes.get(engine)
    if found is None:
        with _writes_lock:
            found = _writes.get(engine)
            if found is None:
                database = engine.url.database
                grouped = engine.dialect.name == "sqlite" and database not in (None, "", ":memory:")
                found = _writes[engine] = GroupWriter(engine) if grouped else DirectWrites(engine)
    return found
