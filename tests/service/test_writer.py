"""``db.writer``: units of work, committed together on SQLite, each failing alone."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, exc

from pressroom.service.db.session import make_engine
from pressroom.service.db.writer import DirectWrites, GroupWriter, Tx, writes_for


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'writer.db'}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE notes (body TEXT UNIQUE)")
        connection.exec_driver_sql("CREATE TABLE owners (id INTEGER PRIMARY KEY)")
        connection.exec_driver_sql(
            "CREATE TABLE owned (owner INTEGER REFERENCES owners (id) DEFERRABLE "
            "INITIALLY DEFERRED)"
        )
    yield engine
    writes_for(engine).stop()
    engine.dispose()


def add(body: str) -> Any:
    def unit(tx: Tx) -> str:
        tx.link.dbapi_connection.execute("INSERT INTO notes VALUES (?)", (body,))
        return body

    return unit


def noting_thread(threads: set[str], unit: Any) -> Any:
    """``unit``, adding the name of the thread it runs on to ``threads``."""

    def noted(tx: Tx) -> Any:
        threads.add(threading.current_thread().name)
        return unit(tx)

    return noted


def stored(engine: Engine) -> list[str]:
    with engine.connect() as connection:
        return sorted(r[0] for r in connection.exec_driver_sql("SELECT body FROM notes"))


def commits_of(engine: Engine) -> list[int]:
    seen: list[int] = []
    event.listen(engine, "commit", lambda _conn: seen.append(1))
    return seen


def held_writer(engine: Engine) -> tuple[GroupWriter, threading.Event]:
    """The writer, busy with a unit that waits for ``release``: what callers submit
    meanwhile queues up for the next commit."""
    writer = writes_for(engine)
    assert isinstance(writer, GroupWriter)
    release = threading.Event()
    started = threading.Event()

    def waits(tx: Tx) -> None:
        started.set()
        release.wait(10)

    writer.submit(waits)
    assert started.wait(10)
    return writer, release


def test_waiting_units_are_committed_together(engine: Engine) -> None:
    writer, release = held_writer(engine)
    commits = commits_of(engine)
    futures = [writer.submit(add(f"note {i}")) for i in range(20)]
    release.set()
    assert [f.result(10) for f in futures] == [f"note {i}" for i in range(20)]
    assert len(commits) <= 2  # the waiting unit's batch, then the twenty together
    assert stored(engine) == sorted(f"note {i}" for i in range(20))


def test_a_failing_unit_fails_alone(engine: Engine) -> None:
    writer, release = held_writer(engine)

    def half_then_fails(tx: Tx) -> None:
        tx.link.dbapi_connection.execute("INSERT INTO notes VALUES ('half')")
        tx.link.dbapi_connection.execute("INSERT INTO notes VALUES ('twice')")
        tx.link.dbapi_connection.execute("INSERT INTO notes VALUES ('twice')")

    before = writer.submit(add("before"))
    failing = writer.submit(half_then_fails)
    after = writer.submit(add("after"))
    release.set()
    assert before.result(10) == "before" and after.result(10) == "after"
    with pytest.raises(engine.dialect.loaded_dbapi.IntegrityError):
        failing.result(10)
    assert stored(engine) == ["after", "before"]  # nothing of the failed unit


def test_an_answer_comes_only_after_the_commit(engine: Engine) -> None:
    """A caller told its unit succeeded finds it durable: another connection reads it."""
    writer = writes_for(engine)
    for i in range(5):
        writer.run(add(f"n{i}"))
        assert f"n{i}" in stored(engine)


def test_a_failed_commit_fails_every_unit_of_its_batch(engine: Engine) -> None:
    """A deferred foreign key breaks only at COMMIT: nothing of the batch is durable, so
    no unit of it may be answered as done."""
    writer, release = held_writer(engine)

    def breaks_at_commit(tx: Tx) -> None:
        tx.link.dbapi_connection.execute("INSERT INTO owned VALUES (42)")

    fine = writer.submit(add("fine"))
    broken = writer.submit(breaks_at_commit)
    release.set()
    for future in (fine, broken):
        with pytest.raises(exc.IntegrityError, match="FOREIGN KEY"):
            future.result(10)
    assert stored(engine) == []
    assert writer.run(add("next batch")) == "next batch"  # the writer goes on
    assert stored(engine) == ["next batch"]


def test_a_transaction_given_up_fails_what_ran_and_retries_the_rest(engine: Engine) -> None:
    """When SQLite abandons the whole transaction (a full disk does), the units that ran
    in it are not durable and fail; those not run yet go to the next batch."""
    writer, release = held_writer(engine)

    def loses_the_transaction(tx: Tx) -> None:
        tx.link.dbapi_connection.execute("ROLLBACK")
        raise OSError("disk full")

    ran = writer.submit(add("ran"))
    lost = writer.submit(loses_the_transaction)
    later = writer.submit(add("later"))
    release.set()
    with pytest.raises(OSError, match="disk full"):
        ran.result(10)
    with pytest.raises(OSError, match="disk full"):
        lost.result(10)
    assert later.result(10) == "later"
    assert stored(engine) == ["later"]


def test_units_from_the_event_loop_do_not_block_it(engine: Engine) -> None:
    writer = writes_for(engine)

    async def main() -> list[str]:
        ticks: list[int] = []

        async def tick() -> None:
            for i in range(5):
                ticks.append(i)
                await asyncio.sleep(0)

        found = await asyncio.gather(*(writer.run_async(add(f"a{i}")) for i in range(10)), tick())
        assert ticks == [0, 1, 2, 3, 4]
        return [x for x in found if x is not None]

    assert asyncio.run(main()) == [f"a{i}" for i in range(10)]


def test_a_unit_may_not_wait_for_another(engine: Engine) -> None:
    writer = writes_for(engine)
    with pytest.raises(RuntimeError, match="wait forever"):
        writer.run(lambda tx: writer.run(add("inner")))


def test_a_database_server_gets_a_transaction_per_unit(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        writes = writes_for(engine)
        if engine.dialect.name == "sqlite":
            assert isinstance(writes, GroupWriter)
            return
        assert isinstance(writes, DirectWrites)

        def status(tx: Tx) -> int:
            tx.link.dbapi_connection.execute("SELECT 1")
            return int(tx.link.dbapi_connection.info.transaction_status)

        assert writes.run(status) == 2  # psycopg's INTRANS: the unit is in a transaction
    finally:
        writes_for(engine).stop()
        engine.dispose()


def test_an_event_loops_units_are_committed_on_the_loop_together(engine: Engine) -> None:
    """No thread to wake and no future crossing threads: the units a loop's requests
    hand in during one turn run on the loop's own thread, in one commit."""
    writer = writes_for(engine)
    commits = commits_of(engine)
    threads: set[str] = set()

    async def main() -> list[str]:
        return await asyncio.gather(
            *(writer.run_async(noting_thread(threads, add(f"n{i}"))) for i in range(20))
        )

    assert asyncio.run(main()) == [f"n{i}" for i in range(20)]
    assert threads == {threading.current_thread().name}
    assert len(commits) == 1
    assert stored(engine) == sorted(f"n{i}" for i in range(20))


