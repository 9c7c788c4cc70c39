"""The campaign format's reference, from ``pipelines/campaign.schema.json`` (itself
written by ``pressroom campaign schema`` from the campaign model, and kept in step with
it by a test)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pressroom.docs.markdown import cell, generated_header, table

SCHEMA = Path("pipelines") / "campaign.schema.json"


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "enum" in schema:
        return " or ".join(f"`{value}`" for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(dict.fromkeys(_type(s) for s in schema[key]))
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if kind == "object" and "properties" in schema:
        return "{" + ", ".join(f"`{name}`" for name in schema["properties"]) + "}"
    return str(kind)


def _fields(schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", []))
    rows = [
        [
            f"`{name}`",
            cell(_type(prop)),
            "yes" if name in required else "",
            cell(prop.get("description", "")),
        ]
        for name, prop in schema.get("properties", {}).items()
    ]
    for pattern, prop in schema.get("patternProperties", {}).items():
        rows.append([f"`{pattern}`", cell(_type(prop)), "", cell(prop.get("description", ""))])
    return table(["key", "type", "required", "meaning"], rows)


def page(root: Path = Path(".")) -> str:
    schema = json.loads((root / SCHEMA).read_text(encoding="utf-8"))
    lines = generated_header(
        "Campaign format reference",
        ["`pipelines/campaign.schema.json`"],
        "Every key of a campaign file, from the JSON Schema editors use for completion "
        "(`pressroom campaign schema` writes it from the campaign model). Lengths are not "
        "in the schema, which would count code points: they are in the descriptions, and "
        "`pressroom campaign validate` checks them as the networks count. "
        "[Writing a campaign](writing.md) explains them with examples.",
    )
    lines += ["## The campaign", "", cell(schema.get("description", "")), ""]
    lines += [*_fields(schema), ""]
    for name, definition in sorted(schema.get("$defs", {}).items()):
        lines += [f"## {name}", ""]
        if definition.get("description"):
            lines += [cell(definition["description"]), ""]
        lines += [*_fields(definition), ""]
    return "\n".join(lines)
