"""Request ids, health and metrics, on the real app in process."""

from __future__ import annotations

import logging
import re
import socket
from pathlib import Path

import httpx
import pytest
from alembic import command
from alembic.script import ScriptDirectory
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from pressroom.platforms import Platform
from pressroom.service.app import create_app
from pressroom.service.db.migrate import alembic_config
from pressroom.settings import OpsSettings, Settings
from tests.conftest import Service
from tests.support.publish import publish, valid_body


def scrape(
    client: httpx.Client, path: str = "/metrics"
) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    response = client.get(path)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


# -- request ids ---------------------------------------------------------------------


def test_every_answer_carries_a_request_id_made_when_none_was_sent(service: Service) -> None:
    first = service.client.get("/healthz")
    second = service.client.get("/api/connections/unified")  # 401: no key
    ids = {first.headers["X-Request-ID"], second.headers["X-Request-ID"]}
    assert len(ids) == 2 and all(len(i) == 32 for i in ids)
    assert second.json()["error"]["requestId"] == second.headers["X-Request-ID"]


def test_a_proxys_sane_request_id_is_kept_and_reaches_the_error_body(service: Service) -> None:
    sent = "edge-7f3a:42/req=1"
    response = service.client.get("/api/connections/unified", headers={"X-Request-ID": sent})
    assert response.status_code == 401
    assert response.headers["X-Request-ID"] == sent
    assert response.json()["error"] == {
        "code": "missing_api_key",
        "message": "Send your API key in the X-API-Key header.",
        "field": None,
        "requestId": sent,
    }


@pytest.mark.parametrize("sent", ["x" * 129, "line\tbreak", "caf\u00e9", " "])
def test_an_insane_request_id_is_replaced(service: Service, sent: str) -> None:
    response = service.client.get(
        "/api/nothing",
        headers=[("X-Request-ID", sent.encode("utf-8"))],  # type: ignore[list-item]
    )
    made = response.headers["X-Request-ID"]
    assert made != sent and len(made) == 32
    assert response.json()["error"]["requestId"] == made


