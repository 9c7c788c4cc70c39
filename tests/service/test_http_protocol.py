"""pressroom's uvicorn protocol, through a real uvicorn server on a socket: every body
arrives byte-exact in the pieces the connection delivered (small ones joined), a large
upload's in pooled blocks read straight from the socket, with uvicorn's keep-alive,
pipelining, 100-continue, disconnect and flow control intact; and the parts of uvicorn
it builds on are the ones it was written against."""

from __future__ import annotations

import ast
import asyncio
import hashlib
import inspect
import json
import os
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from pressroom.service import body_blocks
from pressroom.service.http_protocol import (
    DIRECT_FROM,
    DIRECT_WAITING,
    JOIN_BELOW,
    PROTOCOL,
    PiecesCycle,
    PiecesProtocol,
    direct_length,
)
from pressroom.service.storage.local import UPLOAD_PREFIX
from tests.client.live import free_port

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


@dataclass
class Recorder:
    """An ASGI app that answers with what it received: size, SHA-256, message sizes."""

    server: uvicorn.Server | None = None
    max_pending: int = 0
    disconnects: list[tuple[int, str]] = field(default_factory=list)
    disconnected: threading.Event = field(default_factory=threading.Event)
    receiving: threading.Event = field(default_factory=threading.Event)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        digest, sizes, kinds, blocks, more = hashlib.sha256(), [], set(), [], True
        upload = scope["path"].startswith(UPLOAD_PREFIX)
        while more:
            if scope["path"].endswith("/refused"):
                break  # answered without reading the body, as a refused upload is
            message = await receive()
            if message["type"] == "http.disconnect":
                self.disconnects.append((sum(sizes), scope["path"]))
                self.disconnected.set()
                return
            body = message["body"]
            kinds.add(type(body).__name__)
            # blocks reach only the upload's path; every other route gets bytes
            assert type(body) is bytes or upload, type(body)
            digest.update(body)
            sizes.append(len(body))
            if upload and not isinstance(body, bytes):
                blocks.append(id(body.obj if isinstance(body, memoryview) else body))
            if body:
                self.receiving.set()
            body_blocks.give_back(body)  # as the upload's writer does once it wrote it
            more = message["more_body"]
            if scope["path"].endswith("/slow") and more:
                await asyncio.sleep(0.002)  # what arrives meanwhile waits for the app
                self.max_pending = max(self.max_pending, self._pending())
        answer = json.dumps(
            {
                "size": sum(sizes),
                "sha256": digest.hexdigest(),
                "sizes": sizes,
                "kinds": sorted(kinds),
                **({"blocks": blocks} if upload else {}),
            }
        )
        body = answer.encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _pending(self) -> int:
        assert self.server is not None
        (connection,) = self.server.server_state.connections
        assert isinstance(connection, PiecesProtocol)
        assert isinstance(connection.cycle, PiecesCycle)
        return connection.cycle.pending


@pytest.fixture
def served() -> Iterator[tuple[Recorder, int]]:
    recorder = Recorder()
    port = free_port()
    config = uvicorn.Config(
        recorder, host="127.0.0.1", port=port, log_level="warning", lifespan="off", http=PROTOCOL
    )
    server = uvicorn.Server(config)
    recorder.server = server
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.02)
    assert server.started
    assert config.http_protocol_class is PiecesProtocol
    try:
        yield recorder, port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def head(path: str, size: int | None, *extra: str) -> bytes:
    lines = [f"PUT {path} HTTP/1.1", "Host: test"]
    if size is not None:
        lines.append(f"Content-Length: {size}")
    return ("\r\n".join([*lines, *extra]) + "\r\n\r\n").encode()


def read_answer(sock: socket.socket, buffer: bytearray) -> tuple[int, dict[str, Any]]:
    """One response off the connection (``buffer`` keeps what follows it)."""
    while b"\r\n\r\n" not in buffer:
        buffer += sock.recv(65536) or b"!"
        assert not buffer.endswith(b"!"), "the connection closed"
    top, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    status = int(top.split(b" ")[1])
    length = next(
        int(line.split(b":")[1])
        for line in top.lower().split(b"\r\n")
        if line.startswith(b"content-length")
    )
    while len(rest) < length:
        rest += sock.recv(65536)
    buffer[:] = rest[length:]
    return status, json.loads(rest[:length] or b"{}")


