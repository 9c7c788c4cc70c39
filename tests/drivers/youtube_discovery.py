"""Check a request against YouTube's own machine-readable description of its API.

google-api-python-client ships the Data API v3 discovery document
(``googleapiclient/discovery_cache/documents/youtube.v3.json``): each method's HTTP verb,
path, query parameters (which are required, which values an enum allows), the request
body's schema, and for uploads the accepted content types. A request the driver makes
is held to it, so a misspelt parameter or body field fails here and not on YouTube.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import httpx

UPLOAD_PREFIX = "upload/"


@cache
def document() -> dict[str, Any]:
    path = resources.files("googleapiclient") / "discovery_cache/documents/youtube.v3.json"
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


def method(resource: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = document()["resources"][resource]["methods"][name]
    return found


def check(request: httpx.Request, resource: str, name: str, *, upload: bool = False) -> None:
    """Raise AssertionError naming what in ``request`` the document does not allow."""
    spec = method(resource, name)
    assert request.method == spec["httpMethod"], (request.method, spec["httpMethod"])
    path = request.url.path.lstrip("/")
    expected = (UPLOAD_PREFIX if upload else "") + spec["path"]
    assert path == expected, (path, expected)
    allowed = spec.get("parameters", {}) | document()["parameters"]
    sent = dict(request.url.params)
    for parameter in sent:
        assert parameter in allowed, f"{resource}.{name} has no parameter {parameter!r}"
        enum = allowed[parameter].get("enum")
        assert enum is None or sent[parameter] in enum, (parameter, sent[parameter], enum)
    for parameter, described in spec.get("parameters", {}).items():
        if described.get("required"):
            assert parameter in sent, f"{resource}.{name} requires {parameter!r}"
    if upload:
        media = spec["mediaUpload"]
        assert sent.get("uploadType") in {*media["protocols"], "media"}, sent.get("uploadType")


def check_upload_type(content_type: str, resource: str, name: str) -> None:
    accepted = method(resource, name)["mediaUpload"]["accept"]
    major = content_type.split("/")[0]
    assert content_type in accepted or f"{major}/*" in accepted, (content_type, accepted)


def check_body(body: dict[str, Any], schema: str) -> None:
    """Every field of ``body`` exists in ``schema`` (recursively), enum values allowed."""
    properties = document()["schemas"][schema]["properties"]
    for field, value in body.items():
        assert field in properties, f"{schema} has no field {field!r}"
        described = properties[field]
        if "$ref" in described and isinstance(value, dict):
            check_body(value, described["$ref"])
        elif "enum" in described:
            assert value in described["enum"], (schema, field, value, described["enum"])
        elif described.get("type") == "boolean":
            assert isinstance(value, bool), (schema, field, value)
        elif described.get("type") == "string":
            assert isinstance(value, str), (schema, field, value)
