"""The README's client script: it runs as printed, on recordings now and on the real service.

The script is read from README.md itself, so the README cannot drift from what works.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

import pressroom.client
from pressroom.service.app import create_app
from pressroom.settings import Settings
from tests.client.hosted import API_KEY, BASE_URL, Hosted, body_of
from tests.conftest import Service
from tests.support.media import make_video

README = Path(__file__).resolve().parents[2] / "README.md"
PLATFORMS = ["video_sharing", "short_video", "page_social"]


def readme_script() -> str:
    section = README.read_text().split("## Python client", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "the Python client section has a python block"
    return found.group(1)


def test_the_script_is_short() -> None:
    lines = [line for line in readme_script().splitlines() if line.strip()]
    assert len(lines) <= 16


def test_the_readme_script_runs_on_the_hosted_recordings(
    hosted: Hosted,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    hosted.answer(
        "GET",
        re.escape(BASE_URL) + "/api/connections/unified",
        200,
        [{"id": 100 + n, "platform": p, "name": f"acme {p}"} for n, p in enumerate(PLATFORMS)],
    )
    http = httpx.Client(transport=hosted.transport())

    class RecordedClient(pressroom.client.Client):
        def __init__(self, **options: Any) -> None:
            super().__init__(http_client=http, poll_interval=0, **options)

    monkeypatch.setattr(pressroom.client, "Client", RecordedClient)
    monkeypatch.setenv("PRESSROOM_BASE_URL", BASE_URL)
    monkeypatch.setenv("PRESSROOM_API_KEY", API_KEY)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "launch.mp4").write_bytes(b"a video")

    exec(compile(readme_script(), "README.md", "exec"), {"__name__": "__main__"})

    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == PLATFORMS
    assert all(re.match(r"\S+ https://\S+$", line) for line in printed), printed
    publishes = [r for r in hosted.requests if r.url.path.endswith(("/publish", "/post"))]
    assert [r.headers["Idempotency-Key"] for r in publishes] == [f"launch-{p}" for p in PLATFORMS]
    assert [body_of(r)["connectionId"] for r in publishes] == ["100", "101", "102"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def live_service(settings: Settings) -> Iterator[tuple[Service, str]]:
    """The real app on a real socket, in a thread: the script runs in another process."""
    port = _free_port()
    address = f"http://127.0.0.1:{port}"
    app = create_app(settings.model_copy(update={"base_url": address}))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        threading.Event().wait(0.02)
    from fastapi.testclient import TestClient

    yield Service(TestClient(app), app.state.session_factory, settings), address
    server.should_exit = True
    thread.join(timeout=10)
    app.state.engine.dispose()


def _has_routes(service: Service, *paths: str) -> bool:
    known = {getattr(route, "path", None) for route in service.client.app.routes}  # type: ignore[attr-defined]
    return all(path in known for path in paths)


def test_a_default_client_talks_to_the_service_over_a_real_socket(
    live_service: tuple[Service, str],
) -> None:
    service, address = live_service
    account = service.account()
    ids = {account.connect(platform, f"acme {platform}") for platform in PLATFORMS}
    with pressroom.client.Client(base_url=address, api_key=account.key) as client:
        assert {c.id for c in client.list_connections()} == ids
        assert client.get_api_key().api_key.get_secret_value() == account.key


def test_the_readme_script_runs_against_the_embedded_service(
    live_service: tuple[Service, str], tmp_path: Path
) -> None:
    service, address = live_service
    if not _has_routes(service, "/api/upload/presigned-url", "/api/social/post"):
        pytest.skip("the media and publishing routes are not in this service yet")
    account = service.account()
    for platform in PLATFORMS:
        account.connect(platform, f"acme {platform}")
    make_video(tmp_path / "launch.mp4", 3.5)

    env = {**os.environ, "PRESSROOM_BASE_URL": address, "PRESSROOM_API_KEY": account.key}
    done = subprocess.run(
        [sys.executable, "-c", readme_script()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert [line.split()[0] for line in printed] == PLATFORMS, done.stdout
    assert all(re.match(r"\S+ https?://\S+$", line) for line in printed), done.stdout
