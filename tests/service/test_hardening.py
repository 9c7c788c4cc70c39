"""Whatever a client sends gets a 4xx or an honest 503, never a 500, and nothing is lost."""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from fastapi.testclient import TestClient

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service.app import create_app
from pressroom.service.db.models import Post
from pressroom.service.db.session import transaction
from pressroom.service.guard import json_depth
from pressroom.service.media import service as media_service
from pressroom.service.ops import metrics
from pressroom.settings import Settings
from tests.conftest import Service
from tests.service.test_media_live import MIB, api_key, live_service
from tests.support.publish import connect, deliveries, error_of

if TYPE_CHECKING:
    from tests.support.library import Library

pytest_plugins = ("tests.support.library",)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_database_busy_past_its_bound_is_a_transient_503(
    settings: Settings, database_url: str
) -> None:
    settings.db.database_busy_timeout_seconds = 0.2
    app = create_app(settings)
    with TestClient(app) as client:
        key = Service(client, app.state.session_factory, settings).account().key
        busy_before = metrics.DATABASE_BUSY._value.get()
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
        scraped = client.get("/metrics").text
        assert f"pressroom_database_busy_total {busy_before + 1}" in scraped
        # Nothing was half-done: the same request succeeds once the lock is free.
        again = client.post(
            "/api/upload/folders", json={"name": "Launch"}, headers={"X-API-Key": key}
        )
        assert again.status_code == 201, again.text
        listed = client.get("/api/upload/folders", headers={"X-API-Key": key}).json()
        assert [f["name"] for f in listed["folders"]] == ["Launch"]
    app.state.engine.dispose()


# Text that cannot be stored is refused at the door


def post_raw(service: Service, path: str, raw: str, headers: dict[str, str]) -> httpx.Response:
    """POST a JSON body written by hand, so it can hold escapes json.dumps never makes."""
    return service.client.post(
        path, content=raw.encode(), headers={**headers, "Content-Type": "application/json"}
    )


def test_a_lone_surrogate_in_post_text_is_refused_and_nothing_is_sent(service: Service) -> None:
    account = service.account()
    connection_id = connect(account, Platform.MICROBLOG)
    raw = '{"connectionId": "' + connection_id + '", "text": "hello \\ud800"}'
    for headers in (account.headers, {**account.headers, "Idempotency-Key": "k-1"}):
        response = post_raw(service, "/api/v2/microblog/publish", raw, headers)
        assert response.status_code == 400, response.text
        error = error_of(response)
        assert error["code"] == "validation_error"
        assert error["field"] == "text"
        assert "lone surrogate" in error["message"]
    assert deliveries(service) == []
    assert service.client.get("/api/posts", headers=account.headers).status_code == 200

    # A surrogate pair that belongs together is an emoji like any other.
    pair = '{"connectionId": "' + connection_id + '", "text": "hello \\ud83d\\ude00"}'
    sent = post_raw(service, "/api/v2/microblog/publish", pair, account.headers)
    assert sent.status_code == 200, sent.text
    assert deliveries(service)[0].payload["fields"]["text"] == "hello 😀"


@pytest.mark.parametrize(
    ("path", "raw", "field"),
    [
        ("/api/upload/folders", '{"name": "Launch \\udc00"}', "name"),
        ("/api/upload/folders", '{"name": "Launch \\u0000"}', "name"),
        (
            "/api/upload/presigned-url",
            '{"filename": "a\\ud800.png", "contentType": "image/png"}',
            "filename",
        ),
        ("/api/upload/folders", '{"name": "ok", "extra": ["\\ud800"]}', "extra.0"),
    ],
)
def test_unstorable_text_in_any_body_field_is_a_400_naming_it(
    service: Service, path: str, raw: str, field: str
) -> None:
    account = service.account()
    response = post_raw(service, path, raw, account.headers)
    assert response.status_code == 400, response.text
    assert error_of(response)["field"] == field
    assert error_of(response)["code"] == "validation_error"


@pytest.mark.parametrize(
    ("query", "field"),
    [("idempotencyKey=%00", "idempotencyKey"), ("cursor=a%00b", "cursor")],
)
def test_a_nul_in_a_query_parameter_is_a_400_on_both_databases(
    service: Service, query: str, field: str
) -> None:
    account = service.account()
    response = service.client.get(f"/api/posts?{query}", headers=account.headers)
    assert response.status_code == 400, response.text
    assert error_of(response)["field"] == field


