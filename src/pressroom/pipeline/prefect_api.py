"""Which Prefect API a run in this process talks to, found (or started) as early as possible.

In order:

1. The one Prefect's own settings name (``PREFECT_API_URL`` in the environment, a
   profile, ``prefect.toml``): always, as Prefect itself would.
2. The local server ``pressroom serve`` started, if it is still answering: ``serve``
   writes its address to ``$PREFECT_HOME/pressroom-server.json`` and removes it when it
   stops. The run then shows in the UI ``serve`` runs, and nothing starts.
3. Else a temporary server, as Prefect's ephemeral mode would start it (Prefect's server
   app under uvicorn, no UI, flagged ephemeral, its database in ``PREFECT_HOME``), but
   started by :func:`start_early` in the command's first milliseconds, so that its start
   (about 5 s on a warm ``PREFECT_HOME`` with Prefect 3.8 on two idle cores: importing
   Prefect 1.3 s, its server package 2.4-2.7 s, building the app 0.4 s, then uvicorn and
   the app's start-up; on a fresh home as much again for Prefect's migrations, unless
   ``prefect_template`` has them applied already) runs beside pressroom's own start, the
   plan and the service, instead of after them. Prefect's ephemeral mode starts its
   server only at the first API call, after importing Prefect's server package into the
   caller's process; this process never imports it.

Step 1 needs Prefect's settings, and importing Prefect is part of what the early start
overlaps, so :func:`start_early` decides from the environment and the active profile
alone; :func:`resolve` checks again with Prefect's settings and stops the temporary
server when something it could not see names another API.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import sys
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from pressroom.pipeline import prefect_settings, prefect_template
from pressroom.pipeline.prefect_home import prefect_home, profile_settings
from pressroom.pipeline.prefect_server import TemporaryServer

logger = logging.getLogger("pressroom.pipeline")

REGISTRY_NAME = "pressroom-server.json"
"""In ``PREFECT_HOME``: the local server ``pressroom serve`` started (``api_url``, ``pid``)."""


def configured_api_url() -> str | None:
    """The API the environment or the active Prefect profile names, read without
    importing Prefect (``.env`` and ``prefect.toml`` are left to :func:`resolve`)."""
    return os.environ.get("PREFECT_API_URL") or profile_settings().get("PREFECT_API_URL")


def registered_server() -> str | None:
    """The API of the server ``pressroom serve`` started with this ``PREFECT_HOME``, when
    its process is alive and it answers."""
    import httpx

    try:
        entry = json.loads((prefect_home() / REGISTRY_NAME).read_text())
        api_url, pid = str(entry["api_url"]), int(entry["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
        healthy = httpx.get(f"{api_url}/health", timeout=1.0).status_code == 200
    except (OSError, httpx.HTTPError):
        return None
    return api_url if healthy else None


def register_server(api_url: str) -> Path:
    """Let runs started beside ``pressroom serve`` use its server (removed by
    :func:`unregister_server` when ``serve`` stops)."""
    path = prefect_home() / REGISTRY_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"api_url": api_url, "pid": os.getpid()}))
    return path


def unregister_server() -> None:
    with suppress(OSError):
        (prefect_home() / REGISTRY_NAME).unlink()


@dataclass
class PrefectApi:
    """Where the run goes, and whether it lives only as long as this command."""

    url: str
    temporary: TemporaryServer | None = None

    def close(self) -> None:
        if self.temporary is not None:
            self.temporary.stop()


_early: TemporaryServer | None = None


def _temporary_server() -> TemporaryServer:
    prefect_template.seed()  # a fresh home starts with its migrations applied
    environ = dict(os.environ)
    # Started before this process has prepared its own Prefect settings (``campaign run``
    # starts it beside its checks), so the server's are given here.
    prefect_settings.apply(environ, prefect_settings.SERVER)
    if prefect_template.at_head():
        # Nothing to migrate: skip alembic's load of every migration script.
        prefect_settings.apply(environ, prefect_settings.AT_HEAD)
    return TemporaryServer(environ=environ)


def start_early() -> None:
    """Start a temporary server now if nothing else will serve the run (cheap to call:
    no Prefect import). :func:`resolve` waits for it."""
    global _early
    if _early is None and "prefect" not in sys.modules and configured_api_url() is None:
        _early = _temporary_server()
        # A command that fails before the run (a mistake in the campaign) leaves no server.
        atexit.register(_early.stop)


def resolve() -> PrefectApi:
    """The API the run uses (see the module docstring); the caller closes it."""
    global _early
    from prefect.settings import PREFECT_API_URL

    early, _early = _early, None
    if configured := PREFECT_API_URL.value():
        if early is not None:
            early.stop()
        return PrefectApi(str(configured))
    if served := registered_server():
        if early is not None:
            early.stop()
        logger.info("using the Prefect server pressroom serve started: %s", served)
        return PrefectApi(served)
    server = early or _temporary_server()
    try:
        url = server.wait_ready()
    except BaseException:
        server.stop()
        raise
    return PrefectApi(url, temporary=server)
