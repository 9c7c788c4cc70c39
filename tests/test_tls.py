"""pressroom's HTTP clients verify TLS as httpx does, and read no trust store for plain HTTP.

Real servers on loopback: a plain HTTP one, and a TLS one whose certificate a CA made
for the test signed (``tests/support/fake_network.server_context``).
"""

from __future__ import annotations

import asyncio
import json
import ssl
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from pressroom.cli.campaign import http_client
from pressroom.client import AsyncClient, Client
from pressroom.tls import DeferredTrustContext, client_context
from tests.support.fake_network import server_context


class _Answer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps([]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, *_: Any) -> None:
        pass  # a handshake the client refused


@contextmanager
def _serving(tls: ssl.SSLContext | None = None) -> Iterator[int]:
    server = _QuietServer(("127.0.0.1", 0), _Answer)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each time any context in this process reads certificates."""
    seen: list[str] = []
    read_locations = ssl.SSLContext.load_verify_locations
    read_defaults = ssl.SSLContext.load_default_certs

    def load_verify_locations(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        seen.append("locations")
        read_locations(self, *args, **kwargs)

    def load_default_certs(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        seen.append("defaults")
        read_defaults(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", load_verify_locations)
    monkeypatch.setattr(ssl.SSLContext, "load_default_certs", load_default_certs)
    return seen


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTPS address on loopback and the CA file that signed its certificate."""
    with _serving(server_context(tmp_path, hosts=("localhost",))) as port:
        yield f"https://localhost:{port}", tmp_path / "ca.pem"


def test_plain_http_reads_no_trust_store(loads: list[str]) -> None:
    with _serving() as port:
        base_url = f"http://127.0.0.1:{port}"
        with Client(base_url=base_url, api_key="prk_test_tls") as client:
            assert client.list_connections() == []
        with http_client(base_url) as http:
            assert http.get("/").json() == []

        async def listed() -> list[Any]:
            async with AsyncClient(base_url=base_url, api_key="prk_test_tls") as client:
                return list(await client.list_connections())

        assert asyncio.run(listed()) == []
    assert loads == []


def test_https_is_verified_against_the_trust_store(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, ca = tls_server
    # The test's CA is in no trust store: the handshake is refused.
    with (
        httpx.Client(verify=client_context()) as http,
        pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"),
    ):
        http.get(url)
    # SSL_CERT_FILE names the certificates to trust, as it does for httpx.
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    with httpx.Client(verify=client_context()) as http:
        assert http.get(url).json() == []
    with Client(base_url=url, api_key="prk_test_tls") as client:
        assert client.list_connections() == []


def test_an_address_the_certificate_does_not_name_is_refused(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, ca = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    with (
        httpx.Client(verify=client_context()) as http,
        pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"),
    ):
        http.get(url.replace("localhost", "127.0.0.1"))


def test_concurrent_handshakes_read_the_store_once(
    tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch, loads: list[str]
) -> None:
    url, ca = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    context = client_context()
    clients = [httpx.Client(verify=context) for _ in range(8)]
    try:
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda http: http.get(url).json(), clients))
    finally:
        for http in clients:
            http.close()
    assert answers == [[]] * 8
    assert loads == ["locations"]


def _verifying(context: ssl.SSLContext) -> dict[str, Any]:
    return {
        "protocol": context.protocol,
        "verify_mode": context.verify_mode,
        "check_hostname": context.check_hostname,
        "verify_flags": context.verify_flags,
        "options": context.options,
        "minimum_version": context.minimum_version,
        "maximum_version": context.maximum_version,
        "keylog_filename": context.keylog_filename,
        "certificates": sorted(json.dumps(c, sort_keys=True) for c in context.get_ca_certs()),
    }


@pytest.mark.parametrize("trust", ["certifi", "SSL_CERT_FILE", "SSL_CERT_DIR"])
def test_a_loaded_context_verifies_as_httpx_default(
    trust: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.setenv("SSLKEYLOGFILE", str(tmp_path / "keys.log"))
    server_context(tmp_path, hosts=("localhost",))
    if trust == "SSL_CERT_FILE":
        monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    elif trust == "SSL_CERT_DIR":
        monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    context = client_context()
    assert isinstance(context, DeferredTrustContext)
    assert context.get_ca_certs() == []
    context.load_trust()
    expected = httpx.create_ssl_context()
    assert _verifying(context) == _verifying(expected)
    if trust != "SSL_CERT_DIR":  # a directory is read at each handshake, by hash
        assert context.get_ca_certs()
