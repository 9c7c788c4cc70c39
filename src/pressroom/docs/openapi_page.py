"""The HTTP API's reference, rendered from the OpenAPI document the service serves at
``/openapi.json``, so it reads offline and cannot drift from the routes."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from pressroom.docs.markdown import cell, generated_header, table

METHODS = ("get", "put", "post", "patch", "delete")


def document() -> dict[str, Any]:
    """The OpenAPI document of an app built on a throwaway data dir (nothing is served)."""
    from pressroom.service.app import create_app
    from pressroom.settings import Settings

    with tempfile.TemporaryDirectory() as data_dir:
        app = create_app(Settings(data_dir=Path(data_dir)), migrate=False)
        return app.openapi()


def operations() -> list[str]:
    """Every operation, as ``GET /api/upload/files``."""
    return [
        f"{method.upper()} {path}"
        for path, item in document()["paths"].items()
        for method in METHODS
        if method in item
    ]


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "enum" in schema:
        return " or ".join(f"`{value}`" for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            kinds = [_type(s) for s in schema[key] if s.get("type") != "null"]
            nullable = any(s.get("type") == "null" for s in schema[key])
            return " or ".join(dict.fromkeys(kinds)) + (" or null" if nullable else "")
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    return str(kind)


def _fields(schema: dict[str, Any], components: dict[str, Any]) -> list[list[str]]:
    if "$ref" in schema:
        schema = components[str(schema["$ref"]).rsplit("/", 1)[-1]]
    required = set(schema.get("required", []))
    return [
        [
            f"`{name}`",
            cell(_type(prop)),
            "yes" if name in required else "",
            cell(prop.get("description", "")),
        ]
        for name, prop in schema.get("properties", {}).items()
    ]


def _operation(method: str, path: str, op: dict[str, Any], components: dict[str, Any]) -> list[str]:
    lines = [f"### `{method.upper()} {path}`", "", f"**{op.get('summary', '')}**", ""]
    if op.get("description"):
        lines += [op["description"].strip(), ""]
    if op.get("parameters"):
        rows = [
            [
                f"`{p['name']}`",
                p["in"],
                "yes" if p.get("required") else "",
                cell(p.get("description") or p.get("schema", {}).get("description", "")),
            ]
            for p in op["parameters"]
        ]
        lines += [*table(["parameter", "in", "required", "meaning"], rows), ""]
    body = op.get("requestBody", {}).get("content", {})
    for content_type, media in body.items():
        schema = media.get("schema", {})
        lines += [f"Body (`{content_type}`): {_type(schema)}", ""]
        rows = _fields(schema, components)
        if rows:
            lines += [*table(["field", "type", "required", "meaning"], rows), ""]
    rows = []
    for status, answer in op.get("responses", {}).items():
        content = answer.get("content", {}).get("application/json", {}).get("schema")
        shape = f" ({_type(content)})" if content else ""
        rows.append([status, cell(answer.get("description", "") + shape)])
    lines += [*table(["status", "answer"], sorted(rows)), ""]
    return lines


def page() -> str:
    spec = document()
    components = spec.get("components", {}).get("schemas", {})
    lines = generated_header(
        "API reference",
        ["the service's OpenAPI document (`/openapi.json`)"],
        "Every route of the HTTP API, grouped as the OpenAPI document groups them. A "
        "running service serves the same document at `/openapi.json`, with Swagger UI at "
        "`/docs` and ReDoc at `/redoc`. The events sent to webhooks are on "
        "[Webhook events](events.md); the error codes on [Error codes](errors.md).",
    )
    description = spec.get("info", {}).get("description", "").strip()
    if description:
        lines += [description, ""]
    by_tag: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                tag = (item[method].get("tags") or ["other"])[0]
                by_tag.setdefault(tag, []).append((method, path, item[method]))
    for tag, ops in by_tag.items():
        lines += [f"## {tag[:1].upper()}{tag[1:]}", ""]
        for method, path, op in ops:
            lines += _operation(method, path, op, components)
    return "\n".join(lines)
