"""``pressroom demo``: the main job on the embedded default, nothing to set up by hand.

It starts the service (SQLite and local storage under ``--data-dir``) in a process of
its own that ends with the demo (``pressroom.cli.demo_service``), seeds the demo account
with connections on all eight platforms, runs the demo campaign in this process through
Prefect's ephemeral mode (its server left running for the next run for a few idle
minutes, ``pressroom.pipeline.prefect_keep``), and prints the result table and where to
see the run in the Prefect UI. Run it again: every post is skipped as already published.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Annotated

import typer

from pressroom.cli.options import DataDir, LogLevel, LogLevelFlag, apply_overrides

DEFAULT_PORT = 8765
DEMO_CAMPAIGN = Path("pipelines/demo.yaml")


def demo(
    port: Annotated[int, typer.Option(help="Port for the embedded service.")] = DEFAULT_PORT,
    data_dir: DataDir = None,
    campaign: Annotated[
        Path | None, typer.Option(help=r"Campaign to run \[default: pipelines/demo.yaml].")
    ] = None,
    serve: Annotated[
        bool, typer.Option(help="Keep the service running afterwards (Ctrl-C stops it).")
    ] = False,
    log_level: LogLevelFlag = LogLevel.WARNING,
) -> None:
    """Start the embedded service, seed a demo account, and run the demo campaign."""
    import _thread
    import logging

    from pressroom import log_safety
    from pressroom.cli.demo_service import DemoService, bind
    from pressroom.cli.errors import expected_errors, fail
    from pressroom.pipeline import prefect_api
    from pressroom.pipeline.runner import prepare_prefect
    from pressroom.settings import get_settings

    try:
        listener = bind(port)
    except OSError as error:
        fail(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error} (try --port)")
    base_url = f"http://127.0.0.1:{port}"
    apply_overrides(data_dir=data_dir, base_url=base_url)
    settings = get_settings()
    # Prefect's server and the service start now, each in a process of its own, while
    # this one imports Prefect, loads the flow and starts its run.
    prepare_prefect(home=settings.data_dir / "prefect")
    with expected_errors():
        prefect_api.start_early()

    def service_failed(why: str) -> None:
        typer.secho(f"error: {why}", err=True, fg=typer.colors.RED)
        _thread.interrupt_main()  # the run stops here rather than retry a service that is gone

    service = DemoService(
        listener,
        data_dir=settings.data_dir,
        base_url=base_url,
        log_level=log_level.value,
        on_failure=service_failed,
    )
    try:
        # Prefect's handlers print the run's lines (once it is imported); pressroom's join
        # them at the level asked for, under the rule of every pressroom process.
        logging.getLogger("pressroom").setLevel(log_level.value.upper())
        log_safety.install()
        typer.echo(f"pressroom service at {base_url} (data in {settings.data_dir})")
        os.environ["PRESSROOM_BASE_URL"] = base_url
        os.environ["PRESSROOM_API_KEY"] = service.key
        os.environ.setdefault("PRESSROOM_PIPELINE_STATE_DIR", str(settings.data_dir / "pipeline"))
        os.environ.setdefault("PRESSROOM_PIPELINE_POLL_SECONDS", "1")  # tiny demo media

        from pressroom.cli.campaign import progress_bars
        from pressroom.pipeline.runner import (
            kept_server_note,
            project_root,
            run_campaign_file,
            ui_hint,
        )

        campaign_file = campaign or project_root() / DEMO_CAMPAIGN
        with progress_bars():
            outcome = run_campaign_file(campaign_file)

        typer.echo(f"\n{outcome.state.lower()}: {outcome.message}")
        typer.echo(
            f"see the run in the Prefect UI: {ui_hint(outcome.flow_run_id, outcome.api_url)}"
        )
        typer.echo(
            f"what reached the platforms: pressroom admin --data-dir {settings.data_dir} posts"
        )
        if outcome.server_kept:
            typer.echo(kept_server_note())
        ready = service.wait_ready() if serve else None
        if ready is not None:
            key = service.key
            typer.echo(f"\nservice still running at {base_url}; demo API key: {key}")
            typer.echo(f"open the dashboard (one-time sign-in link): {ready['sign_in_link']}")
            typer.echo(f"try: curl -H 'X-API-Key: {key}' {base_url}/api/connections/unified")
            with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the service stops below
                service.wait()
        else:
            typer.echo(
                "open the dashboard: run `bash scripts/demo --serve` and follow the "
                "sign-in link it prints"
            )
    except KeyboardInterrupt:
        if service.failure is None:
            raise
        raise typer.Exit(1) from None
    finally:
        service.stop()
    if not outcome.ok:
        raise typer.Exit(1)
