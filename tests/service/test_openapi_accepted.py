"""The OpenAPI document says what the service accepts: every request valid by the
document is taken, and what the service refuses the document refuses too (schemathesis
found six schema-valid requests refused: ``cursor=0`` on four lists, ``0.GIF`` as
``video/webm``, and ``graceSeconds: 6357.0``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import Service
from tests.service.test_openapi import document, operations, string_of
from tests.support.publish import error_of

LISTS = ["list_posts", "list_files", "list_folders", "list_folder_files"]


def cursor_pattern(spec: dict[str, Any], operation_id: str) -> str:
    parameters = operations(spec)[operation_id]["parameters"]
    schema = next(p["schema"] for p in parameters if p["name"] == "cursor")
    pattern: str = string_of(schema)["pattern"]
    return pattern


def list_path(service: Service, operation_id: str, headers: dict[str, str]) -> str:
    if operation_id != "list_folder_files":
        return {"list_posts": "/api/posts", "list_files": "/api/upload/files"}.get(
            operation_id, "/api/upload/folders"
        )
    made = service.client.post("/api/upload/folders", json={"name": "Launch"}, headers=headers)
    return f"/api/upload/folders/{made.json()['id']}/files"


@pytest.mark.parametrize("operation_id", LISTS)
def test_a_cursor_is_accepted_exactly_when_the_document_says_so(
    service: Service, operation_id: str
) -> None:
    account = service.account()
    path = list_path(service, operation_id, account.headers)
    pattern = cursor_pattern(document(service), operation_id)
    for cursor in ("0.x", "1764150000123456.post_0123abcd", "9999999999999999.-", "0." + "a" * 64):
        assert re.search(pattern, cursor), cursor
        answer = service.client.get(path, params={"cursor": cursor}, headers=account.headers)
        assert answer.status_code == 200, (cursor, answer.text)
    for cursor in ("0", "x", "not-a-cursor", "0.", ".x", "1.a.b", "12345678901234567.x"):
        assert not re.search(pattern, cursor), cursor
        answer = service.client.get(path, params={"cursor": cursor}, headers=account.headers)
        assert answer.status_code == 400, (cursor, answer.text)
        assert error_of(answer)["field"] == "cursor"


def test_the_cursors_the_service_issues_fit_the_pattern_and_page_on(service: Service) -> None:
    account = service.account()
    for n in range(3):
        service.client.post("/api/upload/folders", json={"name": f"F{n}"}, headers=account.headers)
    pattern = cursor_pattern(document(service), "list_folders")
    first = service.client.get("/api/upload/folders?limit=2", headers=account.headers).json()
    assert re.search(pattern, first["nextCursor"])
    rest = service.client.get(
        "/api/upload/folders",
        params={"limit": 2, "cursor": first["nextCursor"]},
        headers=account.headers,
    ).json()
    assert [f["name"] for f in first["folders"] + rest["folders"]] == ["F2", "F1", "F0"]
    assert rest["nextCursor"] is None


@pytest.mark.parametrize(
    ("filename", "content_type", "accepted"),
    [
        ("0.GIF", "video/webm", False),
        ("0.GIF", "image/gif", True),
        ("clip.WebM", "video/webm", True),
        ("photo.jpeg", "image/jpeg", True),
        ("photo.jpg", "image/png", False),
        ("movie.qt", "video/quicktime", True),
        ("movie.mp4", "video/quicktime", False),
    ],
)
def test_the_presign_schema_ties_the_extension_to_the_content_type(
    service: Service, filename: str, content_type: str, accepted: bool
) -> None:
    spec = document(service)
    schema = spec["components"]["schemas"]["PresignRequest"]
    body = {"filename": filename, "contentType": content_type}
    assert Draft202012Validator(schema).is_valid(body) is accepted
    account = service.account()
    answer = service.client.post("/api/upload/presigned-url", json=body, headers=account.headers)
    assert answer.status_code == (200 if accepted else 400), answer.text
    if not accepted:
        assert error_of(answer)["field"] == "filename"


def test_an_integer_field_takes_a_whole_number_written_with_a_fraction(service: Service) -> None:
    """JSON Schema's integer is any number without a fraction, 6357.0 included."""
    account = service.account()
    made = service.client.post(
        "/api/webhooks", json={"url": "https://hooks.example.com/x"}, headers=account.headers
    )
    assert made.status_code == 201, made.text
    path = f"/api/webhooks/{made.json()['webhook']['id']}/rotate-secret"
    before = datetime.now(UTC)
    rotated = service.client.post(path, json={"graceSeconds": 6357.0}, headers=account.headers)
    assert rotated.status_code == 200, rotated.text
    expires = datetime.fromisoformat(rotated.json()["webhook"]["previousSecretExpiresAt"])
    assert 6356 <= (expires - before).total_seconds() <= 6360
    for refused in (6357.5, "6357", True, 1e300):
        answer = service.client.post(path, json={"graceSeconds": refused}, headers=account.headers)
        assert answer.status_code == 400, (refused, answer.text)
        assert error_of(answer)["field"] == "graceSeconds"
