"""Expected failures are one clear line; ``pressroom --debug`` shows their traceback.

Expected: a wrong or missing key, an unreachable service, an invalid campaign file, a
missing file. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer

_debug = False


def set_debug(enabled: bool) -> None:
    global _debug
    _debug = enabled


def debugging() -> bool:
    return _debug or os.environ.get("PRESSROOM_DEBUG", "") not in ("", "0")


def fail(message: str) -> NoReturn:
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(1)


def usage_error(message: str) -> NoReturn:
    """A command line that cannot work as given: exit status 2, as click's own."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(2)


@contextmanager
def expected_errors() -> Iterator[None]:
    """Turn the expected failures raised inside into ``error: …`` and exit status 1."""
    from pressroom.campaign import CampaignInvalid
    from pressroom.client import APIError, PressroomError, TransportError
    from pressroom.pipeline.prefect_keep import InvalidSetting

    try:
        yield
    except (typer.Exit, typer.Abort):
        raise
    except (
        PressroomError,
        CampaignInvalid,
        InvalidSetting,
        FileNotFoundError,
        PermissionError,
    ) as exc:
        if debugging():
            raise
        if isinstance(exc, APIError):
            fail(f"the service answered {exc.status}: {exc.message}")
        if isinstance(exc, TransportError):
            fail(f"cannot reach the service: {exc}")
        fail(str(exc).splitlines()[0] if isinstance(exc, CampaignInvalid) else str(exc))
