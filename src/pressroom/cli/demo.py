"""``pressroom demo``: the main job on the embedded default, nothing to set up by hand."""

from __future__ import annotations

from typing import Annotated

import typer

from pressroom.cli.options import DataDir, apply_overrides


def demo(
    port: Annotated[int, typer.Option(help="Port for the embedded service.")] = 8000,
    data_dir: DataDir = None,
) -> None:
    """Seed a demo account with connections on all eight platforms and run the service."""
    import uvicorn

    from pressroom.service.admin import admin_session, seed_demo
    from pressroom.service.app import create_app
    from pressroom.settings import get_settings

    apply_overrides(data_dir=data_dir, base_url=f"http://127.0.0.1:{port}")
    settings = get_settings()
    with admin_session(settings) as db:
        _, key = seed_demo(db)
    typer.echo(f"pressroom is running at {settings.public_base_url}")
    typer.echo(f"demo API key: {key}")
    typer.echo(
        f"try: curl -H 'X-API-Key: {key}' {settings.public_base_url}/api/connections/unified"
    )
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
