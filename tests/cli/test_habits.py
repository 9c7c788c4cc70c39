"""The ``pressroom`` command's habits: --version, env vars in --help, exit codes as the
documentation says, secrets never required on the command line."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pressroom import __version__
from pressroom.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_version_is_printed_by_the_real_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pressroom.cli.main", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (0, f"pressroom {__version__}\n")


@pytest.mark.parametrize(("arguments", "status"), [(["--version"], 0), (["no-such-command"], 2)])
def test_the_command_exits_with_its_heap_frozen_and_its_exit_handlers_run(
    arguments: list[str], status: int
) -> None:
    """Frozen, the heap is not collected again and again while the interpreter is torn
    down (half a second after a command that imported Prefect); what exit must still do,
    the exit handlers and the exit status, is kept."""
    script = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('at exit, frozen:', gc.get_freeze_count() > 0))\n"
        "from pressroom.cli.main import run\n"
        "sys.argv = ['pressroom', *sys.argv[1:]]\n"
        "run()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *arguments], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == status, done.stderr
    assert done.stdout.endswith("at exit, frozen: True\n")


def test_the_command_starts_without_collecting_and_collects_once_its_code_runs() -> None:
    """Its start (the CLI's imports, typer's parsing) builds what lives as long as the
    process: collecting then frees nothing. The command's own code runs with the
    collector back, that heap frozen out of its collections."""
    campaign = ROOT / "pipelines" / "demo.yaml"
    script = (
        "import atexit, gc, sys\n"
        "from pressroom.cli.entry import run\n"
        "early = []\n"
        "gc.callbacks.append(\n"
        "    lambda phase, info: phase == 'start' and early.append(gc.get_freeze_count() == 0)\n"
        ")\n"
        "atexit.register(lambda: print('collections before the freeze:', sum(early),\n"
        "    'enabled:', gc.isenabled()))\n"
        "sys.argv = ['pressroom', *sys.argv[1:]]\n"
        "run()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "campaign", "validate", str(campaign)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.endswith("collections before the freeze: 0 enabled: True\n")


def test_the_installed_command_starts_at_the_entry_point() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["pressroom"] == "pressroom.cli.entry:run"


@pytest.mark.parametrize(
    ("command", "variables"),
    [
        (
            ["api"],
            [
                "PRESSROOM_DATA_DIR",
                "PRESSROOM_BASE_URL",
                "PRESSROOM_LOG_LEVEL",
                "PRESSROOM_LOG_FORMAT",
            ],
        ),
        (["admin"], ["PRESSROOM_DATA_DIR"]),
        (["demo"], ["PRESSROOM_DATA_DIR"]),
        (["campaign", "plan"], ["PRESSROOM_BASE_URL", "PRESSROOM_API_KEY"]),
        (["campaign", "run"], ["PRESSROOM_BASE_URL", "PRESSROOM_API_KEY"]),
        ([], ["PRESSROOM_DEBUG"]),
    ],
)
def test_help_names_the_environment_variable_of_each_flag(
    command: list[str], variables: list[str]
) -> None:
    shown = runner.invoke(app, [*command, "--help"])
    assert shown.exit_code == 0
    text = re.sub(r"[\s│]+", "", shown.stdout)  # rich wraps the table's cells
    for variable in variables:
        assert f"envvar:{variable}" in text, (command, variable)


def test_flags_reach_settings_without_writing_the_environment() -> None:
    source = (ROOT / "src/pressroom/cli/options.py").read_text()
    assert "os.environ[" not in source


def test_exit_codes_are_the_documented_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (ROOT / "docs" / "service" / "command.md").read_text()
    assert re.search(r"`0`[^\n]*done", page) and re.search(r"`1`[^\n]*failed", page)
    assert re.search(r"`2`[^\n]*command line", page)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PRESSROOM_API_KEY", raising=False)
    monkeypatch.setenv("PRESSROOM_BASE_URL", "http://127.0.0.1:9")
    Path("good.yaml").write_text("name: n\nposts: [{id: a, microblog: {text: hi}}]\n")
    Path("bad.yaml").write_text("name: n\nposts: [{id: a, microblog: {txt: hi}}]\n")

    def code(*args: str) -> int:
        return runner.invoke(app, list(args)).exit_code

    assert code("campaign", "validate", "good.yaml") == 0
    assert code("campaign", "validate", "bad.yaml") == 1  # the work failed
    assert code("campaign", "validate", "--no-such-flag", "good.yaml") == 2
    assert code("api", "--log-level", "loud") == 2
    assert code("no-such-command") == 2
    monkeypatch.setenv("PRESSROOM_OPS_PORT", "9100")  # every worker would bind it
    refused_workers = runner.invoke(app, ["api", "--workers", "2", "--port", "0"])
    assert refused_workers.exit_code == 2
    assert "PRESSROOM_OPS_PORT needs --workers 1" in refused_workers.stderr
    monkeypatch.delenv("PRESSROOM_OPS_PORT")
    # no key in the environment and no terminal to ask in: a usage error, not a prompt
    refused = runner.invoke(app, ["campaign", "plan", "good.yaml"])
    assert refused.exit_code == 2
    assert "set PRESSROOM_API_KEY" in refused.stderr


def test_the_api_key_is_asked_for_in_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from pressroom.cli import options

    monkeypatch.delenv("PRESSROOM_API_KEY", raising=False)
    monkeypatch.setattr(options.sys.stdin, "isatty", lambda: True, raising=False)
    asked: list[tuple[str, bool]] = []

    def prompt(text: str, hide_input: bool = False) -> str:
        asked.append((text, hide_input))
        return "prk_typed"

    monkeypatch.setattr(options.typer, "prompt", prompt)
    assert options.service_key(None) == "prk_typed"
    assert asked == [("API key", True)]


def test_validate_takes_json_and_keeps_the_older_format_json() -> None:
    example = str(ROOT / "pipelines/demo.yaml")
    new = runner.invoke(app, ["campaign", "validate", "--json", example])
    old = runner.invoke(app, ["campaign", "validate", "--format", "json", example])
    assert new.exit_code == old.exit_code == 0
    assert new.stdout == old.stdout == "[]\n"
