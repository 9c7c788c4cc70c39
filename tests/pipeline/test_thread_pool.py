"""The flow's task runner has every thread running before its first task is submitted,
so submitting a fan-out never waits for a thread to start; it stays Prefect's runner
otherwise (tasks run, results come back, a copy for the next run is the same kind)."""

from __future__ import annotations

import threading

import pytest
from prefect import flow, task
from prefect.task_runners import ThreadPoolTaskRunner

from pressroom.pipeline.thread_pool import StartedThreadPoolTaskRunner


def pool_threads() -> set[str]:
    """The names of this process's live thread-pool threads."""
    return {t.name for t in threading.enumerate() if t.name.startswith("ThreadPoolExecutor")}


@pytest.mark.parametrize("threads", [1, 6])
def test_every_thread_runs_once_the_runner_is_entered(threads: int) -> None:
    before = pool_threads()
    with StartedThreadPoolTaskRunner(max_workers=threads):
        started = pool_threads() - before
        assert len(started) == threads
    assert not pool_threads() - before, "the threads end with the runner"


def test_prefects_own_runner_starts_its_threads_only_as_tasks_come() -> None:
    """What the runner above is for (this fails once Prefect starts them itself)."""
    before = pool_threads()
    with ThreadPoolTaskRunner(max_workers=6):
        assert not pool_threads() - before


def test_a_flow_on_it_runs_its_tasks_on_as_many_threads() -> None:
    ran_on: set[str] = set()
    gate = threading.Barrier(4, timeout=10)

    @task
    def meet(n: int) -> int:
        ran_on.add(threading.current_thread().name)
        gate.wait()  # four at once: each on a thread of its own
        return n * 2

    @flow(task_runner=StartedThreadPoolTaskRunner(max_workers=4))
    def fan_out() -> list[int]:
        return [f.result() for f in meet.map(range(4))]

    assert fan_out() == [0, 2, 4, 6]
    assert len(ran_on) == 4


def test_its_copy_for_the_next_run_is_started_the_same_way() -> None:
    runner = StartedThreadPoolTaskRunner(max_workers=3)
    copy = runner.duplicate()
    assert isinstance(copy, StartedThreadPoolTaskRunner)
    assert copy.threads == 3
