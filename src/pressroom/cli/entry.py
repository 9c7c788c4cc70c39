"""The ``pressroom`` command's entry point: the command starts with the collector held off.

Importing the CLI and parsing its options (typer brings in pydantic) builds objects that
live as long as the process, so collecting while that goes on frees next to nothing: it
cost a ``campaign run`` 40-50 ms in about 140 collections before any of its own code ran
(``benchmarks/README.md``, "eleventh round"). The app's callback, which every command
passes through before its own code, gives the collector back with that heap frozen out
of its later collections (``pressroom.cli.main.collect_again``); a command that stops
earlier (``--help``, ``--version``, a usage error) ends without having collected at all.
"""

from __future__ import annotations

import gc


def run() -> None:
    gc.disable()
    from pressroom.cli.main import run as run_app

    run_app()
