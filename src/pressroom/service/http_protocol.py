"""The HTTP protocol every uvicorn pressroom starts speaks: uvicorn's own (httptools)
with a request body handed to the app in the pieces the connection delivered.

Why: uvicorn's ``HttpToolsProtocol`` appends every piece of a body to a ``bytearray``
(``cycle.body += body``) and its ``receive()`` copies that out again
(``bytes(self.body)``): two copies of every byte on the event loop, ``memmove`` 28 % of
the loop thread's samples during a 512 MiB upload (``benchmarks/README.md``, "Uploads").
Here the pieces (fresh ``bytes`` from the parser, one per socket read or chunk) wait in
a queue and ``receive()`` hands the first one over as it is; pieces under
:data:`JOIN_BELOW` bytes are joined, up to that size, so a body sent in many tiny chunks
still arrives in few messages. The growing ``bytearray`` also made a bare drain of 512 MiB
touch up to 1.3 GiB of fresh pages now and then (blocks the C library maps anew):
1.15 s of CPU instead of 0.21 s; the queue of pieces never did.

A large presigned upload goes one step further (:class:`DirectBody`): once its headers
are parsed, the rest of its body is read from the socket straight into reused 1 MiB
blocks (:mod:`~pressroom.service.body_blocks`), with no copy on the loop at all, and
handed to the route a block at a time; the route's writer gives each block back once
written. Only that route gets blocks (each a ``bytearray``, not ``bytes``); every other body
is parsed as above. Reading into fresh buffers of the protocol's own had saved nothing
(the page faults of new memory ate the copy saved); reused blocks do
(``benchmarks/README.md``, "thirteenth round").

What stays uvicorn's, unchanged: parsing, the response side, keep-alive and pipelined
requests, ``Expect: 100-continue`` (the interim answer written at the first
``receive()``), ``http.disconnect`` once the client has gone or the response is
complete (pieces still queued are then dropped, as uvicorn drops its buffer), and the
flow control: reading pauses once more than uvicorn's ``HIGH_WATER_LIMIT`` bytes wait
for the app and resumes when ``receive()`` brings them back under it, so a slow app
holds at most one socket read beyond the mark, whatever the body's size.

The cycle uvicorn creates in ``on_headers_complete`` becomes a :class:`PiecesCycle`
before its task first runs (the task calls ``cycle.receive`` only then), so none of
uvicorn's header handling is copied here. The parts of uvicorn this relies on are
pinned by ``tests/service/test_http_protocol.py``, which fails when they change.

Use it with ``uvicorn.Config(..., http=PROTOCOL)`` (a string, so that worker processes
import it too).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import cast

import httptools
from uvicorn._types import ASGIReceiveEvent, HTTPRequestEvent
from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from pressroom.service import body_blocks
from pressroom.service.storage.local import UPLOAD_PREFIX

PROTOCOL = "pressroom.service.http_protocol:PiecesProtocol"
"""What ``uvicorn.Config(http=...)`` is given wherever pressroom starts a uvicorn."""

JOIN_BELOW = 64 * 1024
"""Pieces smaller than this are joined, up to this size, into one message (a copy of
small pieces only); larger ones go to the app as they came."""

DIRECT_PATHS = (UPLOAD_PREFIX,)
"""Paths whose large PUT bodies are read straight into blocks (:class:`DirectBody`): the
presigned upload, whose route gives the blocks back once written."""

DIRECT_FROM = body_blocks.BLOCK_SIZE
"""The declared size from which such a body is read into blocks; smaller ones are
parsed as any other."""

DIRECT_WAITING = 2 * body_blocks.BLOCK_SIZE
"""Blocks' bytes that may wait for the app before reading pauses (two blocks): the app
takes a block while the next one is read."""


Piece = bytes | bytearray | memoryview
"""A piece of a body: ``bytes`` from the parser, or a block (or the last part of one)
from :class:`DirectBody`."""


class PiecesCycle(RequestResponseCycle):
    """uvicorn's request/response cycle whose ``receive()`` hands out queued pieces."""

    pieces: deque[Piece]
    pending: int
    """Bytes queued for the app: above ``HIGH_WATER_LIMIT`` reading is paused."""

    @classmethod
    def adopt(cls, cycle: RequestResponseCycle) -> PiecesCycle:
        """Turn the cycle uvicorn just created into one of these (nothing received yet)."""
        cycle.__class__ = cls
        assert isinstance(cycle, PiecesCycle)
        cycle.pieces = deque()
        cycle.pending = 0
        return cycle

    def add(self, piece: Piece) -> bool:
        """Queue a piece of the body; whether reading should pause."""
        self.pieces.append(piece)
        self.pending += len(piece)
        self.message_event.set()
        return self.pending > HIGH_WATER_LIMIT

    async def receive(self) -> ASGIReceiveEvent:
        if self.waiting_for_100_continue and not self.transport.is_closing():
            self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            self.waiting_for_100_continue = False

        if not self.disconnected and not self.response_complete and not self.pieces:
            self.flow.resume_reading()
            await self.message_event.wait()
            self.message_event.clear()

        if self.disconnected or self.response_complete:
            return {"type": "http.disconnect"}
        body = self._take()
        if self.pending <= HIGH_WATER_LIMIT:
            self.flow.resume_reading()
        message: HTTPRequestEvent = {
            "type": "http.request",
            # ASGI says bytes: a block is bytes-like, and only the upload route gets one
            "body": cast(bytes, body),
            "more_body": self.more_body or bool(self.pieces),
        }
        return message

    def _take(self) -> Piece:
        pieces = self.pieces
        if not pieces:
            return b""
        first = pieces.popleft()
        size = len(first)
        if size >= JOIN_BELOW or not pieces or size + len(pieces[0]) > JOIN_BELOW:
            self.pending -= size
            return first
        joined = [first]
        while pieces and size + len(pieces[0]) <= JOIN_BELOW:
            piece = pieces.popleft()
            joined.append(piece)
            size += len(piece)
        self.pending -= size
        return b"".join(joined)


class PiecesProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with :class:`PiecesCycle` (see the module), which
    hands a large upload's body over to :class:`DirectBody` once its headers are read."""

    direct: DirectBody | None = None
    """The body reader waiting to take over when this read has been parsed."""

    def on_headers_complete(self) -> None:
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not before and type(self.cycle) is RequestResponseCycle:
            cycle = PiecesCycle.adopt(self.cycle)
            length = direct_length(self.scope["method"], self.scope["path"], self.headers)
            if length and not self.pipeline:  # started now, not queued behind another
                self.direct = DirectBody(self, cycle, length)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        direct, self.direct = self.direct, None
        if direct is not None and direct.remaining and not self.transport.is_closing():
            direct.take_over()

    def on_message_complete(self) -> None:
        self.direct = None  # the whole body came with the headers: nothing to take over
        super().on_message_complete()

    def on_body(self, body: bytes) -> None:
        if self.direct is not None:
            self.direct.remaining -= len(body)
        if (
            self.parser.should_upgrade() and self._should_upgrade()
        ) or self.cycle.response_complete:
            return
        cycle = self.cycle
        assert isinstance(cycle, PiecesCycle)
        if cycle.add(body):
            self.flow.pause_reading()


def direct_length(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> int:
    """The declared size of a body to read straight into blocks, or 0 for any other:
    a PUT on one of :data:`DIRECT_PATHS` of at least :data:`DIRECT_FROM` bytes, with one
    Content-Length and no Transfer-Encoding (a body the parser would frame otherwise
    is left to the parser)."""
    if method != "PUT" or not path.startswith(DIRECT_PATHS):
        return 0
    lengths = [value for name, value in headers if name == b"content-length"]
    if len(lengths) != 1 or any(name == b"transfer-encoding" for name, _ in headers):
        return 0
    length = lengths[0].strip()
    if not length.isdigit() or int(length) < DIRECT_FROM:
        return 0
    return int(length)


class DirectBody(asyncio.BufferedProtocol):
    """The rest of one large body, read from the socket straight into
    :mod:`~pressroom.service.body_blocks` and handed to the app a block at a time.

    Why: read through the parser, every byte is copied twice on the event loop (from
    uvloop's read buffer into a new ``bytes``, then by httptools into another) while the
    loop holds the interpreter lock, and the upload's writer thread waits for that lock
    after hashing each of the four pieces of a MiB. Read here, the kernel copies the
    bytes into the block with the lock released, and the writer hashes and writes a
    whole MiB per wait (``benchmarks/README.md``, "thirteenth round").

    It takes over the connection (``transport.set_protocol``) once the read that
    completed the headers has been parsed, having counted the body bytes that came with
    them; it asks for no more than the body's declared remainder, so a pipelined request
    behind it stays in the socket. When the last byte is read it hands the connection
    back to the HTTP protocol with a fresh parser (the old one still waits for the body
    it never saw) and completes the message as the parser would have. A response sent
    before the body is read (a refused upload) leaves the rest to be read and dropped, as
    uvicorn drops it, so the connection stays usable. Flow control as for pieces: reading
    pauses once :data:`DIRECT_WAITING` bytes wait for the app.
    """

    def __init__(self, http: PiecesProtocol, cycle: PiecesCycle, length: int) -> None:
        self.http = http
        self.cycle = cycle
        self.remaining = length
        """Body bytes not read yet (the parser counts off those that came with the
        headers, before the take-over)."""
        self.block: body_blocks.Block | None = None
        self.filled = 0

    def take_over(self) -> None:
        self.http.transport.set_protocol(self)

    def get_buffer(self, sizehint: int) -> memoryview:
        if self.block is None:
            self.block = body_blocks.take()
            self.filled = 0
        end = min(len(self.block), self.filled + self.remaining)
        return memoryview(self.block)[self.filled : end]

    def buffer_updated(self, nbytes: int) -> None:
        self.filled += nbytes
        self.remaining -= nbytes
        assert self.block is not None
        if self.filled == len(self.block) or not self.remaining:
            self._hand_over()
        if not self.remaining:
            self._give_back_connection()

    def _hand_over(self) -> None:
        block, filled, self.block = self.block, self.filled, None
        assert block is not None
        cycle = self.cycle
        if cycle.response_complete or cycle.disconnected:
            body_blocks.give_back(block)  # nobody reads it any more
            self.http._unset_keepalive_if_required()
            return
        cycle.add(block if filled == len(block) else memoryview(block)[:filled])
        if cycle.pending > DIRECT_WAITING:
            self.http.flow.pause_reading()

    def _give_back_connection(self) -> None:
        http = self.http
        http.parser = httptools.HttpRequestParser(http)
        http.parser.set_dangerous_leniencies(lenient_data_after_close=True)  # as uvicorn's
        http.transport.set_protocol(http)
        http.on_message_complete()

    # The transport speaks to its current protocol: what is not about reading is the
    # HTTP protocol's.
    def connection_lost(self, exc: Exception | None) -> None:
        if self.block is not None:
            body_blocks.give_back(self.block)
            self.block = None
        self.http.connection_lost(exc)

    def eof_received(self) -> None:
        self.http.eof_received()

    def pause_writing(self) -> None:
        self.http.pause_writing()

    def resume_writing(self) -> None:
        self.http.resume_writing()