def test_a_record_stored_with_a_lone_surrogate_never_breaks_a_read(service: Service) -> None:
    account = service.account()
    connection_id = connect(account, Platform.MICROBLOG)
    published = post_raw(
        service,
        "/api/v2/microblog/publish",
        '{"connectionId": "' + connection_id + '", "text": "fine"}',
        account.headers,
    ).json()
    with transaction(service.sessions) as db:  # as an older version could have stored it
        post = db.get(Post, published["recordId"])
        assert post is not None
        post.request = {"connectionId": connection_id, "text": "bad \ud800"}
    listed = service.client.get("/api/posts", headers=account.headers)
    assert listed.status_code == 200, listed.text
    assert listed.json()["posts"][0]["request"]["text"] == "bad \ufffd"
    one = service.client.get(f"/api/posts/{published['recordId']}", headers=account.headers)
    assert one.status_code == 200, one.text


# Size and shape of a body


def test_a_body_over_the_limit_is_a_413_before_it_is_parsed(
    settings: Settings, database_url: str
) -> None:
    settings.max_body_bytes = 64 * 1024
    app = create_app(settings)
    with TestClient(app) as client:
        key = Service(client, app.state.session_factory, settings).account().key
        big = b'{"name": "' + b"x" * (64 * 1024) + b'"}'
        declared = client.post(
            "/api/upload/folders",
            content=big,
            headers={"X-API-Key": key, "Content-Type": "application/json"},
        )
        assert declared.status_code == 413
        assert error_of(declared)["code"] == "request_too_large"

        def streamed() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            yield big[:40_000]
            yield big[40_000:]

        chunked = client.post(
            "/api/upload/folders",
            content=streamed(),
            headers={"X-API-Key": key, "Content-Type": "application/json"},
        )
        assert chunked.status_code == 413
        assert error_of(chunked)["code"] == "request_too_large"
        listed = client.get("/api/upload/folders", headers={"X-API-Key": key}).json()
        assert listed["folders"] == []
    app.state.engine.dispose()


@pytest.mark.parametrize("with_key", [False, True])
def test_json_nested_past_32_levels_is_a_400(service: Service, with_key: bool) -> None:
    account = service.account()
    headers = dict(account.headers)
    if with_key:
        headers["Idempotency-Key"] = "deep-1"
    deep = '{"connectionId": "c", "text": ' + "[" * 1000 + "]" * 1000 + "}"
    response = post_raw(service, "/api/v2/microblog/publish", deep, headers)
    assert response.status_code == 400, response.text
    assert error_of(response)["code"] == "validation_error"
    assert "32 levels" in error_of(response)["message"]
    # 32 levels is still only the route's business (here: the wrong type for text).
    shallow = '{"connectionId": "c", "text": ' + "[" * 31 + "]" * 31 + "}"
    assert post_raw(service, "/api/v2/microblog/publish", shallow, headers).status_code == 400


def test_json_depth_skips_brackets_inside_strings() -> None:
    assert json_depth(b'{"a": "[[[[[[{{{{"}') == 1
    assert json_depth(b'{"a": "\\"[[[", "b": [[1]]}') == 3
    assert json_depth(b"plain") == 0


# Signatures, methods, foreign ids, leftovers


@pytest.mark.parametrize("signature", ["%C3%A9", "%E2%82%AC" * 20, "%FF", "abc"])
def test_any_signature_that_is_not_ours_is_a_403(service: Service, signature: str) -> None:
    response = service.client.put(
        f"/storage/upload/file_x?expires=1&signature={signature}",
        content=b"x",
        headers={"Content-Type": "image/png"},
    )
    assert response.status_code == 403, response.text
    assert error_of(response)["code"] == "invalid_upload_signature"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/api/upload/folders", "GET, POST"),
        ("PUT", "/api/upload/file/file_x", "DELETE, PATCH"),
        ("POST", "/api/upload/folders/fld_x", "DELETE, PATCH"),
        ("DELETE", "/api/user/api-key", "GET, POST"),
    ],
)
def test_405_names_every_method_the_path_takes(
    service: Service, method: str, path: str, allowed: str
) -> None:
    response = service.client.request(method, path)
    assert response.status_code == 405
    assert response.headers["Allow"] == allowed
    assert error_of(response)["code"] == "method_not_allowed"


