"""Shared fixtures: the service on SQLite and on PostgreSQL, and data factories.

Every test that takes ``service`` runs twice, once per database. PostgreSQL comes from
``PRESSROOM_TEST_POSTGRES_URL``; without it those runs skip with the reason, except in
CI (``CI=true``), where a missing server is a failure.
"""

from __future__ import annotations

import gc
import os
import secrets
import signal
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

from pressroom.plans import Plan
from pressroom.service.app import create_app
from pressroom.service.db.base import Base
from pressroom.service.db.migrate import upgrade
from pressroom.service.db.session import normalise_url, transaction
from pressroom.settings import DatabaseSettings, SandboxSettings, Settings, StorageSettings

# The local AT Protocol network (session-scoped, started only by the tests that use it).
pytest_plugins = ("tests.support.atproto",)

# A run's Prefect server stops with its run in every test (the default leaves it for the
# next run for minutes); tests/pipeline/test_prefect_keep.py turns keeping on where it
# tests it.
os.environ["PRESSROOM_PIPELINE_PREFECT_IDLE_SECONDS"] = "0"

POSTGRES_URL = os.environ.get("PRESSROOM_TEST_POSTGRES_URL")
IN_CI = os.environ.get("CI", "").lower() == "true"


def _require_postgres() -> str:
    if POSTGRES_URL:
        return POSTGRES_URL
    if IN_CI:
        pytest.fail("PRESSROOM_TEST_POSTGRES_URL is not set: CI must test on PostgreSQL")
    pytest.skip(
        "PostgreSQL tests need PRESSROOM_TEST_POSTGRES_URL (e.g. postgresql://user@127.0.0.1/db)"
    )


TESTS = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that need a server by what they use, so none is forgotten:
    ``s3`` for the SeaweedFS fixture or the ``s3`` backend parameter, ``atproto`` for the
    local AT Protocol network, ``prefect`` for
    everything under tests/pipeline (its Prefect harness is autouse). ``postgres`` comes
    with the database parameter; modules that start a server themselves mark it. Then
    the files marked ``long`` move to the front."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        if "seaweed" in getattr(item, "fixturenames", ()) or params.get("backend") == "s3":
            item.add_marker(pytest.mark.s3)
        if {"atproto_network", "atproto_lexicons"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.atproto)
        if item.path.is_relative_to(TESTS / "pipeline"):
            item.add_marker(pytest.mark.prefect)
    # Long files first: pytest-xdist hands files out in this order (scripts/test), and a
    # file of minutes taken last would leave one worker running alone at the end.
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A throwaway database on the test server, migrated once for the session."""
    server = _require_postgres()
    name = f"pressroom_test_{secrets.token_hex(4)}"
    admin = create_engine(normalise_url(server), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = normalise_url(server).rsplit("/", 1)[0] + f"/{name}"
    upgrade(url)
    yield url
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file copied for each test: migrating every time is slower."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


def _empty_all(url: str) -> None:
    """Every table emptied and every sequence restarted, as ``TRUNCATE ... RESTART
    IDENTITY`` would; DELETE because the few rows a test leaves go faster than
    TRUNCATE's new files for each table and index (0.06-0.1 s a test against 0.15-0.4 s)."""
    engine = create_engine(url)
    with engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):  # children before parents
            conn.execute(table.delete())
        sequences = conn.execute(
            text("SELECT format('%I.%I', schemaname, sequencename) FROM pg_sequences")
        ).scalars()
        for sequence in list(sequences):
            conn.execute(text(f"ALTER SEQUENCE {sequence} RESTART"))
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path, sqlite_template: Path) -> str:
    if request.param == "sqlite":
        path = tmp_path / "pressroom.db"
        path.write_bytes(sqlite_template.read_bytes())
        return f"sqlite:///{path}"
    url: str = request.getfixturevalue("postgres_database")
    _empty_all(url)
    return url


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        base_url="http://testserver",
        secret_key="test-secret",
        db=DatabaseSettings(database_url=database_url),
        store=StorageSettings(),
        sandbox=SandboxSettings(),
    )


