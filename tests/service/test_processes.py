"""Processes sharing a database see each other; local storage is refused across hosts."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from pressroom.service import processes
from pressroom.service.app import create_app
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import ServiceProcess
from pressroom.service.db.session import transaction
from pressroom.settings import Settings
from tests.conftest import Service


def other(host: str, storage: str, *, age: timedelta = timedelta(0)) -> ServiceProcess:
    beat = utcnow() - age
    return ServiceProcess(
        id=f"proc_{host}_{storage}",
        host=host,
        pid=4242,
        kind="api",
        storage=storage,
        started_at=beat,
        heartbeat_at=beat,
    )


def rows(service: Service) -> list[ServiceProcess]:
    with transaction(service.sessions, write=False) as db:
        return list(db.scalars(select(ServiceProcess).order_by(ServiceProcess.id)))


def add(service: Service, *found: ServiceProcess) -> None:
    with transaction(service.sessions) as db:
        db.add_all(found)


def test_a_running_app_is_registered_with_a_heartbeat_and_leaves_when_it_stops(
    settings: Settings, service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.process_heartbeat_seconds = 0.05
    app = create_app(settings, migrate=False)
    with TestClient(app):
        mine = app.state.registration.id
        [me] = [p for p in rows(service) if p.id == mine]
        assert (me.pid, me.kind, me.storage) == (os.getpid(), "api", "local")
        first = me.heartbeat_at
        app.state.registration._stop.wait(0.3)
        [me] = [p for p in rows(service) if p.id == mine]
        assert me.heartbeat_at > first
    assert mine not in {p.id for p in rows(service)}


def test_local_storage_is_refused_beside_a_live_process_on_another_host(
    settings: Settings, service: Service
) -> None:
    add(service, other("render-2", "s3"))
    app = create_app(settings, migrate=False)
    with (
        pytest.raises(processes.StorageNotShared, match=r"on render-2 .*PRESSROOM_STORAGE=s3"),
        TestClient(app),
    ):
        pass
    assert app.state.registration.id not in {p.id for p in rows(service)}


def test_no_host_joins_a_database_whose_files_are_on_another_hosts_disk(
    settings: Settings, service: Service
) -> None:
    add(service, other("render-2", "local"))
    s3 = settings.model_copy(update={"store": settings.store.model_copy(update={"storage": "s3"})})
    me = processes.Registration(service.sessions, s3.store.storage)
    with pytest.raises(processes.StorageNotShared, match=r"render-2 .* keeps its files on local"):
        me.start()


def test_a_dead_process_elsewhere_or_a_live_one_here_does_not_stand_in_the_way(
    settings: Settings, service: Service
) -> None:
    here = processes.Registration(service.sessions, "local").host
    add(
        service,
        other("render-2", "local", age=processes.STALE_AFTER + timedelta(seconds=5)),
        other(here, "local"),
    )
    app = create_app(settings, migrate=False)
    with TestClient(app):
        found = {p.id: p.host for p in rows(service)}
        assert app.state.registration.id in found
        assert "render-2" not in found.values(), "the stale row elsewhere was removed"
