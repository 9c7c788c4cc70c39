"""The client page's script: it runs as printed, on recordings and on the real service.

The script is read from docs/client/index.md itself, so the page cannot drift from what works.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import pressroom.client
from pressroom.settings import Settings
from tests.client.hosted import API_KEY, BASE_URL, Hosted, body_of
from tests.client.live import Live, live_service
from tests.support.media import make_video

CLIENT_PAGE = Path(__file__).resolve().parents[2] / "docs" / "client" / "index.md"
PLATFORMS = ["video_sharing", "short_video", "page_social"]


def page_script() -> str:
    section = CLIENT_PAGE.read_text().split("# Python client", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "the Python client section has a python block"
    return found.group(1)


def test_the_script_is_short_and_does_what_the_page_promises() -> None:
    tree = ast.parse(page_script())
    statements = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    assert len(statements) <= 12, "about a dozen lines of real code"
    calls = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert {"upload", "publish", "connections_for"} <= calls
    caught = [
        handler.type.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Try)
        for handler in node.handlers
        if isinstance(handler.type, ast.Name)
    ]
    assert caught == ["ValidationError", "PressroomError"], "errors are caught by kind"


def test_the_page_script_runs_on_the_hosted_recordings(
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

    exec(compile(page_script(), "docs/client/index.md", "exec"), {"__name__": "__main__"})

    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in printed] == PLATFORMS
    assert all(re.match(r"\S+ https://\S+$", line) for line in printed), printed
    publishes = [r for r in hosted.requests if r.url.path.endswith(("/publish", "/post"))]
    assert [r.headers["Idempotency-Key"] for r in publishes] == [f"launch-{p}" for p in PLATFORMS]
    assert [body_of(r)["connectionId"] for r in publishes] == ["100", "101", "102"]


@pytest.fixture
def live(settings: Settings) -> Iterator[Live]:
    with live_service(settings) as running:
        yield running


def test_a_default_client_talks_to_the_service_over_a_real_socket(live: Live) -> None:
    account = live.service.account()
    ids = {account.connect(platform, f"acme {platform}") for platform in PLATFORMS}
    with pressroom.client.Client(base_url=live.address, api_key=account.key) as client:
        assert {c.id for c in client.list_connections()} == ids
        assert client.get_api_key().api_key.get_secret_value() == account.key


def test_the_page_script_runs_against_the_embedded_service(live: Live, tmp_path: Path) -> None:
    account = live.service.account()
    connections = {
        platform: account.connect(platform, f"acme {platform}") for platform in PLATFORMS
    }
    make_video(tmp_path / "launch.mp4", 3.5)

    env = {**os.environ, "PRESSROOM_BASE_URL": live.address, "PRESSROOM_API_KEY": account.key}
    done = subprocess.run(
        [sys.executable, "-c", page_script()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout.splitlines()
    assert [line.split()[0] for line in printed] == PLATFORMS, done.stdout
    assert all(re.match(r"\S+ https://\S+$", line) for line in printed), done.stdout

    # What the service recorded: one post per platform, under the script's keys.
    with pressroom.client.Client(base_url=live.address, api_key=account.key) as client:
        posts = {post.platform: post for post in client.iter_posts()}
        (video,) = list(client.iter_files())
    assert set(posts) == set(PLATFORMS)
    for platform in PLATFORMS:
        post = posts[platform]
        assert (post.status, post.connection_id) == ("published", connections[platform])
        assert (post.idempotency_key, post.file_id) == (f"launch-{platform}", video.file_id)
        assert f"{platform} {post.url}" in printed
    assert (video.filename, video.status) == ("launch.mp4", "ready")