def test_a_failing_unit_of_a_loop_fails_alone(engine: Engine) -> None:
    writer = writes_for(engine)

    def half_then_fails(tx: Tx) -> None:
        tx.link.dbapi_connection.execute("INSERT INTO notes VALUES ('half')")
        tx.link.dbapi_connection.execute("INSERT INTO notes VALUES ('twice')")
        tx.link.dbapi_connection.execute("INSERT INTO notes VALUES ('twice')")

    async def main() -> list[Any]:
        return await asyncio.gather(
            writer.run_async(add("before")),
            writer.run_async(half_then_fails),
            writer.run_async(add("after")),
            return_exceptions=True,
        )

    before, failing, after = asyncio.run(main())
    assert (before, after) == ("before", "after")
    assert isinstance(failing, engine.dialect.loaded_dbapi.IntegrityError)
    assert stored(engine) == ["after", "before"]


def test_a_loop_never_waits_for_the_write_lock(engine: Engine) -> None:
    """While another connection holds the write lock, the loop goes on (its unit goes
    to the writer thread, which waits) and the unit commits once the lock is free."""
    writer = writes_for(engine)
    pooled = engine.raw_connection()  # kept: a dropped one goes back to the pool
    holder: Any = pooled.driver_connection
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO notes VALUES ('holder')")

    async def main() -> tuple[int, str]:
        waiting = asyncio.ensure_future(writer.run_async(add("waited")))
        ticks = 0
        started = asyncio.get_running_loop().time()
        while asyncio.get_running_loop().time() - started < 0.3:
            await asyncio.sleep(0.01)
            ticks += 1
        assert not waiting.done()
        holder.execute("COMMIT")
        return ticks, await waiting

    ticks, answer = asyncio.run(main())
    pooled.close()
    assert ticks >= 10  # the loop went on turning while the lock was held
    assert answer == "waited"
    assert stored(engine) == ["holder", "waited"]


