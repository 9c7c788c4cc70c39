"""What every task shares: one HTTP client per process, the retry rule, the settings."""

from __future__ import annotations

import os
import threading
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


def settings() -> PipelineSettings:
    """Read anew each time (cheap): a long-lived worker picks up changed settings."""
    return PipelineSettings()


def service_state() -> ServiceState:
    """The state folder of the service address this process's client uses."""
    return settings().state_for(client().base_url)


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
