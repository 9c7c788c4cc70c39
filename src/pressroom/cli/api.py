"""``pressroom api``: run the HTTP service."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Annotated, Any

import typer

from pressroom.cli.errors import fail, usage_error
from pressroom.cli.options import (
    DataDir,
    LogFormat,
    LogFormatFlag,
    LogLevel,
    LogLevelFlag,
    apply_overrides,
)


def api(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    data_dir: DataDir = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Worker processes \\[default: one per CPU, at most 8, on PostgreSQL; 1 on "
            "SQLite or with PRESSROOM_OPS_PORT].",
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            envvar="PRESSROOM_BASE_URL", help=r"Public address \[default: http://HOST:PORT]."
        ),
    ] = None,
    log_level: LogLevelFlag = LogLevel.INFO,
    log_format: LogFormatFlag = LogFormat.PLAIN,
    no_worker: Annotated[
        bool,
        typer.Option(
            "--no-worker",
            help="Leave media processing to `pressroom worker` processes "
            "(PRESSROOM_PROCESS_IN_API=0).",
        ),
    ] = False,
) -> None:
    """Start the service (FastAPI on uvicorn), applying migrations first.

    One access line per request (method, route, status, duration, account, request id);
    /healthz, /readyz and /metrics on this port, or on PRESSROOM_OPS_PORT.
    """
    import uvicorn

    from pressroom.service.db.migrate import upgrade
    from pressroom.service.http_protocol import PROTOCOL
    from pressroom.service.ops.logs import configure_logging
    from pressroom.settings import get_settings

    level, fmt = log_level.value, log_format.value
    if problem := port_problem(host, port):
        fail(f"cannot listen on {host}:{port}: {problem} (try --port)")
    if base_url is None:
        base_url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    apply_overrides(
        data_dir=data_dir, base_url=base_url, process_in_api=False if no_worker else None
    )
    settings = get_settings()
    if problem := settings.webhook_settings_problem():
        usage_error(problem)
    settings.ops.log_level, settings.ops.log_format = level, fmt  # type: ignore[assignment]
    if workers is None:
        workers = default_workers(settings.database_url, settings.ops.ops_port)
    if workers > 1 and settings.ops.ops_port is not None:
        usage_error(
            "PRESSROOM_OPS_PORT needs --workers 1: every worker would bind the ops port, and "
            "only one can (or leave PRESSROOM_OPS_PORT unset to serve /metrics on --port)"
        )
    if workers > 1 and settings.database_url.startswith("sqlite"):
        usage_error(
            "SQLite takes one writer at a time: --workers above 1 needs PostgreSQL "
            "(PRESSROOM_DATABASE_URL)"
        )
    configure_logging(level, fmt)  # type: ignore[arg-type]
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.database_url)
    typer.echo(f"pressroom service on {settings.public_base_url} (data in {settings.data_dir})")
    if workers == 1:
        from pressroom.service.app import create_app

        serve: Callable[..., Any] | str = create_app(settings, migrate=False)
    else:
        # Worker processes start afresh and build their settings from the environment,
        # so the flags reach them there.
        for name, value in {
            "DATA_DIR": settings.data_dir,
            "BASE_URL": base_url,
            "LOG_LEVEL": level,
            "LOG_FORMAT": fmt,
            "PROCESS_IN_API": "1" if settings.process_in_api else "0",
        }.items():
            os.environ[f"PRESSROOM_{name}"] = str(value)
        serve = "pressroom.service.asgi:app"
    uvicorn.run(
        serve,
        host=host,
        port=port,
        workers=workers if workers > 1 else None,
        log_level=level,
        log_config=None,
        access_log=False,
        http=PROTOCOL,
    )


MAX_DEFAULT_WORKERS = 8


def default_workers(database_url: str, ops_port: int | None, cpus: int | None = None) -> int:
    """One process per CPU on PostgreSQL (each serves many requests at once; past a few
    they contend for the database more than they add), one on SQLite, whose writes are
    serialised, and one with an ops port, which only one process can bind."""
    if ops_port is not None or database_url.startswith("sqlite"):
        return 1
    return max(1, min(cpus if cpus is not None else (os.cpu_count() or 1), MAX_DEFAULT_WORKERS))


def port_problem(host: str, port: int) -> str | None:
    """Why the address cannot be listened on (taken, not ours), checked as uvicorn binds
    it, before anything says the service is up."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None
