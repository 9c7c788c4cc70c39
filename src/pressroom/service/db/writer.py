"""Short units of work on the request path, and on SQLite one writer that commits the
waiting ones together (group commit).

SQLite takes one writer at a time. When every request opened its own write
transaction, 32 concurrent publishes queued for the write lock three times each, and
a writer that found it taken slept in SQLite's busy handler (1 to 100 ms a try): the
p99 of a publish was 2.5 s. Here a unit of work is a function of a ``Tx`` (its
statements, ``db.prepared``, and a session if it needs the ORM), handed to the
engine's ``Writes``:

- on a SQLite file, to ``GroupWriter``, which runs the units waiting for it in one
  transaction, each inside a savepoint of its own, and commits them at once. A unit
  that raises is rolled back to its savepoint and fails alone; a commit that fails
  fails the whole batch, none of which was durable. A caller hears its unit's answer
  only once the batch's commit returned, so "committed before the platform call"
  holds as it did with a transaction per unit. Units awaited on an event loop (the
  request path) are committed on the loop itself, at the end of the loop's turn, all
  those its requests handed in meanwhile together: no thread to wake and no future
  to cross threads, which cost more than the statements. That connection never waits
  for the write lock (its busy timeout is zero): when another connection holds it
  (another process, a background task of this one), the batch goes to the writer
  thread, which waits as long as the busy timeout allows while the loop goes on.
  Units run from other threads (``run``) go to that thread too. The loop's
  connection does not checkpoint the write-ahead log as it commits, which would
  write and flush the database file on the loop; every ``CHECKPOINT_EVERY`` commits a
  worker thread does it. That checkpoint holds the write lock, so the units the
  loop's requests hand in meanwhile wait on the loop and are committed together as
  it ends: handed to the writer thread, they would only wait there for the same
  lock, at the cost of a thread's wake-up and a future crossing threads each. Under
  32 concurrent publishes a quarter of the units went that way, and a publish cost
  about a tenth more CPU for it.
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
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from pressroom.service.db.prepared import Link
from pressroom.service.db.session import BEGINS_ITSELF, WRITE_OPTIONS, is_busy

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_BATCH = 64
"""Units one commit takes at most; the rest wait for the next."""

IDLE_SECONDS = 30.0
"""How long the writer thread waits for work before it ends (a new unit starts it)."""

CHECKPOINT_EVERY = 32
"""Commits on an event loop between two checkpoints of the write-ahead log."""

CHECKPOINT_WAIT_MS = 200
"""How long a checkpoint waits for the write lock and for readers of the log."""


class Tx:
    """What a unit of work runs on: the transaction's DBAPI connection for ``Prepared``
    statements, and an ORM session on the same transaction for code that needs one."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.link = Link(connection.connection.dbapi_connection, connection.dialect)
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


Waiting = tuple[Unit[Any], Any]
"""A unit and what its caller waits on: a ``concurrent.futures.Future`` (the writer
thread's callers) or an ``asyncio.Future`` (an event loop's)."""


@dataclass
class _HandedOver:
    """A loop's unit the writer thread runs, the write lock being taken."""

    future: Future[Any]


@dataclass
class _LoopWrites:
    """The units an event loop's requests have waiting, and the connection it commits
    them on."""

    waiting: list[Waiting] = field(default_factory=list)
    connection: Connection | None = None
    commits: int = 0
    checkpointing: bool = False


