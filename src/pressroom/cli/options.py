"""Flags shared by several commands; they feed the same settings as the environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Where the database and files live (env: PRESSROOM_DATA_DIR)."),
]


def apply_overrides(**values: object) -> None:
    """Flags win over the environment: write them to it, then rebuild the settings."""
    from pressroom.settings import get_settings

    for name, value in values.items():
        if value is not None:
            os.environ[f"PRESSROOM_{name.upper()}"] = str(value)
    get_settings.cache_clear()
