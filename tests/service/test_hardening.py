"""Whatever a client sends gets a 4xx or an honest 503, never a 500, and nothing is lost."""

from __future__ import annotations

import sqlite3

import pytest
from fastapi.testclient import TestClient

from pressroom import error_codes
from pressroom.service.app import create_app
from pressroom.settings import Settings
from tests.conftest import Service


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_database_busy_past_its_bound_is_a_transient_503(
    settings: Settings, database_url: str
) -> None:
    settings.db.database_busy_timeout_seconds = 0.2
    app = create_app(settings)
    with TestClient(app) as client:
        key = Service(client, app.state.session_factory, settings).account().key
        holder = sqlite3.connect(database_url.removeprefix("sqlite:///"), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            response = client.post(
                "/api/upload/folders", json={"name": "Launch"}, headers={"X-API-Key": key}
            )
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "database_busy"
        assert response.headers["Retry-After"] == "1"
        assert error_codes.is_transient(503, "database_busy")
        # Nothing was half-done: the same request succeeds once the lock is free.
        again = client.post(
            "/api/upload/folders", json={"name": "Launch"}, headers={"X-API-Key": key}
        )
        assert again.status_code == 201, again.text
        listed = client.get("/api/upload/folders", headers={"X-API-Key": key}).json()
        assert [f["name"] for f in listed["folders"]] == ["Launch"]
    app.state.engine.dispose()
