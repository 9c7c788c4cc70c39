"""The fan-out's requests as a plain Prefect flow: each publish a bare Prefect task.

The same requests as the plain script (``fanout_baseline.py``: the same bodies and
Idempotency-Keys, one shared HTTP client) written as Prefect's own examples write a flow:
one ``@task`` per publish with Prefect's defaults (no retries, no persisted result, no
exactly-once record), submitted round robin over the platforms to a thread pool of
``--concurrency`` workers, at most ``--platform-concurrency`` requests to one platform.
The connection list and the two status calls per medium are made in the flow's body.

It is a reference, not a floor: pressroom's flow does more per post (retries, the
exactly-once record, its result rows) and is tuned where Prefect leaves a choice (task
arguments Prefect need not walk, no heartbeat), so it can be faster. It shows what the
stack costs used as it comes, beside the goals for ``pressroom campaign run``.

Run as a separate process, in the environment ``pressroom campaign run`` gets
(``PREFECT_API_URL`` for a running server, else Prefect starts its own temporary one);
prints one JSON object. Reads ``PRESSROOM_BASE_URL`` and ``PRESSROOM_API_KEY``.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from prefect import flow, task
from prefect.task_runners import ThreadPoolTaskRunner

from benchmarks.fanout_baseline import interleaved
from pressroom.campaign import load, plan

_client: httpx.Client | None = None
_platforms: dict[str, threading.BoundedSemaphore] = {}


@task
def send(endpoint: str, body: dict[str, Any], key: str, platform: str) -> int:
    assert _client is not None
    with _platforms[platform]:
        response = _client.post(endpoint, json=body, headers={"Idempotency-Key": key})
    return response.status_code


def fan_out(
    campaign_file: str, edition: str, file_ids: dict[str, str], platform_concurrency: int
) -> dict[str, int]:
    """The flow's body: the script's requests, each publish a task; their statuses."""
    assert _client is not None
    listed = _client.get("/api/connections/unified")
    listed.raise_for_status()
    fanned = plan(load(Path(campaign_file)), listed.json())
    for upload in fanned.uploads:
        for _ in range(2):
            _client.get(f"/api/upload/status/{file_ids[upload.name]}").raise_for_status()
    posts = interleaved(list(fanned.posts))
    for planned in posts:
        _platforms.setdefault(
            planned.platform.value, threading.BoundedSemaphore(platform_concurrency)
        )
    futures = [
        send.submit(
            planned.endpoint,
            planned.publish_body(file_ids),
            planned.idempotency_key(edition),
            planned.platform.value,
        )
        for planned in posts
    ]
    return dict(Counter(str(future.result()) for future in futures))


def main(argv: list[str] | None = None) -> None:
    global _client
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--campaign", required=True)
    parser.add_argument("--edition", required=True)
    parser.add_argument("--file-ids", required=True, help="JSON: media name → fileId")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--platform-concurrency", type=int, default=4)
    args = parser.parse_args(argv)
    base_url = os.environ["PRESSROOM_BASE_URL"].rstrip("/")
    limits = httpx.Limits(
        max_connections=args.concurrency + 4, max_keepalive_connections=args.concurrency
    )
    plain = flow(name="fan-out-plain", task_runner=ThreadPoolTaskRunner(args.concurrency))(fan_out)
    with httpx.Client(
        base_url=base_url,
        headers={"X-API-Key": os.environ["PRESSROOM_API_KEY"]},
        limits=limits,
        timeout=120,
    ) as client:
        _client = client
        called = time.perf_counter()
        statuses = plain(
            args.campaign, args.edition, json.loads(args.file_ids), args.platform_concurrency
        )
        flow_seconds = time.perf_counter() - called
    print(json.dumps({"statuses": statuses, "flow_seconds": flow_seconds}), flush=True)


if __name__ == "__main__":
    main()
