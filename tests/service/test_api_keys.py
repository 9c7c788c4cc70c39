"""Spec 4.5 and 5: API keys, authentication and plans, on both databases."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from fastapi.testclient import TestClient

from pressroom.plans import Plan
from pressroom.service.app import create_app
from pressroom.settings import Settings
from tests.conftest import Service


def test_read_key_echoes_the_key_used(service: Service) -> None:
    account = service.account()
    response = service.client.get("/api/user/api-key", headers=account.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["apiKey"] == account.key
    assert body["createdAt"].endswith("Z")


def test_keys_have_the_live_prefix_and_256_bits(service: Service) -> None:
    account = service.account()
    assert re.fullmatch(r"prk_live_[A-Za-z0-9_-]{43}", account.key)


def test_rotation_invalidates_the_old_key_at_once(service: Service) -> None:
    account = service.account()
    rotated = service.client.post("/api/user/api-key", headers=account.headers)
    assert rotated.status_code == 200
    new_key = rotated.json()["apiKey"]
    assert new_key != account.key and new_key.startswith("prk_live_")

    old = service.client.get("/api/connections/unified", headers=account.headers)
    assert old.status_code == 401
    assert old.json()["error"]["code"] == "invalid_api_key"
    new = service.client.get("/api/user/api-key", headers={"X-API-Key": new_key})
    assert new.status_code == 200 and new.json()["apiKey"] == new_key


def test_a_rotation_on_one_replica_is_seen_by_another_on_its_next_request(
    service: Service, settings: Settings
) -> None:
    """Keys are checked in the database on every request, never cached per process."""
    account = service.account()
    replica = create_app(settings, migrate=False)
    with TestClient(replica) as other:
        assert other.get("/api/user/api-key", headers=account.headers).status_code == 200
        rotated = service.client.post("/api/user/api-key", headers=account.headers)
        new_key = rotated.json()["apiKey"]
        refused = other.get("/api/user/api-key", headers=account.headers)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "invalid_api_key"
        assert other.get("/api/user/api-key", headers={"X-API-Key": new_key}).status_code == 200
    replica.state.engine.dispose()


def test_racing_rotations_with_one_key_let_exactly_one_win(service: Service) -> None:
    account = service.account()

    def rotate(_: int) -> tuple[int, str | None]:
        response = service.client.post("/api/user/api-key", headers=account.headers)
        return response.status_code, response.json().get("apiKey")

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(rotate, range(6)))
    winners = [key for status, key in results if status == 200]
    assert len(winners) == 1, results
    assert sorted(status for status, _ in results) == [200] + [401] * 5
    still_valid = service.client.get("/api/user/api-key", headers={"X-API-Key": winners[0]})
    assert still_valid.status_code == 200


def test_missing_and_invalid_keys_are_401_on_every_route(service: Service) -> None:
    routes = [
        ("GET", "/api/user/api-key"),
        ("POST", "/api/user/api-key"),
        ("GET", "/api/connections/unified"),
        ("GET", "/api/v2/microblog/connections"),
    ]
    for method, path in routes:
        missing = service.client.request(method, path)
        assert missing.status_code == 401, path
        assert missing.json()["error"]["code"] == "missing_api_key"
        wrong = service.client.request(method, path, headers={"X-API-Key": "prk_live_nope"})
        assert wrong.status_code == 401, path
        assert wrong.json() == {
            "success": False,
            "error": {
                "code": "invalid_api_key",
                "message": "The API key is unknown or was rotated out.",
                "field": None,
                "requestId": wrong.headers["X-Request-ID"],
            },
        }


def test_blogger_plan_gets_403_and_cannot_rotate(service: Service) -> None:
    blogger = service.account(Plan.BLOGGER)
    for method, path in [
        ("GET", "/api/user/api-key"),
        ("POST", "/api/user/api-key"),
        ("GET", "/api/connections/unified"),
        ("GET", "/api/v2/microblog/connections"),
    ]:
        response = service.client.request(method, path, headers=blogger.headers)
        assert response.status_code == 403, path
        assert response.json()["error"]["code"] == "plan_without_api_access"
    # The refused rotation changed nothing: the key is still the same (and still 403).
    again = service.client.get("/api/user/api-key", headers=blogger.headers)
    assert again.status_code == 403


def test_agency_plan_has_api_access(service: Service) -> None:
    agency = service.account(Plan.AGENCY)
    assert service.client.get("/api/user/api-key", headers=agency.headers).status_code == 200
