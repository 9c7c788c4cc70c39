"""The ``pressroom`` command's reference, read from the Typer app itself."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pressroom.docs.markdown import cell, generated_header, table


def _root() -> Any:
    import typer.main

    from pressroom.cli.main import app

    return typer.main.get_command(app)


def _walk(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any, bool]]:
    """Every command with its path, and whether it is a group (shown when it has options
    of its own, which come before its commands' on the command line)."""
    subcommands: dict[str, Any] | None = getattr(command, "commands", None)
    if subcommands is None:
        yield path, command, False
        return
    # A group that runs by itself (``pressroom drivers``) is a command too.
    yield path, command, not getattr(command, "invoke_without_command", False)
    for name in sorted(subcommands):
        if not subcommands[name].hidden:
            yield from _walk(subcommands[name], [*path, name])


def commands() -> list[str]:
    """Every command that does something, as typed: ``pressroom campaign validate``."""
    return [" ".join(["pressroom", *path]) for path, _, group in _walk(_root(), []) if not group]


def _row(param: Any) -> list[str]:
    from typer.core import TyperArgument

    if isinstance(param, TyperArgument):
        name = f"`{(param.metavar or param.name or '').upper()}`"
    else:
        name = ", ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
    default = param.default
    shown = (
        ""
        if callable(default) or default in (None, False, ()) or isinstance(param, TyperArgument)
        else f"`{default.value if hasattr(default, 'value') else default}`"
    )
    envvar = param.envvar if isinstance(param.envvar, str) else ""
    return [name, cell(getattr(param, "help", None) or ""), shown, envvar]


def page() -> str:
    lines = generated_header(
        "Command reference",
        ["the Typer app of `src/pressroom/cli/`"],
        "Every command and its options, as `--help` prints them. What the commands share "
        "(exit status, the API key, `--json`) is in [The pressroom command](command.md).",
    )
    for path, command, group in _walk(_root(), []):
        params = [p for p in command.params if not getattr(p, "hidden", False)]
        if group and not params:
            continue
        name = " ".join(["pressroom", *path])
        lines += [f"## `{name}` (options before a command)" if group else f"## `{name}`", ""]
        if command.help:
            lines += [command.help.strip().replace("\b\n", ""), ""]
        if params:
            rows = [_row(p) for p in params]
            lines += table(["argument or option", "meaning", "default", "variable"], rows)
            lines += [""]
    return "\n".join(lines)
