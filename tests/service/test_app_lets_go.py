"""An app stopped in-process lets go of its SQLite file: no connection left open.

The reads on the event loop keep a connection per loop, and the group writer one per
loop as well; checked out of the pool, they outlived ``engine.dispose()``, and each held
the database, its write-ahead log and its shared memory open until a garbage collection
reached it. A long test run (an app per test) ran out of file descriptors that way.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

from fastapi.testclient import TestClient

from pressroom.service.app import create_app
from pressroom.settings import DatabaseSettings, SandboxSettings, Settings, StorageSettings
from tests.conftest import Service


def _open_on(path: Path) -> list[str]:
    """This process's descriptors open on the database or its -wal / -shm files."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(path)):
            found.append(target)
    return found


def test_a_stopped_app_holds_no_database_file_open(tmp_path: Path, sqlite_template: Path) -> None:
    database = tmp_path / "pressroom.db"
    database.write_bytes(sqlite_template.read_bytes())
    settings = Settings(
        data_dir=tmp_path / "data",
        base_url="http://testserver",
        secret_key="test-secret",
        db=DatabaseSettings(database_url=f"sqlite:///{database}"),
        store=StorageSettings(),
        sandbox=SandboxSettings(),
    )
    gc.disable()  # what is closed must be closed by the app, not found by a collection
    try:
        with TestClient(create_app(settings)) as client:
            service = Service(client, client.app.state.session_factory, settings)  # type: ignore[attr-defined]
            account = service.account()
            connection_id = account.connect("microblog", "@acme")
            unified = client.get("/api/connections/unified", headers=account.headers)
            assert unified.status_code == 200, unified.text  # a read on the loop
            published = client.post(
                "/api/v2/microblog/publish",
                headers={**account.headers, "Idempotency-Key": "lets-go-1"},
                json={"connectionId": connection_id, "text": "hello"},
            )
            assert published.status_code == 200, published.text  # the loop's writer
            assert _open_on(database)  # the app had its file open while it ran
        assert _open_on(database) == []
    finally:
        gc.enable()