def test_the_guard_and_the_last_resort_handler_name_the_request_too(service: Service) -> None:
    too_deep = "[" * 40 + "]" * 40
    refused = service.client.post(
        "/api/user/api-key",
        content=too_deep,
        headers={"X-Request-ID": "deep-1", "Content-Type": "application/json"},
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["requestId"] == "deep-1"
    assert refused.headers["X-Request-ID"] == "deep-1"


def test_log_lines_of_a_request_carry_its_id(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    from pressroom.service.ops.logs import RequestIdFilter

    account = service.account()
    caplog.handler.addFilter(RequestIdFilter())
    with caplog.at_level(logging.INFO, logger="pressroom.access"):
        service.client.get(
            f"/api/upload/status/{'file_unknown'}?x=secret",
            headers={**account.headers, "X-Request-ID": "log-1"},
        )
    (line,) = [r for r in caplog.records if r.name == "pressroom.access"]
    assert line.request_id == "log-1"  # type: ignore[attr-defined]
    assert line.path == "/api/upload/status/{file_id}"  # type: ignore[attr-defined]
    assert line.status == 404 and line.accountId == account.id  # type: ignore[attr-defined]
    assert "file_unknown" not in line.getMessage() and "secret" not in line.getMessage()


# -- health --------------------------------------------------------------------------


def test_health_and_readiness_answer_and_stay_out_of_openapi(service: Service) -> None:
    assert service.client.get("/healthz").json() == {"status": "ok"}
    ready = service.client.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json() == {
        "status": "ready",
        "checks": {"database": "ok", "storage": "ok", "migrations": "ok", "process": "ok"},
    }
    paths = service.client.get("/openapi.json").json()["paths"]
    assert not {"/healthz", "/readyz", "/metrics"} & set(paths)


def test_readyz_fails_when_migrations_are_behind(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'behind.db'}"
    command.upgrade(alembic_config(url), "head")
    command.downgrade(alembic_config(url), "-1")
    app = create_app(_settings(tmp_path, url), migrate=False)
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 200  # alive, though not ready
        response = client.get("/readyz", headers={"X-Request-ID": "ready-1"})
    app.state.engine.dispose()
    assert response.status_code == 503
    body = response.json()
    assert body["error"]["code"] == "not_ready" and body["error"]["requestId"] == "ready-1"
    assert body["checks"]["database"] == "ok" and body["checks"]["storage"] == "ok"
    scripts = ScriptDirectory.from_config(alembic_config(url))
    head = scripts.get_current_head()
    assert head is not None
    behind = scripts.get_revision(head).down_revision
    assert body["checks"]["migrations"].startswith(f"the database is at {behind}, head is {head}")
    assert "migrations" in body["error"]["message"]


def test_readyz_fails_when_the_database_does_not_answer(tmp_path: Path) -> None:
    app = create_app(
        _settings(tmp_path, f"sqlite:///{tmp_path / 'no' / 'such' / 'x.db'}"), migrate=False
    )
    with TestClient(app) as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"].startswith("unreachable")
    assert str(tmp_path) not in response.text and "/no/such" not in response.text


def test_readyz_fails_and_uploads_answer_503_when_the_media_directory_is_gone(
    service: Service,
) -> None:
    """The store's directory vanished (a volume unmounted): not ready, and an upload is
    a transient 503 ``storage_unavailable`` (not a 500); the directory is not made
    again behind the operator's back."""
    import shutil

    media = service.settings.data_dir / "media"
    issued = service.client.post(
        "/api/upload/presigned-url",
        json={"filename": "a.png", "contentType": "image/png"},
        headers=service.account().headers,
    ).json()
    assert service.client.get("/readyz").status_code == 200
    shutil.rmtree(media)

    ready = service.client.get("/readyz")
    assert ready.status_code == 503, ready.text
    checks = ready.json()["checks"]
    assert checks["storage"].startswith("cannot store files")
    assert checks["database"] == checks["migrations"] == "ok"
    assert str(service.settings.data_dir) not in ready.text and "media" not in ready.text

    put = service.client.put(
        issued["uploadUrl"], content=b"\x89PNG", headers={"Content-Type": "image/png"}
    )
    assert put.status_code == 503, put.text
    assert put.json()["error"]["code"] == "storage_unavailable"
    assert put.headers["Retry-After"] == "30"
    assert str(service.settings.data_dir) not in put.text
    assert not media.exists()


@pytest.mark.parametrize("how", ["removed", "replaced"])
def test_readyz_fails_when_the_sqlite_file_is_removed_or_replaced(tmp_path: Path, how: str) -> None:
    """The open connections would go on with the unlinked file (and lose every write at
    exit) while new ones open whatever is at the path now: not ready either way."""
    database = tmp_path / "pressroom.db"
    app = create_app(_settings(tmp_path, f"sqlite:///{database}"))
    with TestClient(app) as client:
        assert client.get("/readyz").status_code == 200
        aside = tmp_path / "aside.db"
        database.rename(aside)
        if how == "replaced":
            aside.with_name("copy.db").write_bytes(aside.read_bytes())
            aside.with_name("copy.db").rename(database)
        response = client.get("/readyz")
    app.state.engine.dispose()
    assert response.status_code == 503, response.text
    assert response.json()["checks"]["database"] == (
        f"the database file was {how} while the service had it open"
    )
    assert str(tmp_path) not in response.text


# -- metrics -------------------------------------------------------------------------


def test_a_publish_shows_in_the_metrics(service: Service) -> None:
    account = service.account()
    body = valid_body(account, Platform.MICROBLOG)
    before = scrape(service.client)
    assert publish(account, Platform.MICROBLOG, body, key="k-1").status_code == 200
    replayed = publish(account, Platform.MICROBLOG, body, key="k-1")
    assert replayed.headers["Idempotent-Replayed"] == "true"
    after = scrape(service.client)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("pressroom_publishes_total", platform="microblog", outcome="published") == 1
    assert grew("pressroom_idempotent_replays_total") == 1
    route = "/api/v2/microblog/publish"
    assert grew("pressroom_http_requests_total", method="POST", route=route, status="200") == 2
    assert grew("pressroom_http_request_duration_seconds_count", method="POST", route=route) == 2
    # labels name route templates, never a raw path
    routes = {dict(labels)["route"] for _, labels in after if "route" in dict(labels)}
    assert routes and not [r for r in routes if re.search(r"_[0-9a-f]{24}|\?", r)], routes


def test_uploads_and_processing_show_in_the_metrics(service: Service) -> None:
    from tests.support.media import make_image
    from tests.support.uploads import upload_file

    image = make_image(service.settings.data_dir.parent / "cover.png")
    before = scrape(service.client)
    assert upload_file(service.client, service.account().headers, image)["status"] == "ready"
    after = scrape(service.client)

    def grew(name: str, outcome: str) -> float:
        return value(after, name, outcome=outcome) - value(before, name, outcome=outcome)

    assert grew("pressroom_upload_duration_seconds_count", "received") == 1
    assert grew("pressroom_processing_duration_seconds_count", "ready") == 1


def test_metrics_can_be_turned_off(tmp_path: Path) -> None:
    settings = _settings(tmp_path, None, ops=OpsSettings(metrics=False))
    app = create_app(settings)
    with TestClient(app) as client:
        assert client.get("/metrics").status_code == 404
        assert client.get("/healthz").status_code == 200
    app.state.engine.dispose()


def test_the_ops_port_serves_health_and_metrics_instead(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(_settings(tmp_path, None, ops=OpsSettings(ops_port=port)))
    with TestClient(app) as client:
        assert client.get("/healthz").status_code == 404
        assert client.get("/metrics").status_code == 404
        client.get("/api/connections/unified")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as ops:
            assert ops.get("/healthz").json() == {"status": "ok"}
            assert ops.get("/readyz").status_code == 200
            samples = scrape(ops)
            assert ops.get("/healthz").headers["X-Request-ID"]
    app.state.engine.dispose()
    route = "/api/connections/unified"
    assert (
        value(samples, "pressroom_http_requests_total", method="GET", route=route, status="401")
        >= 1
    )
    with pytest.raises(httpx.ConnectError):  # stopped with the app
        httpx.get(f"http://127.0.0.1:{port}/healthz")


def _settings(tmp_path: Path, database_url: str | None, ops: OpsSettings | None = None) -> Settings:
    from pressroom.settings import DatabaseSettings

    return Settings(
        data_dir=tmp_path / "data",
        base_url="http://testserver",
        secret_key="test-secret",
        db=DatabaseSettings(database_url=database_url),
        ops=ops or OpsSettings(),
    )
