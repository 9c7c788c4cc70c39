"""A raw-socket HTTP server on loopback that answers every request with bytes chosen by
the test, at the pace the test chooses: a receiver that trickles its headers or its
body one byte at a time, answers binary or gzip bodies, or sends any header at all.

It records what the sender did: how many connections it opened, how many were open at
once, how much of the answer each took before the sender hung up, and when.
"""

from __future__ import annotations

import gzip
import select
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


def http_answer(
    status: int = 200,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    *,
    length: bool = True,
) -> bytes:
    """The bytes of an HTTP/1.1 answer (``length``: with its Content-Length)."""
    lines = [f"HTTP/1.1 {status} Whatever"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if length:
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def gzip_answer(size: int) -> tuple[bytes, bytes]:
    """An answer whose gzip body inflates to ``size`` bytes; and that body."""
    plain = (b"pressroom " * (size // 10 + 1))[:size]
    body = gzip.compress(plain)
    return http_answer(200, body, {"Content-Encoding": "gzip"}), body


@dataclass
class Connection:
    opened: float
    request: bytes = b""
    sent: int = 0
    """Bytes of the answer written before the sender hung up (or all of them)."""
    closed: float | None = None
    hung_up: bool = False
    """The sender closed the connection before the whole answer was written."""


@dataclass
class Answering:
    answer: bytes = field(default_factory=http_answer)
    gap: float = 0.0
    """Seconds between two bytes from ``trickle_from`` on; 0 writes the answer at once."""
    trickle_from: int = 0
    """Where trickling starts: 0 trickles the status line and headers too."""
    connections: list[Connection] = field(default_factory=list)
    port: int = 0
    _listener: socket.socket | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _open: int = 0
    most_at_once: int = 0
    _stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def start(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, daemon=True).start()

    def stop(self) -> None:
        self._stopping.set()
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def _accept(self) -> None:
        assert self._listener is not None
        listener = self._listener
        while not self._stopping.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            record = Connection(opened=time.monotonic())
            with self._lock:
                self.connections.append(record)
                self._open += 1
                self.most_at_once = max(self.most_at_once, self._open)
            threading.Thread(target=self._serve, args=(conn, record), daemon=True).start()

    def _serve(self, conn: socket.socket, record: Connection) -> None:
        try:
            record.request = _read_request(conn)
            answer = self.answer
            at_once = len(answer) if self.gap == 0 else self.trickle_from
            if at_once:
                conn.sendall(answer[:at_once])
                record.sent = at_once
            for offset in range(at_once, len(answer)):
                if self._stopping.is_set():
                    break
                if _hung_up_within(conn, self.gap):
                    record.hung_up = True
                    break
                conn.sendall(answer[offset : offset + 1])
                record.sent = offset + 1
            conn.shutdown(socket.SHUT_WR)
            conn.settimeout(5)
            while conn.recv(4096):  # until the sender closes its side
                pass
        except OSError:
            record.hung_up = record.sent < len(self.answer)
        finally:
            record.closed = time.monotonic()
            conn.close()
            with self._lock:
                self._open -= 1

    def open_now(self) -> int:
        with self._lock:
            return self._open


def _hung_up_within(conn: socket.socket, seconds: float) -> bool:
    """Whether the sender closed the connection within ``seconds`` (it sends nothing
    after its request, so anything readable is its end of the stream)."""
    watch = select.poll()  # not select(): it refuses descriptors past 1023
    watch.register(conn, select.POLLIN)
    if not watch.poll(seconds * 1000):
        return False
    try:
        return conn.recv(1) == b""
    except OSError:
        return True


def _read_request(conn: socket.socket) -> bytes:
    """The request's head and its Content-Length of body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk or data + chunk[:1] == b"\x16":  # EOF, or a TLS handshake: answer now
            return data + chunk
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


@contextmanager
def answering(
    answer: bytes | None = None, *, gap: float = 0.0, trickle_from: int = 0
) -> Iterator[Answering]:
    server = Answering(answer=answer if answer is not None else http_answer(), gap=gap)
    server.trickle_from = trickle_from
    server.start()
    try:
        yield server
    finally:
        server.stop()
