"""The pipeline against the real service over HTTP, on a real (ephemeral) Prefect.

One Prefect test harness serves the whole session (it takes seconds to start); each test
gets its own service on a free port, its own account and its own pipeline state.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest
import uvicorn
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pressroom.pipeline.runner import prepare_prefect
from pressroom.plans import Plan
from pressroom.platforms import Platform
from pressroom.service.accounts.service import create_account
from pressroom.service.app import create_app
from pressroom.service.connections.service import NewConnection, connect
from pressroom.service.db.models import Account, Post, SandboxDelivery
from pressroom.service.db.session import transaction
from pressroom.service.http_protocol import PROTOCOL
from pressroom.settings import DatabaseSettings, SandboxSettings, Settings, StorageSettings


@pytest.fixture(scope="session", autouse=True)
def prefect_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    os.environ["PREFECT_HOME"] = str(tmp_path_factory.mktemp("prefect-home"))
    os.environ.pop("PREFECT_API_URL", None)
    prepare_prefect()  # the settings a real run has, the server's batched writes included
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
    from prefect.testing.utilities import prefect_test_harness

    with (
        prefect_test_harness(server_startup_timeout=180),
        temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}),
    ):
        yield


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveService:
    base_url: str
    settings: Settings
    sessions: sessionmaker[Session]
    app: Any = None
    """The app itself, in this process: its sandbox drivers can be made to refuse a part."""
    key: str = ""
    account_id: str = ""
    connections: dict[str, str] = field(default_factory=dict)

    def connect(self, platform: str, name: str, **extra: object) -> str:
        with transaction(self.sessions) as db:
            account = db.get(Account, self.account_id)
            assert account is not None
            made = connect(
                db, account, NewConnection(platform=Platform(platform), name=name, **extra)
            )  # type: ignore[arg-type]
            self.connections[name] = made.id
            return made.id

    def deliveries(self) -> list[SandboxDelivery]:
        with transaction(self.sessions, write=False) as db:
            return list(db.scalars(select(SandboxDelivery).order_by(SandboxDelivery.id)))

    def stored_path(self, key: str) -> Path:
        """Where the service's local storage keeps the object ``key``."""
        return self.settings.data_dir / "media" / key

    def posts(self) -> list[Post]:
        with transaction(self.sessions, write=False) as db:
            return list(db.scalars(select(Post).order_by(Post.created_at)))


@pytest.fixture
def live_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sqlite_template: Path
) -> Iterator[LiveService]:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    database = tmp_path / "service.db"
    database.write_bytes(sqlite_template.read_bytes())  # migrated once for the session
    settings = Settings(
        data_dir=tmp_path / "service",
        base_url=base_url,
        secret_key="pipeline-tests",
        db=DatabaseSettings(database_url=f"sqlite:///{database}"),
        store=StorageSettings(),
        # A fixed seed: the sandbox's transient failures fall the same way on every run, so
        # a test of retries does not pass or fail by chance (seed 4's first draws fail,
        # and no draw sequence of its first 300 fails more than 6 times in a row at 0.6).
        # No dedupe by client token: most networks have none, and with it a second send
        # of the same post would hide instead of failing the exactly-once tests.
        sandbox=SandboxSettings(sandbox_seed=4, sandbox_dedupe=False),
    )
    app = create_app(settings)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", http=PROTOCOL)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "service did not start"
        time.sleep(0.02)
    live = LiveService(base_url, settings, app.state.session_factory, app)
    with transaction(live.sessions) as db:
        account, key = create_account(db, email="editor@example.com", plan=Plan.AGENCY)
        live.key, live.account_id = key, account.id
    monkeypatch.setenv("PRESSROOM_BASE_URL", base_url)
    monkeypatch.setenv("PRESSROOM_API_KEY", key)
    monkeypatch.setenv("PRESSROOM_PIPELINE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("PRESSROOM_PIPELINE_RESULTS_DIR", str(tmp_path / "results"))
    monkeypatch.setenv("PRESSROOM_PIPELINE_POLL_SECONDS", "0.2")
    yield live
    server.should_exit = True
    thread.join(timeout=10)
    app.state.engine.dispose()


class WriteCampaign(Protocol):
    def __call__(self, text: str, name: str = "campaign.yaml") -> Path: ...


@pytest.fixture
def write_campaign(tmp_path: Path) -> WriteCampaign:
    def write(text: str, name: str = "campaign.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write