def put(port: int, path: str, body: bytes) -> dict[str, Any]:
    with connect(port) as sock:
        sock.sendall(head(path, len(body)) + body)
        status, answer = read_answer(sock, bytearray())
    assert status == 200
    return answer


def test_a_small_body_arrives_whole_in_one_message(served: tuple[Recorder, int]) -> None:
    _, port = served
    answer = put(port, "/small", b'{"text": "hello"}')
    assert answer == {
        "size": 17,
        "sha256": hashlib.sha256(b'{"text": "hello"}').hexdigest(),
        "sizes": [17],
        "kinds": ["bytes"],
    }
    assert put(port, "/empty", b"")["sizes"] == [0]


def test_a_large_body_arrives_byte_exact_in_the_pieces_read(served: tuple[Recorder, int]) -> None:
    _, port = served
    body = os.urandom(16 * 1024 * 1024)
    answer = put(port, "/large", body)
    assert answer["size"] == len(body)
    assert answer["sha256"] == hashlib.sha256(body).hexdigest()
    sizes = answer["sizes"]
    # the socket's reads, never gathered into one buffer: many messages, none past a read
    assert len(sizes) > 16
    assert max(sizes) <= 1024 * 1024


def test_a_chunked_body_of_tiny_chunks_is_joined_into_few_messages(
    served: tuple[Recorder, int],
) -> None:
    _, port = served
    chunks = [os.urandom(1 + index % 50) for index in range(4000)]
    body = b"".join(chunks)
    wire = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n\r\n"
    with connect(port) as sock:
        sock.sendall(head("/chunked", None, "Transfer-Encoding: chunked") + wire)
        status, answer = read_answer(sock, bytearray())
    assert status == 200
    assert answer["sha256"] == hashlib.sha256(body).hexdigest()
    assert answer["size"] == len(body)
    assert max(answer["sizes"]) <= JOIN_BELOW
    assert len(answer["sizes"]) < len(chunks) / 10


def test_pipelined_requests_on_one_connection_each_get_their_own_body(
    served: tuple[Recorder, int],
) -> None:
    _, port = served
    bodies = [os.urandom(size) for size in (10, 300_000, 0, 70_000, 5)]
    put_pipelined(port, [(f"/pipelined/{n}", body) for n, body in enumerate(bodies)])


def put_pipelined(port: int, requests: list[tuple[str, bytes]]) -> None:
    """Send every request in one go; each answer must hash its own body, and the
    connection must still be kept alive for one more."""
    with connect(port) as sock:
        sock.sendall(b"".join(head(path, len(body)) + body for path, body in requests))
        buffer = bytearray()
        for _, body in requests:
            status, answer = read_answer(sock, buffer)
            assert status == 200
            assert answer["sha256"] == hashlib.sha256(body).hexdigest()
        sock.sendall(head("/again", 3) + b"abc")
        assert read_answer(sock, buffer)[1]["size"] == 3


@pytest.mark.parametrize(
    ("path", "size", "kinds"),
    [
        ("/continue", 200_000, ["bytes"]),
        (UPLOAD_PREFIX + "file_1", 2 * DIRECT_FROM + 1, ["Block", "memoryview"]),
    ],
    ids=["parsed", "upload-in-blocks"],
)
def test_expect_100_continue_is_answered_before_the_body_is_sent(
    served: tuple[Recorder, int], path: str, size: int, kinds: list[str]
) -> None:
    _, port = served
    body = os.urandom(size)
    with connect(port) as sock:
        sock.sendall(head(path, len(body), "Expect: 100-continue"))
        interim = b""
        while b"\r\n\r\n" not in interim:
            interim += sock.recv(1024)
        assert interim.startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        status, answer = read_answer(
            sock, bytearray(interim[len(b"HTTP/1.1 100 Continue\r\n\r\n") :])
        )
    assert status == 200
    assert answer["sha256"] == hashlib.sha256(body).hexdigest()
    assert answer["kinds"] == kinds


