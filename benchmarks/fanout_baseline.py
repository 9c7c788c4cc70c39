"""The fan-out baseline: the campaign's requests from a plain asyncio + httpx script.

It makes exactly the requests the flow makes for one edition (the connection list, two
status calls per medium as the upload and readiness steps do, every publish with the
same body and Idempotency-Key) under the same caps: at most ``--concurrency`` requests
in flight, at most ``--platform-concurrency`` to one platform. No Prefect, no retries.

``--order platform-first`` (the default) waits for a platform slot before taking a
global one, so a request held back by its platform never blocks another platform's.
``--order global-first`` takes the global slot first, as a pool of worker threads does
when each task then waits for its platform: the difference is head-of-line blocking.
``--order global-first-interleaved`` does the same with the requests reordered round
robin over the platforms (one of each platform in turn), which keeps the blocking low.

Run as a separate process; prints one JSON object. Reads ``PRESSROOM_BASE_URL`` and
``PRESSROOM_API_KEY``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from pressroom.campaign import PlannedPost, load, plan


def interleaved(posts: list[PlannedPost]) -> list[PlannedPost]:
    """Round robin over the platforms, keeping each platform's own order."""
    queues: dict[str, list[PlannedPost]] = {}
    for post in posts:
        queues.setdefault(post.platform.value, []).append(post)
    ordered: list[PlannedPost] = []
    while any(queues.values()):
        for queue in queues.values():
            if queue:
                ordered.append(queue.pop(0))
    return ordered


async def fan_out(
    campaign_file: Path,
    edition: str,
    file_ids: dict[str, str],
    *,
    concurrency: int,
    platform_concurrency: int,
    order: str,
) -> dict[str, Any]:
    base_url = os.environ["PRESSROOM_BASE_URL"].rstrip("/")
    headers = {"X-API-Key": os.environ["PRESSROOM_API_KEY"]}
    limits = httpx.Limits(max_connections=concurrency + 4, max_keepalive_connections=concurrency)
    started = time.perf_counter()
    cpu_started = time.process_time()
    async with httpx.AsyncClient(
        base_url=base_url, headers=headers, limits=limits, timeout=120
    ) as client:
        campaign = load(campaign_file)
        listed = await client.get("/api/connections/unified")
        listed.raise_for_status()
        fanned = plan(campaign, listed.json())
        for upload in fanned.uploads:  # the upload step's reuse check, then the readiness poll
            for _ in range(2):
                status = await client.get(f"/api/upload/status/{file_ids[upload.name]}")
                status.raise_for_status()

        everyone = asyncio.Semaphore(concurrency)
        platforms: dict[str, asyncio.Semaphore] = {}

        async def send(planned: PlannedPost) -> int:
            body = planned.publish_body(file_ids)
            key = planned.idempotency_key(edition)
            platform = platforms.setdefault(
                planned.platform.value, asyncio.Semaphore(platform_concurrency)
            )
            first, second = (
                (platform, everyone) if order == "platform-first" else (everyone, platform)
            )
            async with first, second:
                response = await client.post(
                    planned.endpoint, json=body, headers={"Idempotency-Key": key}
                )
            return response.status_code

        posts = list(fanned.posts)
        if order == "global-first-interleaved":
            posts = interleaved(posts)
        statuses = await asyncio.gather(*(send(p) for p in posts))
    return {
        "wall_seconds": time.perf_counter() - started,
        "cpu_seconds": time.process_time() - cpu_started,
        "requests": len(statuses),
        "statuses": dict(Counter(str(s) for s in statuses)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--campaign", type=Path, required=True)
    parser.add_argument("--edition", required=True)
    parser.add_argument("--file-ids", required=True, help="JSON: media name → fileId")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--platform-concurrency", type=int, default=4)
    parser.add_argument(
        "--order",
        choices=["platform-first", "global-first", "global-first-interleaved"],
        default="platform-first",
    )
    args = parser.parse_args(argv)
    result = asyncio.run(
        fan_out(
            args.campaign,
            args.edition,
            json.loads(args.file_ids),
            concurrency=args.concurrency,
            platform_concurrency=args.platform_concurrency,
            order=args.order,
        )
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