@dataclass
class Service:
    """The running app plus a way to act as the dashboard on its database."""

    client: TestClient
    sessions: sessionmaker[Session]
    settings: Settings

    def account(self, plan: Plan = Plan.BUSINESS, email: str | None = None) -> AccountHandle:
        from pressroom.service.accounts.service import create_account

        with transaction(self.sessions) as db:
            account, key = create_account(
                db, email=email or f"{secrets.token_hex(4)}@example.com", plan=plan
            )
            return AccountHandle(self, account.id, key)


@dataclass
class AccountHandle:
    service: Service
    id: str
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"X-API-Key": self.key}

    def connect(self, platform: str, name: str | None = None, **extra: object) -> str:
        """Connect a social account as the dashboard would; returns its connection id."""
        from pressroom.platforms import Platform
        from pressroom.service.connections.service import NewConnection, connect
        from pressroom.service.db.models import Account

        with transaction(self.service.sessions) as db:
            account = db.get(Account, self.id)
            assert account is not None
            conn = connect(
                db,
                account,
                NewConnection(
                    platform=Platform(platform), name=name or f"@{secrets.token_hex(3)}", **extra
                ),  # type: ignore[arg-type]
            )
            return conn.id

    def move(self, action: str, connection_id: str) -> None:
        from pressroom.service.connections import service

        with transaction(self.service.sessions) as db:
            getattr(service, action)(db, connection_id)

    def get(self, path: str, **kwargs: object) -> object:
        return self.service.client.get(path, headers=self.headers, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def service(settings: Settings) -> Iterator[Service]:
    app = create_app(settings)
    with TestClient(app) as client:
        yield Service(client, app.state.session_factory, settings)
    app.state.engine.dispose()


@pytest.fixture(scope="session", autouse=True)
def _no_prefect_server_kept_after_the_tests(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[None]:
    """A test that runs a command with the default idle time (its environment built
    without ``PRESSROOM_*``) leaves a kept Prefect server for minutes: stop every one
    whose Prefect home is under this session's temporary directory."""
    yield
    root = str(tmp_path_factory.getbasetemp())
    for proc in Path("/proc").iterdir():
        try:
            if b"prefect_kept_server" not in (proc / "cmdline").read_bytes():
                continue
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        homes = [
            v.removeprefix(b"PREFECT_HOME=") for v in environ if v.startswith(b"PREFECT_HOME=")
        ]
        if homes and homes[0].decode().startswith(root):
            os.kill(int(proc.name), signal.SIGTERM)


@pytest.fixture(autouse=True)
def _postgres_pools_closed() -> Iterator[None]:
    """Every PostgreSQL engine a test used gives back its connections when the test
    ends, whoever made it: one left to the garbage collector keeps its pool's
    connections open until a collection reaches it, and a long run meets the server's
    ``max_connections`` ("too many clients already")."""
    used: weakref.WeakSet[Engine] = weakref.WeakSet()

    def seen(connection: Any) -> None:
        used.add(connection.engine)

    event.listen(Engine, "engine_connect", seen)
    yield
    event.remove(Engine, "engine_connect", seen)
    for engine in list(used):
        if engine.dialect.name == "postgresql":
            engine.dispose()


@pytest.fixture(autouse=True)
def _no_frozen_objects_left() -> Iterator[None]:
    """An app that starts freezes what exists (``lifespan.freeze_start_up_objects``):
    in a test run that is every test before it, garbage included, so each test gives
    it back to the collector, and the collector's thresholds as they were."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


@pytest.fixture(autouse=True)
def _no_flag_overrides() -> Iterator[None]:
    """A command run in process leaves its flags' settings behind; each test starts clean."""
    from pressroom.settings import override_settings

    yield
    override_settings()
