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
1.15 s of CPU instead of 0.21 s; the queue of pieces never did. The reads stay uvloop's
(about 256 KB): reading into a buffer of the protocol's own (an
``asyncio.BufferedProtocol``, one copy less) saved nothing measurable at that size and
cost more with 1 MiB reads.

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

from collections import deque

from uvicorn._types import ASGIReceiveEvent, HTTPRequestEvent
from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

PROTOCOL = "pressroom.service.http_protocol:PiecesProtocol"
"""What ``uvicorn.Config(http=...)`` is given wherever pressroom starts a uvicorn."""

JOIN_BELOW = 64 * 1024
"""Pieces smaller than this are joined, up to this size, into one message (a copy of
small pieces only); larger ones go to the app as they came."""


class PiecesCycle(RequestResponseCycle):
    """uvicorn's request/response cycle whose ``receive()`` hands out queued pieces."""

    pieces: deque[bytes]
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

    def add(self, piece: bytes) -> bool:
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
            "body": body,
            "more_body": self.more_body or bool(self.pieces),
        }
        return message

    def _take(self) -> bytes:
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
    """uvicorn's httptools protocol with :class:`PiecesCycle` (see the module)."""

    def on_headers_complete(self) -> None:
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not before and type(self.cycle) is RequestResponseCycle:
            PiecesCycle.adopt(self.cycle)

    def on_body(self, body: bytes) -> None:
        if (
            self.parser.should_upgrade() and self._should_upgrade()
        ) or self.cycle.response_complete:
            return
        cycle = self.cycle
        assert isinstance(cycle, PiecesCycle)
        if cycle.add(body):
            self.flow.pause_reading()