def test_a_client_gone_mid_body_is_a_disconnect(served: tuple[Recorder, int]) -> None:
    recorder, port = served
    with connect(port) as sock:
        sock.sendall(head("/gone", 10_000_000) + os.urandom(1_000_000))
        assert recorder.receiving.wait(10)  # the app is reading the body: now go
    assert recorder.disconnected.wait(10)
    ((received, path),) = recorder.disconnects
    assert path == "/gone"
    assert 0 < received <= 1_000_000


def test_a_slow_app_pauses_reading_instead_of_queueing_the_body(
    served: tuple[Recorder, int],
) -> None:
    recorder, port = served
    body = os.urandom(32 * 1024 * 1024)
    answer = put(port, "/slow", body)
    assert answer["sha256"] == hashlib.sha256(body).hexdigest()
    # at most the high-water mark plus one socket read waits for the app, of 32 MiB sent
    assert 0 < recorder.max_pending <= HIGH_WATER_LIMIT + 1024 * 1024


UPLOAD = UPLOAD_PREFIX + "file_1"


def test_a_large_upload_is_read_straight_into_blocks_and_the_blocks_are_reused(
    served: tuple[Recorder, int],
) -> None:
    _, port = served
    body = os.urandom(6 * DIRECT_FROM + 12345)
    first = put(port, UPLOAD, body)
    assert first["size"] == len(body)
    assert first["sha256"] == hashlib.sha256(body).hexdigest()
    # whole blocks after what came with the headers, the last block's part at the end
    assert "Block" in first["kinds"]
    assert first["sizes"].count(body_blocks.BLOCK_SIZE) >= 5
    assert max(first["sizes"]) == body_blocks.BLOCK_SIZE
    assert 0 < body_blocks.free_blocks() <= body_blocks.KEEP
    # a second upload reads into the blocks the first gave back: a few blocks, each
    # filled many times, where the two bodies fill 12 or more
    second = put(port, UPLOAD, body[::-1])
    assert second["sha256"] == hashlib.sha256(body[::-1]).hexdigest()
    blocks = first["blocks"] + second["blocks"]
    assert len(blocks) >= 12
    assert len(set(blocks)) <= 4


def test_small_and_other_bodies_are_parsed_as_before(served: tuple[Recorder, int]) -> None:
    _, port = served
    small = put(port, UPLOAD, b"x" * 1000)
    assert small["kinds"] == ["bytes"]
    other = put(port, "/elsewhere", os.urandom(3 * DIRECT_FROM))
    assert other["kinds"] == ["bytes"]
    assert direct_length("PUT", UPLOAD, [(b"content-length", b"%d" % DIRECT_FROM)]) == DIRECT_FROM
    for method, path, headers in [
        ("PUT", UPLOAD, [(b"content-length", b"%d" % (DIRECT_FROM - 1))]),
        ("POST", UPLOAD, [(b"content-length", b"%d" % DIRECT_FROM)]),
        ("PUT", "/api/upload/x", [(b"content-length", b"%d" % DIRECT_FROM)]),
        ("PUT", UPLOAD, [(b"transfer-encoding", b"chunked")]),
        ("PUT", UPLOAD, [(b"content-length", b"%d" % DIRECT_FROM)] * 2),
        ("PUT", UPLOAD, [(b"content-length", b"%d" % DIRECT_FROM), (b"transfer-encoding", b"x")]),
        ("PUT", UPLOAD, [(b"content-length", b"-5")]),
    ]:
        assert direct_length(method, path, headers) == 0, (method, path, headers)


def test_a_request_behind_an_upload_on_the_connection_is_left_for_the_parser(
    served: tuple[Recorder, int],
) -> None:
    _, port = served
    put_pipelined(
        port,
        [
            (UPLOAD, os.urandom(3 * DIRECT_FROM + 7)),
            ("/after", b"next"),
            (UPLOAD, os.urandom(2 * DIRECT_FROM)),
        ],
    )


