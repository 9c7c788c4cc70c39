"""Which Prefect API a run in this process talks to, found (or started) as early as possible.

In order:

1. The one Prefect's own settings name (``PREFECT_API_URL`` in the environment, a
   profile, ``prefect.toml``): always, as Prefect itself would.
2. The local server named in ``$PREFECT_HOME/pressroom-server.json``
   (``prefect_registry``), if it is still answering: the one ``pressroom serve`` started,
   or the one an earlier run left running for a few idle minutes (``prefect_keep``; not
   when ``PRESSROOM_PIPELINE_PREFECT_IDLE_SECONDS`` is 0). Nothing starts.
3. Else a server of the run's own, as Prefect's ephemeral mode would start it (Prefect's
   server app under uvicorn, no UI, flagged ephemeral, its database in ``PREFECT_HOME``),
   but started by :func:`start_early` in the command's first milliseconds, so that its
   start (about 5 s on a warm ``PREFECT_HOME`` with Prefect 3.8 on two idle cores:
   importing Prefect 1.3 s, its server package 2.4-2.7 s, building the app 0.4 s, then
   uvicorn and the app's start-up; on a fresh home as much again for Prefect's
   migrations, unless ``prefect_template`` has them applied already) runs beside
   pressroom's own start, the plan and the service, instead of after them. It is left
   running for the next runs (``prefect_keep``), or, with the idle time at 0, stopped
   with the run. Prefect's ephemeral mode starts its server only at the first API call,
   after importing Prefect's server package into the caller's process; this process
   never imports it.

Step 1 needs Prefect's settings, and importing Prefect is part of what the early start
overlaps, so :func:`start_early` decides from the environment and the active profile
alone; :func:`resolve` checks again with Prefect's settings and stops the server it
started when something it could not see names another API.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
from dataclasses import dataclass

from pressroom.pipeline import prefect_keep, prefect_registry, prefect_settings, prefect_template
from pressroom.pipeline.prefect_home import profile_settings
from pressroom.pipeline.prefect_keep import KeptServer
from pressroom.pipeline.prefect_server import TemporaryServer

logger = logging.getLogger("pressroom.pipeline")

OwnServer = TemporaryServer | KeptServer


def configured_api_url() -> str | None:
    """The API the environment or the active Prefect profile names, read without
    importing Prefect (``.env`` and ``prefect.toml`` are left to :func:`resolve`)."""
    return os.environ.get("PREFECT_API_URL") or profile_settings().get("PREFECT_API_URL")


@dataclass
class PrefectApi:
    """Where the run goes, and what becomes of the server this command started."""

    url: str
    own: OwnServer | None = None
    """Started by this command: stopped as the run ends, or left for the next runs."""
    kept: bool = False
    """Whether that server stays after the run, waiting for the next (``prefect_keep``)."""

    @property
    def has_ui(self) -> bool:
        """A server the run started, or one kept between runs, serves no UI."""
        return self.own is None and not self.kept

    def close(self) -> None:
        if self.own is not None:
            _end_of_run(self.own)
        prefect_keep.let_go()


_early: OwnServer | None = None


def _own_server() -> OwnServer:
    prefect_template.seed()  # a fresh home starts with its migrations applied
    environ = dict(os.environ)
    # Started before this process has prepared its own Prefect settings (``campaign run``
    # starts it beside its checks), so the server's are given here.
    prefect_settings.apply(environ, prefect_settings.SERVER)
    if prefect_template.at_head():
        # Nothing to migrate: skip alembic's load of every migration script.
        prefect_settings.apply(environ, prefect_settings.AT_HEAD)
    if (idle := prefect_keep.idle_seconds()) > 0:
        return KeptServer(environ=environ, idle=idle)
    return TemporaryServer(environ=environ)


def _registered(keeping: bool) -> prefect_registry.Entry | None:
    """The registered server the run may use; with a kept server allowed, the lock that
    keeps it is taken first."""
    if keeping:
        prefect_keep.hold()
    return prefect_registry.live_entry(kept=keeping)


def _end_of_run(server: OwnServer) -> None:
    """A temporary server stops; a kept one stays for the next run."""
    if isinstance(server, KeptServer):
        server.leave()
    else:
        server.stop()


def start_early() -> None:
    """Start the run's own server now if nothing else will serve the run (cheap to call:
    no Prefect import). :func:`resolve` waits for it."""
    global _early
    if _early is not None or "prefect" in sys.modules or configured_api_url() is not None:
        return
    if _registered(keeping=prefect_keep.idle_seconds() > 0) is not None:
        return
    _early = _own_server()
    # A command that fails before the run (a mistake in the campaign) stops a temporary
    # server; a kept one waits for the corrected run.
    atexit.register(_end_of_run, _early)


def resolve() -> PrefectApi:
    """The API the run uses (see the module docstring); the caller closes it."""
    global _early
    from prefect.settings import PREFECT_API_URL

    early, _early = _early, None
    if configured := PREFECT_API_URL.value():
        if early is not None:
            early.stop()
        return PrefectApi(str(configured))
    entry = _registered(keeping=prefect_keep.idle_seconds() > 0)
    if entry is not None and not (isinstance(early, KeptServer) and early.pid == entry.pid):
        if early is not None:
            early.stop()
        started_by = "an earlier run left running" if entry.kept else "pressroom serve started"
        logger.info("using the Prefect server %s: %s", started_by, entry.api_url)
        return PrefectApi(entry.api_url, kept=entry.kept)
    server = early or _own_server()
    url = server.wait_ready()
    return PrefectApi(url, own=server, kept=isinstance(server, KeptServer))
