"""A closed-loop HTTP load generator: asyncio + httpx, run as its own process.

``--connections`` workers each send one request after another on their own kept-alive
connection, for ``--warmup`` seconds unmeasured, then ``--duration`` seconds (or until
``--max-requests``) measured. ``{n}`` in a header value or the body becomes a number
unique to the request (for Idempotency-Keys). Only 127.0.0.1 is accepted as a target.
Prints one JSON object: requests, rps, p50/p99 latency in ms, statuses.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

# Run as a script by path: make `benchmarks` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import percentile


async def load(
    url: str,
    method: str,
    headers: dict[str, str],
    body: str | None,
    *,
    connections: int,
    duration: float,
    warmup: float,
    max_requests: int,
) -> dict[str, Any]:
    counter = itertools.count()
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    # One client (one kept-alive connection) per worker: a shared pool of 32 connections
    # spends more time in its own bookkeeping than on the requests.
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    # Clients are made before the clock starts: each builds an SSL context, slowly.
    clients = [httpx.AsyncClient(limits=limits, timeout=30) for _ in range(connections)]
    started = time.perf_counter()
    measure_from = started + warmup
    stop_at = measure_from + duration
    measured = 0
    total = 0

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal measured, total
        async with client:
            while True:
                now = time.perf_counter()
                if now >= stop_at or measured >= max_requests:
                    return
                n = str(next(counter))
                sent_headers = {k: v.replace("{n}", n) for k, v in headers.items()}
                content = body.replace("{n}", n).encode() if body is not None else None
                begin = time.perf_counter()
                try:
                    response = await client.request(
                        method, url, headers=sent_headers, content=content
                    )
                    status = str(response.status_code)
                except httpx.HTTPError as exc:
                    status = ""
                    if begin >= measure_from:
                        errors[type(exc).__name__] += 1
                end = time.perf_counter()
                total += 1
                if begin >= measure_from and end <= stop_at:
                    measured += 1
                    latencies.append(end - begin)
                    if status:
                        statuses[status] += 1

    await asyncio.gather(*(worker(client) for client in clients))
    seconds = min(time.perf_counter(), stop_at) - measure_from
    return {
        "generator": "httpx",
        "requests": len(latencies),
        "total_requests": total,
        "seconds": seconds,
        "rps": len(latencies) / seconds if seconds > 0 else float("nan"),
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "statuses": dict(statuses),
        "errors": dict(errors),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("url")
    parser.add_argument("--method", default="GET")
    parser.add_argument("--header", action="append", default=[], help="Name: value")
    parser.add_argument("--body")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--max-requests", type=int, default=200_000)
    args = parser.parse_args(argv)
    if urlsplit(args.url).hostname != "127.0.0.1":
        parser.error("the load generator only targets 127.0.0.1")
    headers = dict(h.split(": ", 1) for h in args.header)
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    result = runner(
        load(
            args.url,
            args.method,
            headers,
            args.body,
            connections=args.connections,
            duration=min(args.duration, 120.0),
            warmup=min(args.warmup, 30.0),
            max_requests=args.max_requests,
        )
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
