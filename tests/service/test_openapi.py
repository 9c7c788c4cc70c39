"""What the OpenAPI document says, read as a FastAPI user would read it."""

from __future__ import annotations

from typing import Any

from pressroom.platforms import MAX_CODE_POINTS_PER_CHARACTER, Platform
from tests.conftest import Service
from tests.support.publish import connect, error_of


def document(service: Service) -> dict[str, Any]:
    spec: dict[str, Any] = service.client.get("/openapi.json").json()
    return spec


def operations(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {op["operationId"]: op for ops in spec["paths"].values() for op in ops.values()}


def string_of(schema: dict[str, Any]) -> dict[str, Any]:
    """The string branch of an optional field (``anyOf``), or the schema itself."""
    for branch in schema.get("anyOf", [schema]):
        if branch.get("type") == "string":
            return dict(branch)
    raise AssertionError(f"no string in {schema}")


def test_errors_are_documented_as_400_with_the_error_body_never_422(service: Service) -> None:
    spec = document(service)
    for name, op in operations(spec).items():
        assert "422" not in op["responses"], name
        for status, answer in op["responses"].items():
            if status.startswith(("4", "5")):
                schema = answer["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorResponse"}, (name, status)
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    publish = operations(spec)["publish_microblog"]["responses"]
    assert "validation_error" in publish["400"]["description"]
    assert "text_too_long" in publish["400"]["description"]
    assert "request_too_large" in publish["413"]["description"]
    assert "database_busy" in publish["503"]["description"]
    assert "platform_unavailable" in publish["503"]["description"]


def test_operation_ids_are_short_and_readable(service: Service) -> None:
    ids = set(operations(document(service)))
    assert {
        "publish_microblog",
        "get_upload_status",
        "create_presigned_url",
        "list_unified_connections",
        "rotate_api_key",
        "list_posts",
    } <= ids


def test_the_api_key_is_a_security_scheme_so_docs_can_authorize(service: Service) -> None:
    spec = document(service)
    assert spec["components"]["securitySchemes"]["APIKeyHeader"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "Your API key, from the dashboard (Settings, API Keys).",
    }
    assert operations(spec)["list_posts"]["security"] == [{"APIKeyHeader": []}]
    assert "security" not in operations(spec)["receive_upload"]  # the signature authorises it


def test_fixed_values_are_enums_and_limits_are_stated(service: Service) -> None:
    schemas = document(service)["components"]["schemas"]
    video = schemas["VideoSharingPublish"]["properties"]
    assert string_of(video["privacyStatus"])["enum"] == ["public", "unlisted", "private"]
    assert video["title"]["x-max-graphemes"] == 100
    assert video["title"]["maxLength"] == 100 * MAX_CODE_POINTS_PER_CHARACTER
    assert video["title"]["minLength"] == 1
    assert schemas["ShortVideoPost"]["properties"]["platform"]["enum"] == ["short_video"]
    assert schemas["FileStatus"]["properties"]["status"]["enum"] == [
        "pending_upload",
        "processing",
        "ready",
        "failed",
    ]
    assert "x-max-graphemes" not in schemas["ProfessionalNetworkPublish"]["properties"]["text"]
    description = string_of(video["description"])
    assert (description["x-max-graphemes"], description["maxLength"]) == (5000, 5000 * 16)
    assert schemas["PostRecord"]["properties"]["status"]["enum"] == [
        "sending",
        "published",
        "failed",
        "unknown",
        "partial",
    ]
    # Threads: the body's `thread`, and the parts of the result and the record.
    assert "thread" in schemas["MicroblogPublish"]["properties"]
    assert "thread" in schemas["TextThreadPublish"]["properties"]
    part = schemas["MicroblogThreadPart"]["properties"]["text"]
    assert (part["x-max-graphemes"], part["minLength"]) == (280, 1)
    assert schemas["TextThreadThreadPart"]["properties"]["text"]["x-max-graphemes"] == 500
    assert set(schemas["Part"]["properties"]) == {
        "index",
        "kind",
        "platformPostId",
        "url",
        "status",
    }
    assert schemas["PartKind"]["enum"] == ["post", "reply", "item", "comment"]
    presign = schemas["PresignRequest"]["properties"]
    assert presign["filename"]["maxLength"] == 255
    assert "video/webm" in presign["contentType"]["enum"]


def test_query_and_header_constraints_are_in_the_document(service: Service) -> None:
    by_name = {
        p["name"]: p["schema"] for p in operations(document(service))["list_posts"]["parameters"]
    }
    assert string_of(by_name["cursor"])["minLength"] == 1
    assert string_of(by_name["platform"])["enum"] == [p.value for p in Platform]
    assert by_name["limit"]["maximum"] == 100
    headers = {
        p["name"]: p["schema"]
        for p in operations(document(service))["publish_microblog"]["parameters"]
    }
    key = string_of(headers["Idempotency-Key"])
    assert (key["minLength"], key["maxLength"]) == (1, 255)


def test_a_text_over_its_code_point_cap_is_too_long_even_within_its_characters(
    service: Service,
) -> None:
    account = service.account()
    # 200 characters as people see them, each an "e" with 30 combining accents.
    heavy = ("e" + "\u0301" * 30) * 200
    response = service.client.post(
        "/api/v2/microblog/publish",
        json={"connectionId": connect(account, Platform.MICROBLOG), "text": heavy},
        headers=account.headers,
    )
    assert response.status_code == 400
    error = error_of(response)
    assert (error["code"], error["field"]) == ("text_too_long", "text")
    assert error["message"].startswith("text is 6,200 code points; microblog allows at most 4,480")


def test_publish_routes_document_their_key_and_idempotency_key_as_fastapi_would(
    service: Service,
) -> None:
    """The publish routes declare them for the document only (``PUBLISH_DOCUMENTED``);
    the thumbnail route declares them as FastAPI parameters: both read the same."""
    paths = service.client.get("/openapi.json").json()["paths"]
    thumbnail = next(p["post"] for name, p in paths.items() if "thumbnail" in name)
    for name, operations in paths.items():
        if name.endswith("/publish") or name == "/api/social/post":
            publish = operations["post"]
            assert publish["parameters"] == thumbnail["parameters"][-1:], name
            assert publish["security"] == thumbnail["security"], name
