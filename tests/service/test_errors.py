"""The error body of DESIGN.md everywhere, FastAPI's own errors included; OpenAPI."""

from __future__ import annotations

from tests.conftest import Service


def test_unknown_route_has_the_error_body(service: Service) -> None:
    response = service.client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json() == {
        "success": False,
        "error": {
            "code": "not_found",
            "message": "No route matches this path.",
            "field": None,
            "requestId": response.headers["X-Request-ID"],
        },
    }


def test_wrong_method_has_the_error_body(service: Service) -> None:
    response = service.client.delete("/api/connections/unified")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_openapi_and_docs_are_served(service: Service) -> None:
    spec = service.client.get("/openapi.json").json()
    assert "/api/connections/unified" in spec["paths"]
    assert "/api/user/api-key" in spec["paths"]
    documented = spec["paths"]["/api/user/api-key"]["post"]["responses"]
    assert "401" in documented and "403" in documented
    assert service.client.get("/docs").status_code == 200
