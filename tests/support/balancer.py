"""A round-robin TCP load balancer in front of API replicas, as an operator puts one.

Each new client connection goes to the next replica; one that refuses the connection (dead,
or not up yet) is passed over for the next, as a balancer with passive health checks does.
A replica killed mid-request drops its connections: the client sees the break, exactly as
behind a real balancer. Counts connections per replica, so a test can show both served.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections import Counter


class Balancer:
    def __init__(self, backends: list[tuple[str, int]]) -> None:
        self.backends = backends
        self.connections: Counter[int] = Counter()  # replica port -> connections served
        self._turn = itertools.cycle(range(len(backends)))
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0

    def start(self) -> str:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the balancer did not start")
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        async def close_connections() -> None:
            for task in asyncio.all_tasks() - {asyncio.current_task()}:
                task.cancel()

        asyncio.run_coroutine_threadsafe(close_connections(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=512)
        )
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()

    async def _serve(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        upstream = None
        for _ in range(len(self.backends)):
            host, port = self.backends[next(self._turn)]
            try:
                upstream = await asyncio.open_connection(host, port)
            except OSError:
                continue
            self.connections[port] += 1
            break
        if upstream is None:
            client_out.close()
            return
        backend_in, backend_out = upstream
        await asyncio.gather(
            _pipe(client_in, backend_out), _pipe(backend_in, client_out), return_exceptions=True
        )


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    finally:
        sink.close()
