"""Flags shared by several commands; they feed the same settings as the environment."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
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
    typer.Option("--base-url", envvar="PRESSROOM_BASE_URL", help="Service address."),
]
ApiKey = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        envvar="PRESSROOM_API_KEY",
        show_envvar=True,
        help="API key; better in the environment (a flag shows in ps and shell history). "
        "Asked for when neither is given in a terminal.",
    ),
]


def service_address(base_url: str | None) -> str:
    """The one rule for every command that calls the service: ``--base-url``, else
    ``PRESSROOM_BASE_URL``, else a clear refusal (no silent default port), exit 2."""
    from pressroom.cli.errors import usage_error

    url = base_url or os.environ.get("PRESSROOM_BASE_URL")
    if not url:
        usage_error(
            "no service address: pass --base-url or set PRESSROOM_BASE_URL "
            "(e.g. http://127.0.0.1:8000)"
        )
    return url.rstrip("/")


def service_key(api_key: str | None, *, offline_hint: bool = False) -> str:
    """``PRESSROOM_API_KEY`` (or ``--api-key``), else asked for, unseen, in a terminal; a
    secret is never required on the command line."""
    from pressroom.cli.errors import usage_error

    key = api_key or os.environ.get("PRESSROOM_API_KEY")
    if not key and sys.stdin.isatty():
        key = typer.prompt("API key", hide_input=True).strip()
    if not key:
        usage_error(
            "no API key: set PRESSROOM_API_KEY (or run in a terminal to be asked for it)"
            + (", or use --offline" if offline_hint else "")
        )
    return key


class LogLevel(StrEnum):
    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    CRITICAL = "critical"


class LogFormat(StrEnum):
    PLAIN = "plain"
    JSON = "json"


LogLevelFlag = Annotated[
    LogLevel,
    typer.Option(
        envvar="PRESSROOM_LOG_LEVEL", case_sensitive=False, help="The least severe lines logged."
    ),
]
LogFormatFlag = Annotated[
    LogFormat,
    typer.Option(
        envvar="PRESSROOM_LOG_FORMAT",
        case_sensitive=False,
        help="plain lines for a terminal, or json: one object a line.",
    ),
]
