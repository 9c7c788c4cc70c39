"""``pressroom api``: run the HTTP service."""

from __future__ import annotations

from typing import Annotated

import typer

from pressroom.cli.errors import fail
from pressroom.cli.options import DataDir, apply_overrides


def api(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    data_dir: DataDir = None,
    workers: Annotated[
        int, typer.Option(help="Worker processes (PostgreSQL for more than 1).")
    ] = 1,
    base_url: Annotated[
        str | None, typer.Option(help="Public address (env: PRESSROOM_BASE_URL).")
    ] = None,
) -> None:
    """Start the service (FastAPI on uvicorn), applying migrations first."""
    import os

    import uvicorn

    from pressroom.service.db.migrate import upgrade
    from pressroom.settings import get_settings

    if problem := port_problem(host, port):
        fail(f"cannot listen on {host}:{port}: {problem} (try --port)")
    if base_url is None and "PRESSROOM_BASE_URL" not in os.environ:
        base_url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    apply_overrides(data_dir=data_dir, base_url=base_url)
    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.database_url)
    typer.echo(f"pressroom service on {settings.public_base_url} (data in {settings.data_dir})")
    uvicorn.run(
        "pressroom.service.asgi:app", host=host, port=port, workers=workers, log_level="warning"
    )


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
