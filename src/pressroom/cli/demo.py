"""``pressroom demo``: the main job on the embedded default, nothing to set up by hand.

It starts the service in this process (SQLite and local storage under ``--data-dir``),
seeds the demo account with connections on all eight platforms, runs the demo campaign
through Prefect's ephemeral mode (its server left running for the next run for a few idle
minutes, ``pressroom.pipeline.prefect_keep``), and prints the result table and where to see the run
in the Prefect UI. Run it again: every post is skipped as already published.
"""

from __future__ import annotations

import os
import threading
import time
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
    import logging

    from pressroom import log_safety
    from pressroom.cli.errors import expected_errors
    from pressroom.pipeline import prefect_api
    from pressroom.pipeline.runner import prepare_prefect
    from pressroom.settings import get_settings

    base_url = f"http://127.0.0.1:{port}"
    apply_overrides(data_dir=data_dir, base_url=base_url)
    settings = get_settings()
    # Prefect's server starts now, beside the service's start and the seeding.
    prepare_prefect(home=settings.data_dir / "prefect")
    with expected_errors():
        prefect_api.start_early()
    # Prefect's handlers print the run's lines (once it is imported); pressroom's join
    # them at the level asked for, under the rule of every pressroom process.
    logging.getLogger("pressroom").setLevel(log_level.value.upper())
    log_safety.install()

    import uvicorn

    from pressroom.pipeline.runner import (
        kept_server_note,
        project_root,
        run_campaign_file,
        ui_hint,
    )
    from pressroom.service.admin import DEMO_EMAIL, admin_session, seed_demo
    from pressroom.service.app import create_app
    from pressroom.service.auth.service import create_sign_in_link
    from pressroom.service.http_protocol import PROTOCOL

    with admin_session(settings) as db:
        _, key = seed_demo(db)
        link = f"{base_url}/sign-in/link/{create_sign_in_link(db, DEMO_EMAIL)}"

    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=port,
            log_level=log_level.value,
            log_config=None,  # its lines go to the handlers set up above
            access_log=False,  # pressroom.access writes the route, never the query
            http=PROTOCOL,
        )
    )
    thread = threading.Thread(target=server.run, name="pressroom-service", daemon=True)
    thread.start()
    _wait_started(server, thread)
    typer.echo(f"pressroom service at {base_url} (data in {settings.data_dir})")

    os.environ["PRESSROOM_BASE_URL"] = base_url
    os.environ["PRESSROOM_API_KEY"] = key
    os.environ.setdefault("PRESSROOM_PIPELINE_STATE_DIR", str(settings.data_dir / "pipeline"))
    os.environ.setdefault("PRESSROOM_PIPELINE_POLL_SECONDS", "1")  # tiny demo media
    campaign_file = campaign or project_root() / DEMO_CAMPAIGN
    from pressroom.cli.campaign import progress_bars

    try:
        with progress_bars():
            outcome = run_campaign_file(campaign_file)
    finally:
        if not serve:
            server.should_exit = True
            thread.join(timeout=10)

    typer.echo(f"\n{outcome.state.lower()}: {outcome.message}")
    typer.echo(f"see the run in the Prefect UI: {ui_hint(outcome.flow_run_id, outcome.api_url)}")
    typer.echo(f"what reached the platforms: pressroom admin --data-dir {settings.data_dir} posts")
    if outcome.server_kept:
        typer.echo(kept_server_note())
    if not serve:
        typer.echo(
            "open the dashboard: run `bash scripts/demo --serve` and follow the "
            "sign-in link it prints"
        )
    if serve:
        typer.echo(f"\nservice still running at {base_url}; demo API key: {key}")
        typer.echo(f"open the dashboard (one-time sign-in link): {link}")
        typer.echo(f"try: curl -H 'X-API-Key: {key}' {base_url}/api/connections/unified")
        try:
            thread.join()
        except KeyboardInterrupt:
            server.should_exit = True
    if not outcome.ok:
        raise typer.Exit(1)


def _wait_started(server: object, thread: threading.Thread, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not getattr(server, "started", False):
        if not thread.is_alive():
            raise SystemExit("error: the service could not start (is the port in use? try --port)")
        if time.monotonic() > deadline:
            raise SystemExit("error: the service did not start in time")
        time.sleep(0.05)
