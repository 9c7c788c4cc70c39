"""The Prefect settings pressroom runs with, in one place.

Prefect reads its settings from the environment when it starts, and silently ignores a
name it does not know, so each is set here once and checked against Prefect's own
settings model by the tests. A value already in the environment always wins.

``SERVER`` matters wherever a Prefect server runs: the ephemeral one a run starts (it
inherits this process's environment), the local one ``pressroom serve`` starts, and one
you start yourself (``eval "$(pressroom prefect-env)"`` before ``prefect server
start``). Measured in ``benchmarks/`` on a 2-core machine: with Prefect's defaults the
server records every task-run event in a write transaction of its own, about 40 ms of
its CPU per task (8 s for a 200-task run, much of it after the run ended, slowing the
next one); written in batches, about 2 s.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, MutableMapping

CLIENT: Mapping[str, str] = {
    # The ephemeral server can take 15 s to start on a cold, busy machine.
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    # pressroom's own lines of a run (uploads, waits, look-ups, retries) in its run logs
    # in the UI; see pressroom.pipeline.run_logs.
    "PREFECT_LOGGING_EXTRA_LOGGERS": "pressroom.client,pressroom.pipeline",
    # The same lines outside a run (validation, the connection list fetched before
    # Prefect starts) go to the console only, without a warning about the API.
    "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
}

SERVER: Mapping[str, str] = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    # Automations' triggers are not used by the pipeline; one writer less on SQLite.
    "PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED": "false",
    # Task-run states and events written in batches instead of one transaction each
    # (Prefect's defaults: 1 and 20). A batch is written when full or after a second
    # (Prefect reads the interval as whole seconds; its default is 5), so the UI is at
    # most a second behind.
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "100",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "1",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE": "200",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_FLUSH_INTERVAL": "1",
}


AT_HEAD: Mapping[str, str] = {
    # For a server started on a database already at the installed Prefect's migration
    # head (``prefect_template.at_head``): Prefect would otherwise import alembic and
    # load every migration script on each start only to find nothing to apply.
    "PREFECT_SERVER_DATABASE_MIGRATE_ON_START": "false",
}


def apply(environ: MutableMapping[str, str], settings: Mapping[str, str]) -> None:
    """Set each setting the environment does not already set."""
    for name, value in settings.items():
        environ.setdefault(name, value)


def export_lines(settings: Mapping[str, str] = SERVER) -> str:
    """Shell ``export`` lines, for a server started by hand."""
    return "".join(f"export {name}={shlex.quote(value)}\n" for name, value in settings.items())
