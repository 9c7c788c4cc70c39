"""Flags shared by several commands; they feed the same settings as the environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir", envvar="PRESSROOM_DATA_DIR", help="Where the database and files live."
    ),
]


def apply_overrides(**values: object) -> None:
    """Flags win over the environment: the settings of this process are rebuilt with them
    (typer has already read each flag's ``envvar=`` when the flag was not given)."""
    from pressroom.settings import override_settings

    override_settings(**values)


BaseUrl = Annotated[
    str | None,
    typer.Option("--base-url", help="Service address (env: PRESSROOM_BASE_URL)."),
]
ApiKey = Annotated[str | None, typer.Option("--api-key", help="API key (env: PRESSROOM_API_KEY).")]


def service_address(base_url: str | None) -> str:
    """The one rule for every command that calls the service: ``--base-url``, else
    ``PRESSROOM_BASE_URL``, else a clear refusal (no silent default port)."""
    from pressroom.cli.errors import fail

    url = base_url or os.environ.get("PRESSROOM_BASE_URL")
    if not url:
        fail(
            "no service address: pass --base-url or set PRESSROOM_BASE_URL "
            "(e.g. http://127.0.0.1:8000)"
        )
    return url.rstrip("/")


def service_key(api_key: str | None, *, offline_hint: bool = False) -> str:
    from pressroom.cli.errors import fail

    key = api_key or os.environ.get("PRESSROOM_API_KEY")
    if not key:
        fail(
            "no API key: pass --api-key or set PRESSROOM_API_KEY"
            + (", or use --offline" if offline_hint else "")
        )
    return key