class GroupWriter(Writes):
    """Units committed together: on the event loop they come from, or on one thread
    (SQLite)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        self._waiting = threading.Condition(self._lock)
        self._queue: deque[Waiting] = deque()
        """Each unit bound to its caller's context (its request id, for its logs and
        error bodies), as a worker thread would run it."""
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopWrites] = (
            weakref.WeakKeyDictionary()
        )

    # The writer thread: units run from other threads, and the loops' batches that
    # found the write lock taken.

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

    def stop(self) -> None:
        with self._lock:
            thread = self._thread
            self._stopping = True
            self._waiting.notify()
        if thread is not None:
            thread.join(timeout=30)
        for here in list(self._loops.values()):
            _let_go(here)

    def _next_batch(self) -> list[Waiting] | None:
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
                        connection = self.engine.connect().execution_options(
                            **WRITE_OPTIONS, **BEGINS_ITSELF
                        )
                    healthy = _commit(connection, batch, self._put_back)
                except BaseException as exc:  # the writer itself failed: answer everyone
                    log.exception("the group writer failed a batch")
                    healthy = False
                    _fail(batch, exc)
                if not healthy and connection is not None:
                    connection.invalidate()
                    connection.close()
                    connection = None
        finally:
            if connection is not None:
                connection.close()

    def _put_back(self, units: Sequence[Waiting]) -> None:
        with self._lock:
            self._queue.extendleft(reversed(units))

    # An event loop's units, committed on the loop.

    async def run_async(self, unit: Unit[T]) -> T:
        loop = asyncio.get_running_loop()
        here = self._loops.get(loop)
        if here is None:
            with self._lock:
                here = self._loops.setdefault(loop, _LoopWrites())
        waiter: asyncio.Future[Any] = loop.create_future()
        here.waiting.append((_in_context(contextvars.copy_context(), unit), waiter))
        if len(here.waiting) == 1:
            loop.call_soon(self._flush, loop, here)
        answer = await waiter
        if isinstance(answer, _HandedOver):
            result: T = await asyncio.wrap_future(answer.future)
            return result
        return answer  # type: ignore[no-any-return]

    def _flush(self, loop: asyncio.AbstractEventLoop, here: _LoopWrites) -> None:
        """Commit what the loop's requests handed in since the last turn; while the
        loop's checkpoint holds the write lock, leave it waiting (``_checkpointed``)."""
        if here.checkpointing:
            return
        batch = [(unit, waiter) for unit, waiter in here.waiting if not waiter.done()]
        here.waiting = []
        while batch:
            now, batch = batch[:MAX_BATCH], batch[MAX_BATCH:]
            try:
                if here.connection is None:
                    here.connection = self._loop_connection()
                healthy = _commit(
                    here.connection,
                    now,
                    lambda rest: self._again(loop, here, rest),
                    on_busy=self._hand_over,
                )
            except BaseException as exc:
                log.exception("the group writer failed a batch")
                healthy = False
                _fail(now, exc)
            if not healthy:
                _let_go(here)
                continue
            here.commits += 1
            if here.commits % CHECKPOINT_EVERY == 0 and self._start_checkpoint(loop, here):
                here.waiting[:0] = batch  # committed once the checkpoint ends
                return

    def _start_checkpoint(self, loop: asyncio.AbstractEventLoop, here: _LoopWrites) -> bool:
        """Whether a checkpoint started (none once the loop's executor has shut down)."""
        try:
            done = loop.run_in_executor(None, self._checkpoint)
        except RuntimeError:  # the app is stopping
            return False
        here.checkpointing = True
        done.add_done_callback(lambda _: self._checkpointed(loop, here))
        return True

    def _checkpointed(self, loop: asyncio.AbstractEventLoop, here: _LoopWrites) -> None:
        """The checkpoint ended: commit what waited for it."""
        here.checkpointing = False
        if here.waiting:
            self._flush(loop, here)

    def _loop_connection(self) -> Connection:
        connection = self.engine.connect().execution_options(**WRITE_OPTIONS, **BEGINS_ITSELF)
        connection.detach()  # its pragmas are its own: closed, it never goes back to the pool
        dbapi: Any = connection.connection.dbapi_connection
        dbapi.execute("PRAGMA busy_timeout=0")  # never wait on the loop: hand over instead
        dbapi.execute("PRAGMA wal_autocheckpoint=0")  # done off the loop (_checkpoint)
        return connection

    def _again(
        self, loop: asyncio.AbstractEventLoop, here: _LoopWrites, units: Sequence[Waiting]
    ) -> None:
        """Units not run in a transaction SQLite gave up: the loop's next turn runs them."""
        if not here.waiting:
            loop.call_soon(self._flush, loop, here)
        here.waiting[:0] = units

    def _hand_over(self, batch: Sequence[Waiting]) -> None:
        """The write lock is taken: the writer thread waits for it, not the loop."""
        for unit, waiter in batch:
            if not waiter.done():
                waiter.set_result(_HandedOver(self.submit(unit)))

    def _checkpoint(self) -> None:
        """Copy the write-ahead log into the database file and start it over, on a
        worker thread. RESTART, since the loop keeps writing: a checkpoint that only
        copies what it finds leaves the log growing, as the next write finds it not
        wholly copied and appends. It holds the write lock meanwhile (the loop's
        units wait for it to end, see the module's docstring) and waits at most
        ``CHECKPOINT_WAIT_MS`` for readers; one that cannot finish is done next time."""
        try:
            connection = self.engine.raw_connection()
            try:
                dbapi: Any = connection.driver_connection
                (kept,) = dbapi.execute("PRAGMA busy_timeout").fetchone()
                dbapi.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
                try:
                    dbapi.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
                finally:
                    dbapi.execute(f"PRAGMA busy_timeout={int(kept)}")
            finally:
                connection.close()
        except Exception:
            log.warning("a checkpoint of the write-ahead log failed", exc_info=True)


def _commit(
    connection: Connection,
    batch: list[Waiting],
    put_back: Callable[[Sequence[Waiting]], None],
    *,
    on_busy: Callable[[Sequence[Waiting]], None] | None = None,
) -> bool:
    """Run ``batch`` in one transaction, each unit in a savepoint, and answer each unit
    once the commit returned. False when the connection is in doubt. When the write
    lock cannot be had at once and ``on_busy`` is given, the batch goes to it."""
    dbapi: Any = connection.connection.dbapi_connection
    transaction = connection.begin()  # its BEGIN is ours (BEGINS_ITSELF)
    try:
        dbapi.execute("BEGIN IMMEDIATE")
    except Exception as exc:  # the write lock not had within the busy timeout
        transaction.rollback()
        if on_busy is not None and is_busy(exc):
            on_busy(batch)
            return True
        _fail(batch, exc)
        return False
    answers: list[tuple[Any, Any, BaseException | None]] = []
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
                put_back(batch[index + 1 :])
                _settle(future, None, exc)
                for earlier, _, error in answers:
                    _settle(earlier, None, error or exc)
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
            _settle(future, None, error or exc)
        return False
    for future, result, error in answers:
        _settle(future, result, error)
    return True


def _settle(future: Any, result: Any, error: BaseException | None) -> None:
    """Answer a unit's caller, unless it gave up waiting (a cancelled request)."""
    if future.done():
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


def _fail(batch: Sequence[Waiting], exc: BaseException) -> None:
    for _, future in batch:
        _settle(future, None, exc)


def _let_go(here: _LoopWrites) -> None:
    """Close a loop's connection; the next batch opens another."""
    connection, here.connection = here.connection, None
    if connection is not None:
        connection.close()


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
