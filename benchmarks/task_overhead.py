"""Prefect's own cost per task, without the service: flows of no-op tasks.

Two kinds of task, each submitted ``n`` times to the same task runner the pipeline uses
(16 worker threads):
- ``plain``: a bare ``@task``;
- ``exactly-once``: the publish task's options (``tasks.publishing.exactly_once()``: a
  cache key per post, its key and result persisted to the pipeline's state folder, so
  a later run of the same edition finds the result).
Wall time and CPU (this process, and the Prefect server) per task, in ms. Imported by
``fanout_flow.py`` after Prefect is set up.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from prefect import flow, task
from prefect.cache_policies import CachePolicy
from prefect.futures import wait
from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
from prefect.task_runners import ThreadPoolTaskRunner

from benchmarks.common import summary
from tasks.publishing import by_idempotency_key, exactly_once


@task(name="noop")
def noop(key: str) -> str:
    return key


@task(
    name="noop-exactly-once",
    cache_policy=CachePolicy.from_cache_key_fn(by_idempotency_key),
    persist_result=True,
    cache_expiration=timedelta(days=7),
)
def noop_once(key: str) -> str:
    return key


@flow(name="task-overhead", task_runner=ThreadPoolTaskRunner(max_workers=16))  # type: ignore[arg-type]
def fan(kind: str, n: int, prefix: str) -> int:
    chosen = noop if kind == "plain" else exactly_once(noop_once)
    futures = [chosen.submit(f"{prefix}-{i}") for i in range(n)]
    wait(futures)
    return sum(1 for f in futures if f.state.is_completed())


def measure(n: int, runs: int, server_cpu: Callable[[], float]) -> dict[str, Any]:
    found: dict[str, Any] = {"tasks": n, "runs": runs}
    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        fan("plain", 4, "warm")  # the first flow run of a process pays one-off costs
        for kind in ("plain", "exactly-once"):
            walls, cpus, completed = [], [], []
            for _ in range(runs):
                cpu = time.process_time()
                server = server_cpu()
                started = time.perf_counter()
                completed.append(fan(kind, n, uuid.uuid4().hex))
                walls.append((time.perf_counter() - started) / n * 1000)
                cpus.append((time.process_time() - cpu + server_cpu() - server) / n * 1000)
            found[kind] = {
                "wall_ms_per_task": summary(walls),
                "cpu_ms_per_task": summary(cpus),
                "completed": completed,
            }
    return found