def test_an_unexpected_error_is_the_json_body_and_does_not_end_the_connection(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starlette's last-resort handler re-raises after answering, and the server then
    drops the keep-alive connection; the app must answer without raising."""
    account = service.account()

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(media_service, "list_files", broken)
    with TestClient(service.client.app, raise_server_exceptions=True) as client:
        response = client.get("/api/upload/files", headers=account.headers)
    assert response.status_code == 500
    assert error_of(response)["code"] == "internal_error"


def test_filtering_posts_by_a_foreign_or_unknown_connection_is_a_404(service: Service) -> None:
    mine, theirs = service.account(), service.account()
    own_id = connect(mine, Platform.MICROBLOG)
    foreign_id = connect(theirs, Platform.MICROBLOG)
    for connection_id in (foreign_id, "conn_unknown"):
        response = service.client.get(
            f"/api/posts?connectionId={connection_id}", headers=mine.headers
        )
        assert response.status_code == 404, response.text
        assert error_of(response) == {
            "code": "connection_not_found",
            "message": f"No connection {connection_id!r} in this account.",
            "field": "connectionId",
        }
    own = service.client.get(f"/api/posts?connectionId={own_id}", headers=mine.headers)
    assert own.status_code == 200
    assert own.json()["posts"] == []


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_a_second_put_to_a_used_url_leaves_no_partial_file(library: Library) -> None:
    account = library.account()
    issued = library.presign(account, "a.png")
    first = library.put(issued["uploadUrl"], b"\x89PNG first", "image/png")
    assert first.status_code == 200
    second = library.put(issued["uploadUrl"], b"\x89PNG second", "image/png")
    assert second.status_code == 409
    assert error_of(second)["code"] == "upload_url_used"
    tmp = library.settings.data_dir / "media" / "tmp"
    assert list(tmp.glob("*.part")) == []


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_huge_bodies_are_refused_while_they_stream_in_flat_memory(
    database_url: str, tmp_path: Path
) -> None:
    """Four 200 MB bodies at once, two declared and two chunked, against a live service."""
    with live_service(tmp_path / "data", database_url) as live:
        key = api_key(database_url)
        httpx.get(f"{live.base_url}/api/upload/files", headers={"X-API-Key": key})
        baseline = live.memory_kib("VmHWM")
        host, port = live.base_url.removeprefix("http://").split(":")

        def send_huge(chunked: bool) -> bytes:
            size, piece = 200 * MIB, b"x" * MIB
            head = (
                f"POST /api/upload/folders HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {key}\r\n"
                "Content-Type: application/json\r\n"
                + ("Transfer-Encoding: chunked\r\n" if chunked else f"Content-Length: {size}\r\n")
                + "\r\n"
            ).encode()
            with socket.create_connection((host, int(port)), timeout=30) as sock:
                sock.sendall(head)
                try:
                    for _ in range(size // MIB):
                        if chunked:
                            sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
                        else:
                            sock.sendall(piece)
                except OSError:
                    pass  # the service answered and closed: it will not read 200 MB
                answer = b""
                with contextlib.suppress(OSError):
                    while b"\r\n\r\n" not in answer:
                        data = sock.recv(65536)
                        if not data:
                            break
                        answer += data
                return answer

        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(send_huge, [False, False, True, True]))
        for answer in answers:
            assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        growth_mib = (live.memory_kib("VmHWM") - baseline) / 1024
        assert growth_mib < 32, f"the service's peak memory grew by {growth_mib:.0f} MiB"
        listed = httpx.get(f"{live.base_url}/api/upload/folders", headers={"X-API-Key": key})
        assert listed.json()["folders"] == []


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_publish_cut_off_mid_body_never_claims_its_key(database_url: str, tmp_path: Path) -> None:
    """A client killed while sending: the service must not run the route on half a body,
    or the key would be held for a request nobody made, and the retry refused."""
    with live_service(tmp_path / "data", database_url) as live:
        key = api_key(database_url)
        connection = connect_over_db(database_url, key)
        body = json.dumps({"connectionId": connection, "text": "cut off"}).encode()
        host, port = live.base_url.removeprefix("http://").split(":")
        head = (
            f"POST /api/v2/microblog/publish HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {key}\r\n"
            f"Idempotency-Key: cut-1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(head + body[:10])  # then the client dies
        time.sleep(0.5)
        retried = httpx.post(
            f"{live.base_url}/api/v2/microblog/publish",
            content=body,
            headers={
                "X-API-Key": key,
                "Idempotency-Key": "cut-1",
                "Content-Type": "application/json",
            },
        )
        assert retried.status_code == 200, retried.text
        assert "Idempotent-Replayed" not in retried.headers


def connect_over_db(database_url: str, key: str) -> str:
    from pressroom.service.accounts.keys import hash_key
    from pressroom.service.accounts.repository import AccountRepository
    from pressroom.service.connections.service import NewConnection
    from pressroom.service.connections.service import connect as connect_account
    from pressroom.service.db.session import make_engine, make_session_factory

    engine = make_engine(database_url)
    try:
        with transaction(make_session_factory(engine)) as db:
            account = AccountRepository(db).get_by_key_hash(hash_key(key))
            assert account is not None
            made = connect_account(
                db, account, NewConnection(platform=Platform.MICROBLOG, name="@cut")
            )
            return made.id
    finally:
        engine.dispose()
