"""Benchmark 5, readiness: from the end of a video's PUT to ``ready``, for a 4-second and
a 2-minute video (640x360 H.264), on ``pressroom api`` with local storage.

The status is polled every 10 ms from the moment the PUT is answered. Baselines in the
same run: ``pressroom.probe.probe`` on the same file in this process (what processing
must do at least), and the same probe in a fresh Python process (what the first file of
a service also pays: the service probes in a spawned worker process, started on first
use). Each run starts a fresh service: its first video is "cold" (the worker process
starts), the next ones "warm".
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import PYTHON, load_average, pressroom_api, seed_account, summary
from benchmarks.media import make_video

POLL_SECONDS = 0.01


@dataclass(frozen=True)
class Config:
    runs: int = 3
    long_seconds: float = 120.0


FULL = Config()
QUICK = Config(runs=3)
SMOKE = Config(runs=1, long_seconds=0)


def _ready_after_put(client: Any, base_url: str, key: str, video: Path) -> float:
    presigned = client.presign(filename=video.name, content_type="video/mp4")
    client.put_file(presigned, video)
    put_done = time.perf_counter()
    with httpx.Client(base_url=base_url, headers={"X-API-Key": key}) as http:
        while True:
            status = http.get(f"/api/upload/status/{presigned.file_id}").json()["status"]
            if status == "ready":
                return time.perf_counter() - put_done
            if status == "failed":
                raise RuntimeError(f"{video.name} failed to process")
            if time.perf_counter() - put_done > 300:
                raise RuntimeError(f"{video.name} not ready after 300 s")
            time.sleep(POLL_SECONDS)


def _probe_in_process(video: Path) -> float:
    from pressroom.probe import probe

    probe(video, "video/mp4")  # warm
    started = time.perf_counter()
    probe(video, "video/mp4")
    return time.perf_counter() - started


def _probe_fresh_process(video: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [PYTHON, "-c", f"from pressroom.probe import probe; probe({str(video)!r}, 'video/mp4')"],
        check=True,
        timeout=120,
    )
    return time.perf_counter() - started


def run(work: Path, config: Config = FULL) -> dict[str, Any]:
    from pressroom.client import Client

    work.mkdir(parents=True, exist_ok=True)
    videos = {"4 s": make_video(work / "four-seconds.mp4", 4)}
    if config.long_seconds:
        videos["2 min"] = make_video(work / "two-minutes.mp4", config.long_seconds)
    result: dict[str, Any] = {
        "load_average": {"before": load_average()},
        "poll_ms": POLL_SECONDS * 1000,
        "videos": {name: {"bytes": path.stat().st_size} for name, path in videos.items()},
    }
    samples: dict[str, list[float]] = {"cold 4 s": []}
    probes: dict[str, list[float]] = {}
    fresh: list[float] = []
    for index in range(config.runs):
        data_dir = work / f"service-{index}"
        key = seed_account(data_dir, None, [])
        with (
            pressroom_api(data_dir, work / f"service-{index}.log") as service,
            Client(base_url=service.base_url, api_key=key) as client,
        ):
            samples["cold 4 s"].append(
                _ready_after_put(client, service.base_url, key, videos["4 s"])
            )
            for name, video in videos.items():
                samples.setdefault(f"warm {name}", []).append(
                    _ready_after_put(client, service.base_url, key, video)
                )
        for name, path in videos.items():
            probes.setdefault(name, []).append(_probe_in_process(path))
        fresh.append(_probe_fresh_process(videos["4 s"]))
    figures = {}
    for name, values in samples.items():
        base = fresh if name.startswith("cold") else probes[name.split(" ", 1)[1]]
        figures[name] = {
            "ready_seconds": summary(values),
            "baseline": "probe in a fresh process"
            if name.startswith("cold")
            else "probe in process",
            "baseline_seconds": summary(base),
            "ratio": summary([v / b for v, b in zip(values, base, strict=True)]),
        }
    result["figures"] = figures
    result["load_average"]["after"] = load_average()
    for path in videos.values():
        path.unlink(missing_ok=True)
    return result
