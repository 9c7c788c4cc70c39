"""The settings reference: every ``PRESSROOM_*`` variable of ``pressroom.settings`` and
of the pipeline's ``PipelineSettings``, with its default, what it accepts and what it
means (the field's docstring)."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import annotated_types
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from pressroom.docs.markdown import cell, generated_header, table
from pressroom.docs.source import attribute_docstrings

SOURCES = ("`src/pressroom/settings.py`", "`src/pressroom/pipeline/config.py`")


def _groups() -> list[tuple[str, str, type[BaseSettings], set[str]]]:
    """(heading, prefix, class, fields left out) in the order the page shows them."""
    from pressroom.pipeline.config import PipelineSettings
    from pressroom.settings import (
        DatabaseSettings,
        NetworkSettings,
        OpsSettings,
        SandboxSettings,
        Settings,
        StorageSettings,
    )

    nested = {"db", "store", "sandbox", "ops", "networks"}
    return [
        ("Service", "PRESSROOM_", Settings, nested),
        ("Database", "PRESSROOM_", DatabaseSettings, set()),
        ("Storage", "PRESSROOM_", StorageSettings, set()),
        ("Operations", "PRESSROOM_", OpsSettings, set()),
        ("Sandbox", "PRESSROOM_", SandboxSettings, set()),
        ("Networks", "PRESSROOM_", NetworkSettings, set()),
        ("Pipeline", "PRESSROOM_PIPELINE_", PipelineSettings, set()),
    ]


def _meaning(name: str, docs: dict[str, str]) -> str:
    if name in docs:
        return docs[name]
    for end, what in (("_client_id", "client id"), ("_client_secret", "client secret")):
        if name.endswith(end):
            label = name.removesuffix(end)
            return (
                f"The {what} of the app registered with {label}'s network; with both the id "
                f"and the secret set, {label} publishes to the real network instead of the "
                "sandbox."
            )
    raise LookupError(f"setting {name!r} has no docstring: say what it means in its class")


def _default(field: FieldInfo) -> str:
    value = field.default
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, Path):
        value = str(value)
    if value == "":
        return "empty"
    return f"`{value}`"


def _allowed(field: FieldInfo) -> str:
    args = [a for a in typing.get_args(field.annotation) if a is not type(None)]
    if typing.get_origin(field.annotation) is typing.Literal:
        return " or ".join(f"`{choice}`" for choice in typing.get_args(field.annotation))
    kind = field.annotation if not args else args[0]
    words = {bool: "`1` or `0`", int: "a whole number", float: "a number", Path: "a path"}
    bounds: list[str] = []
    for item in field.metadata:
        if isinstance(item, annotated_types.Ge):
            bounds.append(f"at least {item.ge:g}")
        elif isinstance(item, annotated_types.Gt):
            bounds.append(f"more than {item.gt:g}")
        elif isinstance(item, annotated_types.Le):
            bounds.append(f"at most {item.le:g}")
        elif getattr(item, "pattern", None):
            bounds.append(f"matching `{item.pattern}`")
    described = words.get(kind, "text") if isinstance(kind, type) else "text"
    return ", ".join([described, *bounds])


def setting_names() -> list[str]:
    """Every variable the page lists, in its order."""
    names: list[str] = []
    for _, prefix, cls, left_out in _groups():
        names += [prefix + n.upper() for n in cls.model_fields if n not in left_out]
    return names


def page() -> str:
    lines = generated_header(
        "Settings",
        SOURCES,
        "Every setting is an environment variable; `pressroom api`, `pressroom worker` and "
        "the other commands also take the common ones as flags (a flag wins; `--help` "
        "names each flag's variable). A bool is `1` or `0` (`true` and `false` work too). "
        "The client reads `PRESSROOM_BASE_URL` and `PRESSROOM_API_KEY` "
        "([Python client](../client/index.md)).",
    )
    for heading, prefix, cls, left_out in _groups():
        docs = {name: inspect.cleandoc(text) for name, text in attribute_docstrings(cls).items()}
        lines += [f"## {heading}", ""]
        summary = inspect.getdoc(cls)
        if summary and cls.__doc__ is not None and cls.__doc__ != BaseSettings.__doc__:
            lines += [cell(summary.split("\n\n", 1)[0]), ""]
        rows = [
            [
                f"`{prefix}{name.upper()}`",
                _default(field),
                cell(_allowed(field)),
                cell(_meaning(name, docs)),
            ]
            for name, field in cls.model_fields.items()
            if name not in left_out
        ]
        lines += [*table(["variable", "default", "accepts", "meaning"], rows), ""]
    return "\n".join(lines)
