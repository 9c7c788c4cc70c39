"""Run the ``run-campaign`` flow from Python or the CLI, on the server at
``PREFECT_API_URL``, the one ``pressroom serve`` started, or a temporary one (see
``pressroom.pipeline.prefect_api``).

The flow lives in the checkout (``flows/run_campaign.py``), as Prefect's file-path
entrypoints expect; ``project_root()`` finds it from the working directory or from this
package's own location in an editable install.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pressroom.pipeline import outcomes, prefect_api, prefect_settings
from pressroom.pipeline.sealed import unsealed

if TYPE_CHECKING:
    from prefect import Flow
    from prefect.client.schemas.objects import State

ENTRYPOINT = "flows/run_campaign.py:run_campaign"


def project_root() -> Path:
    """The checkout holding ``flows/``: the working directory or one above it, or the
    source tree this package was installed from."""
    here = Path.cwd().resolve()
    for candidate in (here, *here.parents, *Path(__file__).resolve().parents):
        if (candidate / "flows" / "run_campaign.py").is_file():
            return candidate
    raise FileNotFoundError(
        "flows/run_campaign.py not found: run pressroom from its checkout (the campaign "
        "flows are project files, not part of the installed package)"
    )


def prepare_prefect(home: Path | None = None) -> None:
    """Quiet, patient defaults for Prefect; set before Prefect is imported.

    ``home`` pins ``PREFECT_HOME`` (the demo keeps Prefect's database with its data) unless
    the environment already says where it is.
    """
    if home is not None:
        os.environ.setdefault("PREFECT_HOME", str(home.resolve()))
    prefect_settings.apply(os.environ, prefect_settings.CLIENT)
    # The ephemeral server is a child process: it inherits these.
    prefect_settings.apply(os.environ, prefect_settings.SERVER)


def kept_server_note() -> str:
    """Said after a run whose Prefect server stays: a process the user did not start
    remains, and how to end it."""
    from pressroom.pipeline.prefect_keep import IDLE_SECONDS_ENV, idle_seconds

    return (
        f"Prefect's server stays for the next run until {idle_seconds():g} s pass without "
        f"one (pressroom prefect-stop ends it; {IDLE_SECONDS_ENV}=0 turns this off)"
    )


def ui_hint(flow_run_id: str | None, api: str | None = None) -> str:
    """How to see a run in the Prefect UI: on the server that keeps running, else by
    starting one on the ``PREFECT_HOME`` the temporary server wrote to."""
    if api:
        ui = api.rstrip("/").removesuffix("/api")
        return f"{ui}/runs/flow-run/{flow_run_id}" if flow_run_id else ui
    home = os.environ.get("PREFECT_HOME", "~/.prefect")
    return (
        f"PREFECT_HOME={home} prefect server start   # then open "
        f"http://127.0.0.1:4200/runs/flow-run/{flow_run_id}"
    )


@dataclass
class RunOutcome:
    state: str
    """Prefect's final state type: COMPLETED or FAILED (CRASHED if something broke)."""
    message: str
    flow_run_id: str | None
    rows: list[dict[str, Any]] = field(default_factory=list)
    api_url: str | None = None
    """The Prefect API whose UI shows the run; None when its server has no UI (the run's
    own, stopped with it or kept for a few minutes)."""
    server_kept: bool = False
    """The run's Prefect server stays, waiting for the next run (``prefect_keep``)."""

    @property
    def ok(self) -> bool:
        return self.state == "COMPLETED"


def run_campaign_file(
    campaign_file: Path, *, edition: str | None = None, dry_run: bool = False
) -> RunOutcome:
    """Run the flow once, in this process, and say how it ended.

    Call ``prefect_api.start_early()`` first thing in a command, so that a temporary
    server is already starting while the command does its own work.
    """
    with _loading():
        from prefect.flows import load_flow_from_entrypoint
        from prefect.settings import (
            PREFECT_API_URL,
            PREFECT_FLOWS_HEARTBEAT_FREQUENCY,
            PREFECT_UI_URL,
            temporary_settings,
        )
        from prefect.settings.legacy import Setting

        flow: Flow[..., Any] = load_flow_from_entrypoint(str(project_root() / ENTRYPOINT))
        api = prefect_api.resolve()
    try:
        # A heartbeat helps a worker notice a crashed run; a run in this process needs
        # none, and it costs about a second per run.
        updates: dict[Setting, Any] = {
            PREFECT_API_URL: api.url,
            PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None,
        }
        if not api.has_ui:
            # No "View at" line for a server that has no UI (the run's own, or kept).
            updates[PREFECT_UI_URL] = ""
        with temporary_settings(updates=updates), outcomes.tables_held() as tables:
            state: State[Any] = flow(  # type: ignore[assignment]  # return_state=True gives a State
                campaign_file=str(campaign_file.resolve()),
                edition=edition,
                dry_run=dry_run,
                return_state=True,
            )
            data = unsealed(state.result(raise_on_failure=False))
            # The run has ended; its table prints while its last events go out.
            for title, table in tables:
                outcomes.print_table(title, table)
            _flush_events()
    finally:
        api.close()
    rows = data if isinstance(data, list) else []
    flow_run_id = state.state_details.flow_run_id
    return RunOutcome(
        state=state.type.value,
        message=state.message or "",
        flow_run_id=str(flow_run_id) if flow_run_id else None,
        rows=[row for row in rows if isinstance(row, dict)],
        api_url=api.url if api.has_ui else None,
        server_kept=api.kept,
    )


@contextmanager
def _loading() -> Iterator[None]:
    """Prefect and the flow loaded without the collector, then frozen with the campaign
    already loaded: all of it stays for the whole run.

    Importing builds objects that live as long as the process, so collecting while it
    goes on finds nothing to free (a full collection during Prefect's import freed 36
    objects in 0.05-0.07 s). Frozen, they are left out of the collections the run's own
    objects trigger: unfrozen, a full one over them at the flow's start took 0.1 s of
    the only core the flow's threads share, and the fan-out's flow ran 1.59× the plain
    script against 1.40× frozen (``benchmarks/README.md``, "seventh round").
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if collecting:
            gc.enable()


def _flush_events() -> None:
    """Let the last task-run events reach the server before it stops with this process
    (otherwise the ephemeral server logs flush errors at exit and may lose them)."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    EventsWorker.drain_all(timeout=10)
    APILogWorker.drain_all(timeout=10)
