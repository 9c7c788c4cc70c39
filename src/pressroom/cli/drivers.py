"""``pressroom drivers``: which driver serves each platform label, and how to change it."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table


def drivers() -> None:
    """List each platform label's driver: its real network where credentials are set and
    pressroom has a driver for it, the sandbox otherwise."""
    from pressroom.service.drivers import describe
    from pressroom.settings import get_settings

    table = Table("label", "driver", "credentials", "note", title="Platform drivers")
    for choice in describe(get_settings()):
        table.add_row(
            choice.platform.value,
            choice.driver,
            "set" if choice.configured else "-",
            choice.note,
        )
    Console().print(table)
    typer.echo(
        "Real networks need an app registered with them; its redirect URL is "
        f"{get_settings().public_base_url}/oauth/callback/<label>."
    )
