"""The OpenAPI document, made to tell the truth about the service.

FastAPI's generator documents things the service does not do (a 422 for invalid input,
where every refusal here is a 400 with the error body) and cannot know what the
service does around the routes. ``refine`` corrects it in one pass:

- 422 goes; 400 ``validation_error`` is listed wherever a parameter or body can be
  refused, 413 ``request_too_large`` wherever there is a JSON body (``guard``), and 503
  ``database_busy`` everywhere, each with the error body's schema;
- every string a client sends that has no stricter rule carries the pattern that
  refuses a NUL, as ``guard`` does;
- operation ids are the route functions' names (``publish_microblog``).

The rules themselves live beside the fields (``text_rules``, ``platforms``): this
module only adds what is true of every route.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from pressroom import error_codes
from pressroom.error_codes import ErrorCode
from pressroom.service.text_rules import NUL_FREE

ERROR_SCHEMA = {"$ref": "#/components/schemas/ErrorResponse"}
_UNUSED = ("HTTPValidationError", "ValidationError")


def operation_id(route: APIRoute) -> str:
    return route.name


def install_openapi(app: FastAPI) -> None:
    """Serve the refined document at ``/openapi.json`` (and so in ``/docs``)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
                webhooks=app.webhooks.routes,
            )
            refine(document)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented hook


def refine(document: dict[str, Any]) -> None:
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            _refine_operation(operation)
    for operations in document.get("webhooks", {}).values():
        for operation in operations.values():  # requests pressroom sends: what it expects back
            operation["responses"] = {"200": {"description": "Any 2xx: the event was received."}}
    schemas = document.get("components", {}).get("schemas", {})
    for name in _UNUSED:
        schemas.pop(name, None)
    for part in (document.get("paths", {}), schemas):
        _walk(part, _narrow_optional)
        _walk(part, _refuse_nul)


def _refine_operation(operation: dict[str, Any]) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    responses.pop("422", None)
    if operation.get("parameters") or "requestBody" in operation:
        _document(responses, error_codes.VALIDATION_ERROR)
    if "application/json" in operation.get("requestBody", {}).get("content", {}):
        _document(responses, error_codes.REQUEST_TOO_LARGE)  # raw uploads have their own
    _document(responses, error_codes.DATABASE_BUSY)


def _document(responses: dict[str, Any], error: ErrorCode) -> None:
    """List ``error`` under its status, beside the codes already listed there."""
    entry = responses.setdefault(
        str(error.status),
        {
            "description": "Error codes: ",
            "content": {"application/json": {"schema": ERROR_SCHEMA}},
        },
    )
    description: str = entry.get("description", "")
    listed = [code for code in description.removeprefix("Error codes: ").split(", ") if code]
    if error.code not in listed:
        listed.append(error.code)
    entry["description"] = "Error codes: " + ", ".join(listed)
    entry.setdefault("content", {"application/json": {"schema": ERROR_SCHEMA}})


_STRING_KEYWORDS = ("minLength", "maxLength", "pattern", "enum", "x-max-graphemes")


def _narrow_optional(schema: dict[str, Any]) -> None:
    """``str | None`` with rules: pydantic writes the rules beside ``anyOf``, where they
    would also bind ``null``; they belong to the string."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list):
        return
    strings = [b for b in branches if isinstance(b, dict) and b.get("type") == "string"]
    if len(strings) != 1:
        return
    for keyword in _STRING_KEYWORDS:
        if keyword in schema:
            strings[0][keyword] = schema.pop(keyword)


def _refuse_nul(schema: dict[str, Any]) -> None:
    if schema.get("type") != "string":
        return
    if not {"pattern", "enum", "const", "format"} & schema.keys():
        schema["pattern"] = NUL_FREE


def _walk(node: Any, visit: Callable[[dict[str, Any]], None]) -> None:
    if isinstance(node, dict):
        visit(node)
        for value in node.values():
            _walk(value, visit)
    elif isinstance(node, list):
        for item in node:
            _walk(item, visit)
