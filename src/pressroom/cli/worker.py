"""``pressroom worker``: the service's background work without its HTTP API.

A worker is the service's lifespan with nothing listening: it processes uploaded media
and sends webhooks (claiming both kinds of job from the database), and takes its turn at the periodic tasks (media
housekeeping, the reconciler of unknown posts, token refresh), each run by one process
at a time across all of them. Run as many as the uploads need, beside ``pressroom api
--no-worker`` replicas, on PostgreSQL and S3; ``PRESSROOM_OPS_PORT`` serves its
``/healthz``, ``/readyz`` and ``/metrics``. SIGTERM (or Ctrl-C) finishes the jobs in
hand, puts the rest back for other workers, and exits 0.
"""

from __future__ import annotations

import asyncio
import signal

import typer

from pressroom.cli.errors import usage_error
from pressroom.cli.options import (
    DataDir,
    LogFormat,
    LogFormatFlag,
    LogLevel,
    LogLevelFlag,
    apply_overrides,
)


def worker(
    data_dir: DataDir = None,
    log_level: LogLevelFlag = LogLevel.INFO,
    log_format: LogFormatFlag = LogFormat.PLAIN,
) -> None:
    """Process uploaded media and run the periodic tasks, without serving the API."""
    from pressroom.service.app import create_app
    from pressroom.service.db.migrate import upgrade
    from pressroom.service.ops.logs import configure_logging
    from pressroom.service.ops.shutdown import begin_draining
    from pressroom.settings import get_settings

    apply_overrides(data_dir=data_dir, process_in_api=True)
    settings = get_settings()
    if problem := settings.webhook_settings_problem():
        usage_error(problem)
    level, fmt = log_level.value, log_format.value
    settings.ops.log_level, settings.ops.log_format = level, fmt  # type: ignore[assignment]
    configure_logging(level, fmt)  # type: ignore[arg-type]
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.database_url)
    app = create_app(settings, migrate=False, kind="worker")

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def stopping() -> None:
            begin_draining(app.state)  # the ops port's /readyz fails from now on
            stop.set()

        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stopping)
        async with app.router.lifespan_context(app):
            typer.echo(
                f"pressroom worker processing media with {settings.processing_workers} "
                f"threads (data in {settings.data_dir})"
            )
            await stop.wait()
        typer.echo("pressroom worker stopped")

    asyncio.run(run())
