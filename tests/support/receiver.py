"""A real webhook receiver for the tests: an HTTP server on loopback that verifies each
request's signature with ``verify_webhook`` (as an integrator's would) and records it.

Its behaviour can be changed while it runs: answer with a given status (500s, a 429 with
Retry-After), answer slowly, or stop listening altogether (down) and start again on the
same port (up).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pressroom.client import WebhookEvent, WebhookVerificationError, verify_webhook


@dataclass
class Received:
    event: WebhookEvent | None
    """None when the signature did not verify."""
    headers: dict[str, str]
    body: bytes
    answered: int


@dataclass
class Receiver:
    secrets: list[str] = field(default_factory=list)
    status: int = 200
    delay: float = 0.0
    retry_after: str | None = None
    location: str | None = None
    """Sent as ``Location`` (with a 3xx status: a redirect)."""
    received: list[Received] = field(default_factory=list)
    port: int = 0
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def up(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    event: WebhookEvent | None = verify_webhook(body, headers, receiver.secrets)
                except WebhookVerificationError:
                    event = None
                time.sleep(receiver.delay)
                status = receiver.status if event is not None else 400
                with receiver._lock:
                    receiver.received.append(Received(event, headers, body, status))
                answer = json.dumps({"seen": event.id if event else None}).encode()
                try:
                    self.send_response(status)
                    if receiver.retry_after is not None:
                        self.send_header("Retry-After", receiver.retry_after)
                    if receiver.location is not None:
                        self.send_header("Location", receiver.location)
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the sender gave up waiting (a timeout): so be it

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def down(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def events(self, *, answered: int | None = 200) -> list[WebhookEvent]:
        """Verified events, in arrival order (those answered ``answered``; None: all)."""
        with self._lock:
            return [
                r.event
                for r in self.received
                if r.event is not None and (answered is None or r.answered == answered)
            ]

    def wait_for(self, count: int, *, timeout: float = 20.0, answered: int | None = 200) -> None:
        deadline = time.monotonic() + timeout
        while len(self.events(answered=answered)) < count:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{len(self.events(answered=answered))} of {count} webhooks arrived: "
                    f"{[(r.event.type if r.event else None, r.answered) for r in self.received]}"
                )
            time.sleep(0.02)


@contextmanager
def running_receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    receiver.up()
    try:
        yield receiver
    finally:
        receiver.down()
