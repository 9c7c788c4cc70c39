"""What every task shares: one HTTP client per process, the retry rule, the settings."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from prefect import Task
from prefect.client.schemas.objects import State, TaskRun

from pressroom.client import Client
from pressroom.pipeline import run_logs
from pressroom.pipeline.config import PipelineSettings, ServiceState
from pressroom.pipeline.retrying import TransientFailure

# Here, not in the flow: every process that runs a task imports this module (a Dask
# worker unpickling a task included), and each must send pressroom's lines to Prefect.
run_logs.attach()

_lock = threading.Lock()
_clients: dict[tuple[str, str], Client] = {}
_limits: dict[tuple[str, int], threading.BoundedSemaphore] = {}


_ENV_PREFIX = PipelineSettings.model_config.get("env_prefix", "").upper()
_settings_read: tuple[tuple[tuple[str, str], ...], PipelineSettings] | None = None


def settings() -> PipelineSettings:
    """The settings as the environment says now: a long-lived worker follows a changed
    ``PRESSROOM_PIPELINE_*`` variable.

    Read again only when one of those variables changed. Building a pydantic-settings
    object walks every field and environment source (1-2 ms of CPU), and a publish task
    asks three times (its platform's slot, the run's, its media wait): 12 % of the flow
    process's CPU in a 200-post fan-out, more than the task's own HTTP call. The names are
    compared in upper case, as pydantic-settings matches them.
    """
    global _settings_read
    environment = tuple(
        sorted(item for item in os.environ.items() if item[0].upper().startswith(_ENV_PREFIX))
    )
    read = _settings_read
    if read is None or read[0] != environment:
        read = _settings_read = (environment, PipelineSettings())
    return read[1]


def service_state() -> ServiceState:
    """The state folder of the service address this process's client uses."""
    return settings().state_for(client().base_url)


def limit(name: str, size: int) -> threading.BoundedSemaphore:
    """This process's semaphore ``name`` of ``size`` places, made on first use; a new size
    makes a new one, so a long-lived worker follows a changed setting."""
    with _lock:
        if (name, size) not in _limits:
            _limits[name, size] = threading.BoundedSemaphore(size)
        return _limits[name, size]


def in_flight() -> threading.BoundedSemaphore:
    """At most ``PRESSROOM_PIPELINE_CONCURRENCY`` of this process's tasks talking to the
    service at once (a task holds it around its calls, after its platform's slot).

    The flow's thread pool has twice as many threads (``flows/run_campaign.task_runner``):
    Prefect's own work before and after a task's call (its states, events and result
    record, 15-20 ms of CPU a task, longer while sixteen threads share the interpreter)
    runs on the task's thread, and with one thread per slot the slot sat idle through it.
    Here a finishing task's bookkeeping overlaps the next task's request, as in a plain
    script that limits requests, not tasks.
    """
    return limit("requests", settings().concurrency)


@contextmanager
def held(*slots: threading.BoundedSemaphore) -> Iterator[Callable[[float], None]]:
    """Hold ``slots`` (taken in the order given) around a task's calls; the function it
    gives sleeps with them let go.

    A task waits inside its call for a ``Retry-After`` or while the service makes a file
    fit for the network. It sends nothing meanwhile, so it lets its platform's place and
    its request place go for the wait and takes them back, in the same order, before
    sending again: one throttled connection or slow conversion no longer holds up the
    other posts to its platform.
    """
    for slot in slots:
        slot.acquire()

    def pause(seconds: float) -> None:
        for slot in reversed(slots):
            slot.release()
        try:
            time.sleep(seconds)
        finally:
            for slot in slots:
                slot.acquire()

    try:
        yield pause
    finally:
        for slot in reversed(slots):
            slot.release()


def client() -> Client:
    """One thread-safe client per process and service address (httpx pools connections).

    Tasks take no client parameter: an httpx client cannot be hashed, and an input that
    cannot be hashed silently turns Prefect's caching off.
    """
    where = (os.environ.get("PRESSROOM_BASE_URL", ""), os.environ.get("PRESSROOM_API_KEY", ""))
    with _lock:
        if where not in _clients:
            _clients[where] = Client()
        return _clients[where]


def retry_transient(task: Task[Any, Any], task_run: TaskRun, state: State[Any]) -> bool:
    """Prefect's retry_condition_fn: retry only what ``pressroom.pipeline`` marked transient.

    It must stay a plain ``def``: Prefect silently never retries with a partial or a
    callable object.
    """
    try:
        state.result()
    except TransientFailure:
        return True
    except BaseException:
        return False
    return False
