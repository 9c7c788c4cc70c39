"""Benchmark 3, uploads and downloads: a large file PUT through the local storage backend
(presigned URL, streamed by ``pressroom.client``) and downloaded back, against a plain
disk copy (``shutil.copyfile``) of the same file in the same run; and the peak memory
of the ``pressroom api`` process (``VmHWM`` in ``/proc/<pid>/status``) against its idle
size.

The service fsyncs an upload before it answers, so the copy is timed twice: as
``shutil.copyfile`` alone and followed by an fsync (the like-for-like baseline of the
PUT). The download is written by the client without an fsync, like ``copyfile`` alone.
Each run uses a fresh service and data dir; every large file is deleted afterwards.
"""

from __future__ import annotations

import filecmp
import hashlib
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import cpu_seconds, load_average, pressroom_api, seed_account, summary
from benchmarks.media import TEASER, make_large_mp4

MIB = 1024 * 1024
MEMORY_BUDGET = 64 * MIB
FREE_NEEDED = 5 * 1024**3


@dataclass(frozen=True)
class Config:
    size: int = 1024 * MIB
    runs: int = 3
    small_size: int = 0
    """Also measure memory at this size (0: not), to show the peak does not grow with it."""


FULL = Config(small_size=128 * MIB)
QUICK = Config(size=256 * MIB, runs=3)
SMOKE = Config(size=8 * MIB, runs=1)


def _copy(source: Path, target: Path, *, fsync: bool) -> float:
    started = time.perf_counter()
    shutil.copyfile(source, target)
    if fsync:
        with target.open("rb+") as handle:
            os.fsync(handle.fileno())
    took = time.perf_counter() - started
    target.unlink()
    return took


def _hash(source: Path) -> float:
    """``hashlib.sha256`` over the file, read in 1 MiB blocks into one buffer: the hash alone."""
    block = bytearray(MIB)
    view = memoryview(block)
    started = time.perf_counter()
    digest = hashlib.sha256()
    with source.open("rb", buffering=0) as handle:
        while count := handle.readinto(block):
            digest.update(view[:count])
    return time.perf_counter() - started


def _hash_copy(source: Path, target: Path) -> float:
    """The PUT's work per byte on one thread without the network: read, hash, write, fsync."""
    block = bytearray(MIB)
    view = memoryview(block)
    started = time.perf_counter()
    digest = hashlib.sha256()
    with source.open("rb", buffering=0) as reader, target.open("wb", buffering=0) as writer:
        while count := reader.readinto(block):
            digest.update(view[:count])
            writer.write(view[:count])
        os.fsync(writer.fileno())
    took = time.perf_counter() - started
    target.unlink()
    return took


def one_run(work: Path, source: Path) -> dict[str, Any]:
    from pressroom.client import Client

    size = source.stat().st_size
    data_dir = work / "service"
    key = seed_account(data_dir, None, [])
    result: dict[str, Any] = {"bytes": size}
    # the baseline first, on the same file and the same disk
    result["copy_seconds"] = _copy(source, work / "copy.bin", fsync=False)
    result["copy_fsync_seconds"] = _copy(source, work / "copy.bin", fsync=True)
    result["hash_seconds"] = _hash(source)
    result["hash_copy_fsync_seconds"] = _hash_copy(source, work / "copy.bin")
    with (
        pressroom_api(data_dir, work / "service.log") as service,
        Client(base_url=service.base_url, api_key=key, timeout=600) as client,
    ):
        # warm the paths (and start the probe worker) with a small file first
        warm = client.upload(TEASER, poll_interval=0.1, timeout=120)
        client.download_to(warm.file_id, work / "warm.mp4")
        idle = service.memory()
        result["idle_rss"] = idle["VmRSS"]
        result["idle_hwm"] = idle["VmHWM"]

        presigned = client.presign(filename="large.mp4", content_type="video/mp4")
        service_cpu, client_cpu = cpu_seconds(service.pid), time.process_time()
        started = time.perf_counter()
        client.put_file(presigned, source)
        result["put_seconds"] = time.perf_counter() - started
        result["put_service_cpu"] = cpu_seconds(service.pid) - service_cpu
        result["put_client_cpu"] = time.process_time() - client_cpu
        result["after_put_hwm"] = service.memory()["VmHWM"]
        status = client.wait_until_ready(presigned.file_id, poll_interval=0.1, timeout=600)
        assert status.status == "ready", status
        target = work / "downloaded.mp4"
        service_cpu, client_cpu = cpu_seconds(service.pid), time.process_time()
        started = time.perf_counter()
        client.download_to(presigned.file_id, target)
        result["get_seconds"] = time.perf_counter() - started
        result["get_service_cpu"] = cpu_seconds(service.pid) - service_cpu
        result["get_client_cpu"] = time.process_time() - client_cpu
        memory = service.memory()
        result["peak_hwm"] = memory["VmHWM"]
        result["end_rss"] = memory["VmRSS"]
        result["same_bytes"] = target.stat().st_size == size and filecmp.cmp(
            source, target, shallow=False
        )
        target.unlink()
    shutil.rmtree(data_dir, ignore_errors=True)
    result["growth"] = result["peak_hwm"] - result["idle_rss"]
    return result


