"""Run a ``pressroom`` command in this process, as a new process would see it.

A command in a process of its own costs an interpreter and pressroom's imports (seconds of
CPU each). In-process, the command gets exactly the environment given (nothing of this
process's own), reads its settings afresh, and leaves the process's settings and flag
overrides as it found them; an exception it did not handle is raised here, where a process
would have died with its traceback.
"""

from __future__ import annotations

import os
import subprocess

from typer.testing import CliRunner

from pressroom import settings
from pressroom.cli.main import app


def run_in_process(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    overrides = dict(settings._overrides)
    settings.get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, args, env={**dict.fromkeys(os.environ), **env})
    finally:
        settings._overrides.clear()
        settings._overrides.update(overrides)
        settings.get_settings.cache_clear()
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)