def test_a_loops_commits_are_checkpointed_off_the_loop(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop's connection leaves the write-ahead log to a worker thread, which
    copies it into the database every few commits."""
    from pressroom.service.db import writer as writer_module

    monkeypatch.setattr(writer_module, "CHECKPOINT_EVERY", 3)
    writer = writes_for(engine)
    assert isinstance(writer, GroupWriter)
    checkpoints: list[str] = []
    checkpoint = writer._checkpoint

    def noted() -> None:
        checkpoints.append(threading.current_thread().name)
        checkpoint()

    monkeypatch.setattr(writer, "_checkpoint", noted)

    async def main() -> None:
        for i in range(6):
            await writer.run_async(add(f"c{i}"))
            if i % 3 == 2:
                await asyncio.sleep(0.3)  # one checkpoint at a time: let it end

    asyncio.run(main())
    assert len(checkpoints) == 2
    assert threading.current_thread().name not in checkpoints


def test_a_loops_units_wait_on_the_loop_for_its_checkpoint(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop's checkpoint holds the write lock: what the loop's requests hand in
    meanwhile waits on the loop, not on the writer thread, and goes in one commit as
    the checkpoint ends. The loop goes on turning all the while."""
    from pressroom.service.db import writer as writer_module

    monkeypatch.setattr(writer_module, "CHECKPOINT_EVERY", 1)
    writer = writes_for(engine)
    assert isinstance(writer, GroupWriter)
    release = threading.Event()
    started = threading.Event()
    checkpoint = writer._checkpoint

    def held() -> None:
        started.set()
        release.wait(10)
        checkpoint()

    monkeypatch.setattr(writer, "_checkpoint", held)
    threads: set[str] = set()

    async def main() -> tuple[int, list[str]]:
        await writer.run_async(add("first"))  # its commit starts the checkpoint
        assert started.wait(5)
        commits = commits_of(engine)
        waiting = asyncio.gather(
            *(writer.run_async(noting_thread(threads, add(f"w{i}"))) for i in range(5))
        )
        ticks = 0
        while ticks < 20:
            await asyncio.sleep(0.01)
            ticks += 1
        assert not waiting.done()
        assert stored(engine) == ["first"]
        monkeypatch.setattr(writer, "_checkpoint", checkpoint)
        release.set()
        answers = await waiting
        return len(commits), answers

    commits, answers = asyncio.run(main())
    assert answers == [f"w{i}" for i in range(5)]
    assert threads == {threading.current_thread().name}
    assert commits == 1
    assert stored(engine) == sorted(["first", *(f"w{i}" for i in range(5))])


def test_the_write_ahead_log_starts_over_as_the_loop_writes_on(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint that only copied the log while the loop went on writing would
    leave it growing: the next write would find it not wholly copied, and append."""
    from pressroom.service.db import writer as writer_module

    monkeypatch.setattr(writer_module, "CHECKPOINT_EVERY", 10**9)  # the test's alone
    writer = writes_for(engine)
    assert isinstance(writer, GroupWriter)

    async def main() -> int:
        for i in range(200):
            await writer.run_async(add(f"before {i}"))
        checkpoint = asyncio.get_running_loop().run_in_executor(None, writer._checkpoint)
        during = 0
        while not checkpoint.done() or during == 0:
            await writer.run_async(add(f"during {during}"))
            during += 1
        await checkpoint
        for i in range(3):
            await writer.run_async(add(f"after {i}"))
        return during

    asyncio.run(main())
    with engine.connect() as connection:
        frames = connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()[1]
    assert frames < 100  # 200 commits before, a page or more each, had it not started over
