"""``pressroom serve``: run every scheduled campaign in ``pipelines/`` on its schedule."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from pressroom.pipeline.serving import DEFAULT_GRACE_SECONDS


def serve(
    pipelines: Annotated[
        Path | None,
        typer.Option(help=r"Folder of campaign files \[default: ./pipelines]."),
    ] = None,
    port: Annotated[
        int, typer.Option(help="Port of the local Prefect server, if one is started.")
    ] = 4200,
    grace_seconds: Annotated[
        float,
        typer.Option(help="On stop, how long a run in flight may take before it is cancelled."),
    ] = DEFAULT_GRACE_SECONDS,
) -> None:
    """Serve the scheduled campaigns, picking up added or changed files without a restart.

    Uses the Prefect server at PREFECT_API_URL, or starts a local one (Prefect cannot
    schedule on its ephemeral server) and prints where its UI is. SIGTERM or Ctrl-C stops
    scheduling at once, lets a run in flight finish within the grace period, and stops
    every process serve started.
    """
    from pressroom.pipeline import prefect_registry
    from pressroom.pipeline.runner import prepare_prefect, project_root
    from pressroom.pipeline.serving import LocalPrefectServer, Supervisor, stop_signals

    prepare_prefect()
    directory = (pipelines or project_root() / "pipelines").resolve()
    supervisor = Supervisor(directory, grace_seconds=grace_seconds, say=typer.echo)
    server = None
    with stop_signals(supervisor.stopping):
        try:
            if not os.environ.get("PREFECT_API_URL"):
                server = LocalPrefectServer(port)
                typer.echo("starting a local Prefect server (PREFECT_API_URL is not set)…")
                os.environ["PREFECT_API_URL"] = server.start()
                # `pressroom campaign run` and `pressroom demo` beside us use it too.
                prefect_registry.register(os.environ["PREFECT_API_URL"])
                typer.echo(f"Prefect UI: http://127.0.0.1:{port}")
            if not supervisor.stopping.is_set():
                typer.echo(f"serving the scheduled campaigns in {directory} (Ctrl-C stops)")
                supervisor.run_until_stopped()
                typer.echo("stopped")
        finally:
            if server is not None:
                prefect_registry.unregister()
                server.stop()


def prefect_env() -> None:
    """Print the Prefect server settings pressroom runs with, as shell export lines.

    For a Prefect server you start yourself: eval "$(pressroom prefect-env)" and then
    prefect server start. The ephemeral server of a run and the one `pressroom serve`
    starts have them already.
    """
    from pressroom.pipeline.prefect_settings import export_lines

    typer.echo(export_lines(), nl=False)


def prefect_stop() -> None:
    """Stop the Prefect server an earlier run left running for the next ones.

    With no Prefect server named, a run's own server stays for
    PRESSROOM_PIPELINE_PREFECT_IDLE_SECONDS (default 300) after the last run that used it,
    then stops by itself; this stops it now. The one `pressroom serve` runs is left alone.
    """
    from pressroom.pipeline.prefect_home import prefect_home
    from pressroom.pipeline.prefect_keep import stop_kept

    pid = stop_kept()
    if pid is None:
        typer.echo(f"no Prefect server is kept for {prefect_home()}")
    else:
        typer.echo(f"stopped the Prefect server kept for {prefect_home()} (pid {pid})")
