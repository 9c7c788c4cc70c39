"""The real app on a real socket, in a thread: for a client that makes its own connections.

TestClient answers every address itself, so a presigned URL on another host (an S3
store) or a script in another process needs the service listening on loopback.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn
from fastapi.testclient import TestClient

from pressroom.service.app import create_app
from pressroom.service.http_protocol import PROTOCOL
from pressroom.settings import Settings
from tests.conftest import Service


@dataclass
class Live:
    service: Service
    """For acting as the dashboard (accounts, connections) on the same database."""
    address: str


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def live_service(settings: Settings, **overrides: object) -> Iterator[Live]:
    """Serve the app with ``settings`` (and ``overrides``) at a fresh loopback address."""
    port = free_port()
    address = f"http://127.0.0.1:{port}"
    tuned = settings.model_copy(update={"base_url": address, **overrides})
    app = create_app(tuned)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", http=PROTOCOL)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        threading.Event().wait(0.02)
    assert server.started, "the service did not start"
    try:
        yield Live(Service(TestClient(app), app.state.session_factory, tuned), address)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        app.state.engine.dispose()
