"""No log line of ``pressroom api``, ``pressroom worker`` or ``pressroom demo`` carries a
secret, at DEBUG, with secrets planted where libraries print them.

Real processes, side by side: an API and a worker on one data directory, with a webhook
endpoint whose URL has a secret in its path and its query (a real receiver on loopback),
and the three Meta drivers configured, their connections' tokens about to lapse, so the
token refresher calls Meta's hosts (played by ``tests.support.fake_network`` through
``HTTPS_PROXY``, as a corporate proxy would carry them) with the app secrets and tokens;
and the demo, whose client PUTs to presigned upload URLs, with Prefect at DEBUG too.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from pressroom.plans import Plan
from pressroom.platforms import Platform
from pressroom.service.accounts.service import create_account
from pressroom.service.connections.service import NewConnection, connect
from pressroom.service.db.migrate import upgrade
from pressroom.service.db.models import Connection
from pressroom.service.db.session import make_engine, make_session_factory, transaction
from pressroom.service.oauth.vault import Vault
from pressroom.settings import Settings
from tests.cli.test_api_logs import free_port
from tests.support.fake_network import FakeNetwork, fake_meta
from tests.support.media import make_image

pytestmark = pytest.mark.prefect  # the demo runs its campaign through Prefect

PRESSROOM = (sys.executable, "-m", "pressroom.cli.main")
SECRET_KEY = "SERVICEKEYSECRET-0123456789abcdef"
HOOK_PATH, HOOK_QUERY = "PATHSECRET42", "QSSECRET99"
APP_SECRETS = {
    "page_social": "CLIENTSECRETFB31",
    "photo_sharing": "CLIENTSECRETIG32",
    "text_thread": "CLIENTSECRETTH33",
}
ISSUED = "ISSUEDTOKENSECRET77"
"""What the fake network hands out as every new access token."""
QUERY_SECRET = re.compile(
    r"\b(signature|expires|token|access_token|client_secret|code|fb_exchange_token)=", re.I
)


def test_no_secret_reaches_any_log_line_of_api_worker_or_demo(tmp_path: Path) -> None:
    demo_out = tmp_path / "demo.out"
    with _output(demo_out) as sink:
        demo = subprocess.Popen(  # the longest: it runs while the rest is set up
            [*PRESSROOM, "demo", "--port", str(free_port()), "--data-dir", str(tmp_path / "demo")],
            env=_clean_env()
            | {
                "PRESSROOM_LOG_LEVEL": "debug",
                "PREFECT_LOGGING_LEVEL": "DEBUG",
                "PREFECT_LOGGING_ROOT_LEVEL": "DEBUG",
                "PRESSROOM_PIPELINE_RESULTS_DIR": str(tmp_path / "results"),
                # Its Prefect server stops with it, its output among the lines read here
                # (a kept server would write to a file in the Prefect home instead).
                "PRESSROOM_PIPELINE_PREFECT_IDLE_SECONDS": "0",
            },
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    secrets: set[str] = {SECRET_KEY, HOOK_PATH, HOOK_QUERY, ISSUED, *APP_SECRETS.values()}
    data = tmp_path / "data"
    key, tokens = _account_with_lapsing_meta_tokens(data)
    secrets |= {key, *tokens}
    answer = {
        "id": "17841400000000001",
        "user_id": "17841400000000001",
        "username": "acme",
        "access_token": ISSUED,
        "token_type": "bearer",
        "expires_in": 5184000,
        "data": [],
    }
    (tmp_path / "tls").mkdir()
    with fake_meta(tmp_path / "tls", answer) as network, _receiver() as hooks:
        env = (
            _clean_env()
            | _network_env(network)
            | {
                "PRESSROOM_DATA_DIR": str(data),
                "PRESSROOM_SECRET_KEY": SECRET_KEY,
                "PRESSROOM_LOG_LEVEL": "debug",
                "PRESSROOM_WEBHOOK_DEVELOPMENT": "1",
                "PRESSROOM_WEBHOOK_POLL_SECONDS": "0.2",
                "PRESSROOM_TOKEN_REFRESH_INTERVAL_SECONDS": "1",
            }
        )
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        with (
            _process(["api", "--port", str(port), "--no-worker"], env, tmp_path / "api.out") as api,
            _process(["worker"], env, tmp_path / "worker.out"),
        ):
            _wait_ready(api, base)
            headers = {"X-API-Key": key}
            hook_url = f"http://127.0.0.1:{hooks.port}/hook/{HOOK_PATH}?token={HOOK_QUERY}"
            created = httpx.post(
                f"{base}/api/webhooks",
                json={"url": hook_url, "events": ["file.ready"]},
                headers=headers,
            )
            assert created.status_code in (200, 201), created.text
            secrets.add(created.json()["secret"])
            issued = httpx.post(
                f"{base}/api/upload/presigned-url",
                json={"filename": "cover.png", "contentType": "image/png"},
                headers=headers,
            ).json()
            secrets |= {v[0] for v in parse_qs(urlsplit(issued["uploadUrl"]).query).values()}
            picture = make_image(tmp_path / "cover.png").read_bytes()
            put = httpx.put(
                issued["uploadUrl"], content=picture, headers={"Content-Type": "image/png"}
            )
            assert put.status_code == 200, put.text
            # a secret in a query the service does not even read
            httpx.get(
                f"{base}/api/upload/status/{issued['fileId']}?token={HOOK_QUERY}", headers=headers
            )

            deadline = time.monotonic() + 60
            while not (hooks.paths and len(_refreshes(network)) >= 3):
                assert time.monotonic() < deadline, (hooks.paths, network.calls)
                time.sleep(0.2)
            assert httpx.get(f"{base}/readyz").status_code == 200
        demo.wait(timeout=240)

    # What was sent carried the secrets: in bodies and headers, never in a URL.
    assert hooks.paths[0] == f"/hook/{HOOK_PATH}?token={HOOK_QUERY}"
    bodies = " ".join(f"{call.body} {call.authorization}" for call in network.calls)
    sent = [APP_SECRETS["page_social"], *(t for t in tokens if t.startswith("REFRESH"))]
    assert all(secret in bodies for secret in sent), network.calls
    assert not [c for c in network.calls if QUERY_SECRET.search(c.query)], network.calls

    outputs = {name: (tmp_path / f"{name}.out").read_text() for name in ("api", "worker", "demo")}
    assert demo.returncode == 0, outputs["demo"][-3000:]
    assert "completed: 9 posts: 9 published" in outputs["demo"]
    assert " DEBUG " in outputs["api"]  # /readyz's access lines are debug lines
    leaks = [
        (name, line)
        for name, text in outputs.items()
        for line in text.splitlines()
        if any(secret in line for secret in secrets)
        or QUERY_SECRET.search(line)
        or "prk_live_" in line
        or "prk_test_" in line
        or "/sign-in/link/" in line
    ]
    assert leaks == [], "\n".join(f"{name}: {line}" for name, line in leaks[:20])


def _account_with_lapsing_meta_tokens(data: Path) -> tuple[str, list[str]]:
    """An account with page_social and photo_sharing (and its text_thread twin)
    connected, every token lapsing within a minute; returns its API key and the tokens."""
    settings = Settings(data_dir=data, secret_key=SECRET_KEY)
    data.mkdir(parents=True)
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    sessions = make_session_factory(engine)
    vault = Vault.from_settings(settings)
    tokens: list[str] = []
    with transaction(sessions) as db:
        account, key = create_account(db, email="owner@example.com", plan=Plan.BUSINESS)
        connect(db, account, NewConnection(Platform.PAGE_SOCIAL, "Acme", page_kind="page"))
        connect(db, account, NewConnection(Platform.PHOTO_SHARING, "acme", account_type="business"))
        db.flush()
        for connection in db.query(Connection).filter(Connection.account_id == account.id):
            access, refresh = (
                f"ACCESSSECRET{connection.platform}",
                f"REFRESHSECRET{connection.platform}",
            )
            tokens += [access, refresh]
            connection.access_token_enc = vault.encrypt(access)
            connection.refresh_token_enc = vault.encrypt(refresh)
            connection.access_expires_at = datetime.now(UTC) + timedelta(minutes=1)
    engine.dispose()
    assert len(tokens) == 6, tokens
    return key, tokens


def _refreshes(network: FakeNetwork) -> list[Any]:
    return [c for c in network.calls if "access_token" in c.path]


def _clean_env() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PREFECT_", "PRESSROOM_")) and "PROXY" not in k.upper()
    }


def _network_env(network: FakeNetwork) -> dict[str, str]:
    env = {
        "HTTPS_PROXY": network.proxy_url,
        "SSL_CERT_FILE": str(network.ca_file),
        "NO_PROXY": "127.0.0.1,localhost",
    }
    for label, secret in APP_SECRETS.items():
        env[f"PRESSROOM_{label.upper()}_CLIENT_ID"] = f"app-{label}"
        env[f"PRESSROOM_{label.upper()}_CLIENT_SECRET"] = secret
    return env


@contextmanager
def _output(path: Path) -> Iterator[IO[bytes]]:
    with open(path, "wb") as sink:
        yield sink


@contextmanager
def _process(args: list[str], env: dict[str, str], out: Path) -> Iterator[subprocess.Popen[bytes]]:
    with open(out, "wb") as sink:
        process = subprocess.Popen(
            [*PRESSROOM, *args],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            yield process
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_ready(process: subprocess.Popen[bytes], base: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/readyz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert process.poll() is None and time.monotonic() < deadline, "the API did not start"
        time.sleep(0.1)


class _Hooks:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.port = 0


@contextmanager
def _receiver() -> Iterator[_Hooks]:
    hooks = _Hooks()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            hooks.paths.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    hooks.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield hooks
    finally:
        server.shutdown()
        server.server_close()