def run(work: Path, config: Config = FULL) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(work).free
    size = config.size
    note = None
    if free < FREE_NEEDED and size > 256 * MIB:
        size = 256 * MIB
        note = f"only {free / 1024**3:.1f} GiB free on the disk: a 256 MiB file instead of {config.size // MIB} MiB"
    result: dict[str, Any] = {
        "load_average": {"before": load_average()},
        "note": note,
        "disk_free_gib": round(free / 1024**3, 1),
    }
    sizes = [size] + ([config.small_size] if config.small_size else [])
    result["sizes"] = {}
    for each in sizes:
        source = make_large_mp4(work / f"source-{each // MIB}MiB.mp4", each)
        runs = []
        try:
            for index in range(config.runs if each == size else 1):
                runs.append(one_run(work / f"run-{each // MIB}-{index}", source))
        finally:
            source.unlink(missing_ok=True)
        mib_s = each / MIB
        result["sizes"][str(each // MIB)] = {
            "bytes": each,
            "runs": len(runs),
            "put_mib_s": summary([mib_s / r["put_seconds"] for r in runs]),
            "put_seconds": summary([r["put_seconds"] for r in runs]),
            "get_mib_s": summary([mib_s / r["get_seconds"] for r in runs]),
            "copy_mib_s": summary([mib_s / r["copy_seconds"] for r in runs]),
            "copy_fsync_mib_s": summary([mib_s / r["copy_fsync_seconds"] for r in runs]),
            "hash_mib_s": summary([mib_s / r["hash_seconds"] for r in runs]),
            "hash_to_copy_fsync": summary(
                [r["copy_fsync_seconds"] / r["hash_seconds"] for r in runs]
            ),
            "hash_copy_fsync_mib_s": summary([mib_s / r["hash_copy_fsync_seconds"] for r in runs]),
            "hash_copy_to_copy_fsync": summary(
                [r["copy_fsync_seconds"] / r["hash_copy_fsync_seconds"] for r in runs]
            ),
            "put_to_copy": summary([r["copy_seconds"] / r["put_seconds"] for r in runs]),
            "put_to_copy_fsync": summary(
                [r["copy_fsync_seconds"] / r["put_seconds"] for r in runs]
            ),
            "get_to_copy": summary([r["copy_seconds"] / r["get_seconds"] for r in runs]),
            "put_service_cpu_s": summary([r["put_service_cpu"] for r in runs]),
            "put_client_cpu_s": summary([r["put_client_cpu"] for r in runs]),
            "get_service_cpu_s": summary([r["get_service_cpu"] for r in runs]),
            "get_client_cpu_s": summary([r["get_client_cpu"] for r in runs]),
            "idle_rss_mib": summary([r["idle_rss"] / MIB for r in runs]),
            "peak_hwm_mib": summary([r["peak_hwm"] / MIB for r in runs]),
            "growth_mib": summary([r["growth"] / MIB for r in runs]),
            "within_budget": all(r["growth"] <= MEMORY_BUDGET for r in runs),
            "same_bytes": all(r["same_bytes"] for r in runs),
            "raw": runs,
        }
    result["load_average"]["after"] = load_average()
    return result
