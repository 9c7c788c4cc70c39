"""The TLS context pressroom's own HTTP clients verify servers with, reading its trust
store only when a TLS connection is first opened.

httpx builds a verifying context for every client it makes, and reading the CA bundle
into it is most of the cost: 16-30 ms of CPU each time on a 2-core machine. Most of
pressroom's clients talk plain HTTP to a service or a Prefect server on this machine
(a campaign run makes two, the dashboard one per Prefect look-up), where no certificate
is ever checked. ``client_context()`` verifies exactly as httpx's default does (the same
protocol, hostname check, verify mode and flags, and the same certificates: the files
``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` name, else certifi's bundle), and reads them on
its first handshake; a client that never opens one never reads them.

Every TLS connection Python makes goes through ``SSLContext.wrap_socket`` or
``SSLContext.wrap_bio`` (httpcore's sync backend, anyio and asyncio alike), so loading
there covers them all. A test compares a loaded context with httpx's own, field by field
and certificate by certificate.
"""

from __future__ import annotations

import os
import ssl
import sys
import threading
from typing import Any


class DeferredTrustContext(ssl.SSLContext):
    """A client context that reads its trust store on its first handshake."""

    _trust_lock: threading.Lock
    _trusted: bool

    def __new__(cls) -> DeferredTrustContext:
        return super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)

    def __init__(self) -> None:
        # What ssl.create_default_context does besides loading: PROTOCOL_TLS_CLIENT
        # already requires a certificate and checks the hostname.
        if sys.version_info >= (3, 13):
            self.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
        keylog = os.environ.get("SSLKEYLOGFILE")
        if keylog and not sys.flags.ignore_environment:
            self.keylog_filename = keylog
        self._trust_lock = threading.Lock()
        self._trusted = False

    def load_trust(self) -> None:
        """Read the certificates httpx's default context trusts, once."""
        if self._trusted:
            return
        with self._trust_lock:
            if self._trusted:
                return
            if os.environ.get("SSL_CERT_FILE"):
                self.load_verify_locations(cafile=os.environ["SSL_CERT_FILE"])
            elif os.environ.get("SSL_CERT_DIR"):
                self.load_verify_locations(capath=os.environ["SSL_CERT_DIR"])
            else:
                import certifi

                self.load_verify_locations(cafile=certifi.where())
            self._trusted = True

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.load_trust()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.load_trust()
        return super().wrap_bio(*args, **kwargs)


def client_context() -> DeferredTrustContext:
    """A new verifying context for one HTTP client (``httpx.Client(verify=...)``).

    One per client, as httpx makes them: httpcore sets a context's ALPN protocols when it
    connects, so two clients speaking different HTTP versions must not share one.
    """
    return DeferredTrustContext()