def test_an_upload_answered_before_its_body_is_read_keeps_the_connection(
    served: tuple[Recorder, int],
) -> None:
    _, port = served
    with connect(port) as sock:
        sock.sendall(head(UPLOAD + "/refused", 4 * DIRECT_FROM) + os.urandom(4 * DIRECT_FROM))
        buffer = bytearray()
        status, answer = read_answer(sock, buffer)
        assert status == 200
        assert answer["size"] == 0
        # the body was read and dropped: the next request parses from its first byte
        sock.sendall(head("/again", 3) + b"abc")
        assert read_answer(sock, buffer)[1] == {
            "size": 3,
            "sha256": hashlib.sha256(b"abc").hexdigest(),
            "sizes": [3],
            "kinds": ["bytes"],
        }


def test_a_client_gone_mid_upload_is_a_disconnect(served: tuple[Recorder, int]) -> None:
    recorder, port = served
    with connect(port) as sock:
        sock.sendall(head(UPLOAD, 10 * DIRECT_FROM) + os.urandom(3 * DIRECT_FROM))
        assert recorder.receiving.wait(10)
        time.sleep(0.2)  # the blocks sent are read
    assert recorder.disconnected.wait(10)
    ((received, path),) = recorder.disconnects
    assert path == UPLOAD
    assert 0 < received <= 3 * DIRECT_FROM


def test_a_slow_upload_app_pauses_reading_at_two_blocks(served: tuple[Recorder, int]) -> None:
    recorder, port = served
    body = os.urandom(32 * 1024 * 1024)
    answer = put(port, UPLOAD + "/slow", body)
    assert answer["sha256"] == hashlib.sha256(body).hexdigest()
    # of 32 MiB sent, at most two blocks and the one being read wait for the app
    assert 0 < recorder.max_pending <= DIRECT_WAITING + body_blocks.BLOCK_SIZE


# What PiecesProtocol takes from uvicorn as it is: if any of these change, read the new
# code, check the module's assumptions (the cycle created in on_headers_complete and
# run only after it returns; body state in `body`/`more_body`/`message_event`; flow
# control through `flow`; for DirectBody, the parser as __init__ makes it, the parse of
# one read in data_received, the keep-alive timer a response sets and a read unsets),
# then record the new digests.
RELIED_ON = {
    HttpToolsProtocol.__init__: "4f08999410347141",
    HttpToolsProtocol.data_received: "010a7ae59a5d3b1a",
    HttpToolsProtocol._unset_keepalive_if_required: "00a6a4e47214e68e",
    HttpToolsProtocol.on_response_complete: "64e254f28e389e76",
    HttpToolsProtocol.on_headers_complete: "1ea8589acfad92d8",
    HttpToolsProtocol.on_body: "dba9c32aeba35b6a",
    HttpToolsProtocol.on_message_complete: "1fbad42dc31fc01f",
    HttpToolsProtocol.connection_lost: "c91a4c9bf2e29c55",
    RequestResponseCycle.__init__: "4d2f220910c33c12",
    RequestResponseCycle.receive: "8124ae006be71184",
}


def test_the_uvicorn_code_it_builds_on_has_not_changed() -> None:
    changed = [
        f"{function.__qualname__} (uvicorn {uvicorn.__version__})"
        for function, digest in RELIED_ON.items()
        if hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16] != digest
    ]
    assert not changed, f"uvicorn changed what pressroom's HTTP protocol relies on: {changed}"


def test_every_uvicorn_pressroom_starts_speaks_the_protocol() -> None:
    """Each ``uvicorn.run`` and ``uvicorn.Config`` in the package passes ``http=PROTOCOL``."""
    root = Path(__file__).parents[2] / "src" / "pressroom"
    calls = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "uvicorn"
                and node.func.attr in ("run", "Config")
            ):
                http = [k.value for k in node.keywords if k.arg == "http"]
                calls.append((path.name, node.lineno, [ast.unparse(v) for v in http]))
    assert len(calls) >= 3, calls  # api (one process or several), demo, the ops server
    assert all(http == ["PROTOCOL"] for _, _, http in calls), calls
