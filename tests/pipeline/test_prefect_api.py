"""Which Prefect API a ``campaign run`` uses: its own temporary server, started beside the
plan and gone with the command, unless Prefect's settings or ``pressroom serve`` name one."""

from __future__ import annotations

import http.server
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pressroom.pipeline import prefect_api, prefect_registry, prefect_settings
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.pipeline.test_prefect_server import pressroom
from tests.pipeline.test_prefect_settings import BATCHED, server_settings

CAMPAIGN = "name: temp-server\nposts:\n  - id: hello\n    microblog: {text: hi}\n"


def processes_with_home(home: Path) -> list[int]:
    """Processes whose environment has ``PREFECT_HOME=home`` (Linux /proc)."""
    wanted = f"PREFECT_HOME={home}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if wanted in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_run_with_no_server_named_uses_a_temporary_one_that_leaves_with_it(
    live_service: LiveService, write_campaign: WriteCampaign, tmp_path: Path
) -> None:
    live_service.connect("microblog", "@acme")
    home = tmp_path / "prefect-home"
    done = pressroom("campaign", "run", str(write_campaign(CAMPAIGN)), api_url=None, home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 posts: 1 published" in done.stdout or "1 post: 1 published" in done.stdout
    # The server had no UI and is gone: no dead "View at" link, the way to see it instead.
    assert "View at" not in done.stdout + done.stderr
    assert f"PREFECT_HOME={home} prefect server start" in done.stdout
    assert processes_with_home(home) == []
    assert "stays for the next run" not in done.stdout  # keeping is off in the tests
    # The run was recorded where that hint looks.
    with sqlite3.connect(home / "prefect.db") as db:
        states = db.execute("SELECT state_type FROM flow_run").fetchall()
    assert states == [("COMPLETED",)]


def test_a_campaign_refused_before_the_run_leaves_no_server_behind(
    live_service: LiveService, write_campaign: WriteCampaign, tmp_path: Path
) -> None:
    home = tmp_path / "prefect-home"
    broken = write_campaign("name: broken\nposts:\n  - id: x\n    microblog: {}\n")
    done = pressroom("campaign", "run", str(broken), api_url=None, home=home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip() == f"error: 1 error in {broken}: nothing was run"
    assert "Traceback" not in done.stdout + done.stderr
    # The server was started beside the checks (its database seeded in the home), and
    # stopped when they refused the campaign.
    assert (home / "prefect.db").is_file()
    assert processes_with_home(home) == []


@pytest.fixture
def health_server() -> Iterator[str]:
    """Something answering ``/api/health`` as a Prefect server does."""

    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            ok = self.path == "/api/health"
            self.send_response(200 if ok else 404)
            self.end_headers()
            self.wfile.write(b"true")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api"
    server.shutdown()


def test_the_server_serve_registered_is_used_only_while_it_answers(
    health_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    assert prefect_registry.registered_server() is None
    path = prefect_registry.register(health_server)
    assert json.loads(path.read_text()) == {"api_url": health_server, "pid": os.getpid()}
    assert prefect_registry.registered_server() == health_server

    # Its process gone (a pid no process has): not used, though the address answers.
    path.write_text(json.dumps({"api_url": health_server, "pid": 2**22 + 1}))
    assert prefect_registry.registered_server() is None

    # Alive but not answering: not used.
    prefect_registry.register("http://127.0.0.1:9/api")
    assert prefect_registry.registered_server() is None

    prefect_registry.unregister()
    assert not path.exists()


def test_the_api_named_by_the_environment_or_the_active_profile_is_seen_without_prefect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("PREFECT_PROFILE", raising=False)
    monkeypatch.delenv("PREFECT_PROFILES_PATH", raising=False)
    assert prefect_api.configured_api_url() is None

    (tmp_path / "profiles.toml").write_text(
        'active = "remote"\n'
        '[profiles.local]\nPREFECT_API_URL = "http://local:4200/api"\n'
        '[profiles.remote]\nPREFECT_API_URL = "http://remote:4200/api"\n'
    )
    assert prefect_api.configured_api_url() == "http://remote:4200/api"
    monkeypatch.setenv("PREFECT_PROFILE", "local")
    assert prefect_api.configured_api_url() == "http://local:4200/api"
    monkeypatch.setenv("PREFECT_API_URL", "http://env:4200/api")
    assert prefect_api.configured_api_url() == "http://env:4200/api"


def test_the_temporary_server_started_before_the_run_is_prepared_writes_in_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``campaign run`` starts its server beside its checks, before it applies its own
    Prefect settings: the server is given pressroom's server settings itself."""
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    for name in prefect_settings.SERVER:
        monkeypatch.delenv(name, raising=False)
    server = prefect_api._own_server()
    try:
        services = server_settings(server.wait_ready(timeout=180))
    finally:
        server.stop()
    for (service, field), value in BATCHED.items():
        assert services[service][field] == value, (service, field)


def test_a_kept_server_is_used_only_from_its_own_python_and_prefect(
    health_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    path = prefect_registry.register(health_server, kept=True)
    entry = json.loads(path.read_text())
    assert entry["kept"] is True
    assert prefect_registry.registered_server() == health_server
    # With keeping turned off, a run starts its own rather than use it.
    assert prefect_registry.registered_server(kept=False) is None
    # Another environment's server (another Prefect), or another Python: not used.
    path.write_text(json.dumps({**entry, "prefect": "2.0.0"}))
    assert prefect_registry.registered_server() is None
    path.write_text(json.dumps({**entry, "executable": "/elsewhere/bin/python"}))
    assert prefect_registry.registered_server() is None


def test_a_process_removes_only_its_own_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path))
    path = tmp_path / prefect_registry.REGISTRY_NAME
    path.write_text(json.dumps({"api_url": "http://127.0.0.1:9/api", "pid": os.getpid() + 1}))
    prefect_registry.unregister()
    assert path.exists()
