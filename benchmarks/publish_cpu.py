"""A publish's CPU in process: the service's app driven through ASGI without sockets.

What ``throughput.py`` measures with wrk depends on how much of two shared cores the
service gets: on a busy machine the ratio to the bare app moves by half from one run to
the next. This measures what a code change moves, the CPU a publish costs, apart from
the HTTP server and the load generator: the app as ``pressroom api`` builds it (its
middleware, routes, lifespan and group writer, on SQLite, sandbox latency 0, rate limit
off), on uvloop, ``CONCURRENCY`` publishes in flight, each with a new Idempotency-Key;
the process's CPU seconds over a round ÷ its publishes. The lowest of ``--rounds``
rounds is the figure (another process taking the core only ever adds to it).

Run it against two versions of the code, alternated, to compare them::

    .venv/bin/python -m benchmarks.publish_cpu
    PYTHONPATH=/path/to/other/src .venv/bin/python -m benchmarks.publish_cpu

``--profile FILE`` writes a cProfile of one more round, on the CPU clock.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

CONCURRENCY = 32
PATH = "/api/v2/microblog/publish"


def _settings_env(data_dir: Path) -> None:
    for name in [n for n in os.environ if n.startswith(("PRESSROOM_", "PREFECT_"))]:
        del os.environ[name]
    os.environ.update(
        PRESSROOM_DATA_DIR=str(data_dir),
        PRESSROOM_BASE_URL="http://127.0.0.1:9",
        PRESSROOM_SANDBOX_SEED="8",
        PRESSROOM_RATE_LIMIT_PER_MINUTE="0",
        PRESSROOM_SANDBOX_LATENCY_MS="0",
    )


def http_scope(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """An HTTP scope as uvicorn hands it to the app, for a request to 127.0.0.1:8000."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "method": method,
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:8000"), *headers],
        "state": {},
    }


class Client:
    """Requests to an ASGI app as uvicorn makes them: a scope, one body message."""

    def __init__(self, app: Any, key: str) -> None:
        self.app = app
        self.key = key.encode()

    async def post(self, path: str, body: bytes, idempotency_key: str) -> int:
        scope = http_scope(
            "POST",
            path,
            [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"x-api-key", self.key),
                (b"idempotency-key", idempotency_key.encode()),
            ],
        )
        sent = False
        status = 0

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client never disconnects
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]

        await self.app(scope, receive, send)
        return status


def thread_cpu() -> dict[str, float]:
    """CPU seconds of each of the process's threads so far, by name (``/proc``)."""
    import threading

    tick = os.sysconf("SC_CLK_TCK")
    names = {t.native_id: t.name for t in threading.enumerate()}
    found: dict[str, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = names.get(int(task.name), "other")
        name = "loop" if name == "MainThread" else name.split("_")[0].rstrip("-0123456789")
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return found


async def _lifespan(app: Any) -> tuple[asyncio.Task[None], asyncio.Queue[Any]]:
    inbox: asyncio.Queue[Any] = asyncio.Queue()
    started = asyncio.get_running_loop().create_future()
    await inbox.put({"type": "lifespan.startup"})

    async def send(message: dict[str, Any]) -> None:
        if message["type"].startswith("lifespan.startup") and not started.done():
            started.set_result(message["type"])

    task = asyncio.ensure_future(app({"type": "lifespan", "state": {}}, inbox.get, send))
    outcome = await started
    if outcome != "lifespan.startup.complete":
        raise RuntimeError(f"the app did not start: {outcome}")
    return task, inbox


async def _round(client: Client, connection: str, count: int) -> tuple[float, float, float, int]:
    """CPU seconds (the process's, the event loop's thread's) and wall seconds of
    ``count`` publishes, ``CONCURRENCY`` at a time; failures."""
    queue = iter(range(count))
    prefix = uuid.uuid4().hex
    failures = 0

    async def worker() -> None:
        nonlocal failures
        for n in queue:
            body = json.dumps({"connectionId": connection, "text": f"In process {n}"}).encode()
            if await client.post(PATH, body, f"{prefix}-{n}") != 200:
                failures += 1

    # The loop's clock is read inside the process's, at both ends: its interval is then a
    # part of the process's, as its CPU is.
    cpu, loop, wall = time.process_time(), time.thread_time(), time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    wall, loop = time.perf_counter() - wall, time.thread_time() - loop
    return time.process_time() - cpu, loop, wall, failures


async def _measure(count: int, rounds: int, profile: Path | None) -> dict[str, Any]:
    from benchmarks.common import seed_account
    from benchmarks.throughput import CONNECTIONS_SEEDED
    from pressroom.service.app import create_app

    data_dir = Path(tempfile.mkdtemp(prefix="publish-cpu-"))
    _settings_env(data_dir)
    key = seed_account(data_dir, None, CONNECTIONS_SEEDED)
    app = create_app()
    task, inbox = await _lifespan(app)
    try:
        client = Client(app, key)
        connection = await _microblog(app, key)
        await _round(client, connection, count // 2)  # warm-up
        figures = []
        threads_before = thread_cpu()
        for _ in range(rounds):
            cpu, loop, wall, failures = await _round(client, connection, count)
            if failures:
                raise RuntimeError(f"{failures} of {count} publishes failed")
            figures.append(
                {"cpu_ms": cpu / count * 1000, "loop_cpu_ms": loop / count * 1000, "wall_s": wall}
            )
        threads = {
            name: round((spent - threads_before.get(name, 0.0)) / (count * rounds) * 1000, 4)
            for name, spent in thread_cpu().items()
        }
        if profile is not None:
            profiler = cProfile.Profile(time.process_time)
            profiler.enable()
            await _round(client, connection, count)
            profiler.disable()
            profiler.dump_stats(profile)
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await task
        shutil.rmtree(data_dir, ignore_errors=True)
    return {
        "cpu_ms_per_publish": min(f["cpu_ms"] for f in figures),
        "loop_cpu_ms_per_publish": min(f["loop_cpu_ms"] for f in figures),
        "rounds": figures,
        "threads_cpu_ms_per_publish": threads,
        "load_average": os.getloadavg(),
    }


async def _microblog(app: Any, key: str) -> str:
    """The microblog connection's id, as the API lists it."""
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    scope = http_scope("GET", "/api/connections/unified", [(b"x-api-key", key.encode())])
    await app(scope, receive, send)
    listed = json.loads(b"".join(chunks))
    return str(next(c["id"] for c in listed if c["platform"] == "microblog"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--publishes", type=int, default=2000, help="publishes per round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--profile", type=Path, help="a cProfile of one more round, to FILE")
    args = parser.parse_args(argv)
    import uvloop

    found = uvloop.run(_measure(args.publishes, args.rounds, args.profile))
    import pressroom

    found["code"] = str(Path(pressroom.__file__).parents[1])
    print(json.dumps(found))


if __name__ == "__main__":
    main()
