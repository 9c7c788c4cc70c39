"""Meta's Graph hosts, played on loopback for a real ``pressroom`` process to call.

The drivers call fixed ``https://graph.…`` addresses. A process reaches this fake the
way it would reach the internet through a corporate proxy: ``HTTPS_PROXY`` points httpx
at ``FakeNetwork.proxy_url``, which accepts ``CONNECT``, speaks TLS with a certificate
for the asked host signed by a CA made for the run (``SSL_CERT_FILE`` makes the process
trust it), and answers every call with one JSON body that has every field the Meta
drivers read. Each request is recorded: method, host, path, query, body and Authorization.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

HOSTS = (
    "graph.facebook.com",
    "graph-video.facebook.com",
    "graph.instagram.com",
    "api.instagram.com",
    "graph.threads.net",
)


@dataclass(frozen=True)
class Call:
    method: str
    host: str
    path: str
    query: str
    body: str
    authorization: str = ""


@dataclass
class FakeNetwork:
    ca_file: Path
    answer: dict[str, Any]
    calls: list[Call] = field(default_factory=list)
    port: int = 0

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def fake_meta(directory: Path, answer: dict[str, Any]) -> Iterator[FakeNetwork]:
    """Serve ``answer`` to every call for every host of ``HOSTS``, through a proxy."""
    tls = server_context(directory)
    network = FakeNetwork(directory / "ca.pem", answer)

    class Api(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace")
            parts = urlsplit(self.path)
            network.calls.append(
                Call(
                    self.command,
                    self.headers.get("Host", ""),
                    parts.path,
                    parts.query,
                    body,
                    self.headers.get("Authorization", ""),
                )
            )
            data = json.dumps(network.answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

        def log_message(self, *_: object) -> None:
            pass

    class Proxy(BaseHTTPRequestHandler):
        def do_CONNECT(self) -> None:
            self.send_response(200, "Connection established")
            self.end_headers()
            self.wfile.flush()
            secured = tls.wrap_socket(self.connection, server_side=True)
            try:
                Api(secured, self.client_address, self.server)  # type: ignore[arg-type]
            finally:
                self.close_connection = True

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    server.daemon_threads = True
    network.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield network
    finally:
        server.shutdown()
        server.server_close()


def server_context(directory: Path, hosts: tuple[str, ...] = HOSTS) -> ssl.SSLContext:
    """A CA (written to ``ca.pem``) and a certificate for ``hosts`` it signed."""
    now = datetime.now(UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pressroom test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0])]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(h) for h in hosts]), False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    (directory / "ca.pem").write_bytes(ca.public_bytes(pem))
    (directory / "leaf.pem").write_bytes(leaf.public_bytes(pem))
    (directory / "leaf.key").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(directory / "leaf.pem", directory / "leaf.key")
    return context
