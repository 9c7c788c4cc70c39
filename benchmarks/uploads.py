"""Benchmark 3, uploads and downloads: a 512 MiB file PUT with ``curl -T`` to the local
storage backend's presigned URL (the performance issue's row), the same file PUT by
``pressroom.client`` and downloaded back, against a plain disk copy
(``shutil.copyfile``) of the same file in the same run; and the peak memory of the
``pressroom api`` process (``VmHWM`` in ``/proc/<pid>/status``) against its idle size.

The service fsyncs an upload before it answers, so the copy is timed twice: as
``shutil.copyfile`` alone and followed by an fsync (the like-for-like baseline of the
PUT). The download is written by the client without an fsync, like ``copyfile`` alone.
Each run uses a fresh service and data dir; every large file is deleted afterwards.

What any PUT on this stack could reach on two cores is measured in the same run from
its parts, each alone: ``curl -T`` of the file to a bare ASGI app under uvicorn with the
service's HTTP protocol that drops the bytes (:func:`drain_app`, the server's and curl's
CPU; the same under uvicorn's own protocol is recorded beside it), ``hashlib.sha256`` of
the file, and writing it from memory to a file (its blocks reserved first, as the
service does) with an fsync. Their CPU added up and
shared perfectly by both cores is the shortest wall time a PUT that receives, hashes and
writes every byte could take here (``floor``).
"""

from __future__ import annotations

import filecmp
import hashlib
import os
import resource
import shutil
import subprocess
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import (
    PYTHON,
    cpu_seconds,
    free_port,
    load_average,
    pressroom_api,
    running,
    seed_account,
    summary,
)
from benchmarks.media import TEASER, make_large_mp4
from pressroom.service.http_protocol import PROTOCOL
from pressroom.service.storage.preallocate import reserve

MIB = 1024 * 1024
MEMORY_BUDGET = 64 * MIB
FREE_NEEDED = 5 * 1024**3
CURL = "/usr/bin/curl"
GOAL = 0.60
"""The performance issue's goal: a 512 MiB presigned PUT with ``curl -T`` at 0.60× or
more of ``shutil.copyfile`` + fsync of the same file on the same disk."""


@dataclass(frozen=True)
class Config:
    size: int = 512 * MIB
    runs: int = 3
    also: tuple[int, ...] = ()
    """Sizes measured once more each (a 1 GiB file for ``pressroom.client``'s figure of
    earlier rounds, a small one to show the peak memory does not grow with the size)."""


FULL = Config(also=(1024 * MIB, 128 * MIB))
QUICK = Config()
SMOKE = Config(size=8 * MIB, runs=1)


async def drain_app(
    scope: MutableMapping[str, Any],
    receive: Callable[[], Awaitable[MutableMapping[str, Any]]],
    send: Callable[[MutableMapping[str, Any]], Awaitable[None]],
) -> None:
    """A bare ASGI app that takes a request's body and drops it: the stack's own cost of
    receiving, for the floor."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def curl_put(url: str, source: Path, content_type: str) -> float:
    """PUT the file with ``curl -T`` as a user would; returns curl's CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    argv = [CURL, "-sS", "-T", str(source), "-H", f"Content-Type: {content_type}"]
    done = subprocess.run(
        [*argv, "-o", "/dev/null", "-w", "%{http_code}", url],
        capture_output=True,
        text=True,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.stdout != "200":
        raise RuntimeError(f"curl -T answered {done.stdout}: {done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _copy(source: Path, target: Path, *, fsync: bool) -> float:
    started = time.perf_counter()
    shutil.copyfile(source, target)
    if fsync:
        with target.open("rb+") as handle:
            os.fsync(handle.fileno())
    took = time.perf_counter() - started
    target.unlink()
    return took


def _hash(source: Path) -> tuple[float, float]:
    """``hashlib.sha256`` over the file, read in 1 MiB blocks into one buffer: the hash
    alone; its wall time and the CPU of the hash itself (the reads left out)."""
    block = bytearray(MIB)
    view = memoryview(block)
    started = time.perf_counter()
    cpu = 0.0
    digest = hashlib.sha256()
    with source.open("rb", buffering=0) as handle:
        while count := handle.readinto(block):
            mark = time.thread_time()
            digest.update(view[:count])
            cpu += time.thread_time() - mark
    return time.perf_counter() - started, cpu


def _write_fsync(target: Path, size: int) -> float:
    """CPU seconds of writing ``size`` bytes from memory in 1 MiB writes, then an fsync:
    the disk's share of a PUT's work, without reading anything."""
    block = os.urandom(MIB)
    started = time.thread_time()
    with target.open("wb", buffering=0) as writer:
        reserve(writer.fileno(), size)  # as the service does with a declared size
        for _ in range(size // MIB):
            writer.write(block)
        writer.write(block[: size % MIB])
        os.fsync(writer.fileno())
    took = time.thread_time() - started
    target.unlink()
    return took


def _drain(work: Path, source: Path, http: str = PROTOCOL) -> tuple[float, float, float]:
    """``curl -T`` of the file to :func:`drain_app` under uvicorn as the service has it
    (uvloop, httptools, pressroom's protocol; ``http="httptools"`` for uvicorn's own):
    wall, server CPU and curl's CPU seconds."""
    port = free_port()
    argv = [PYTHON, "-m", "uvicorn", "benchmarks.uploads:drain_app", "--port", str(port)]
    argv += ["--log-level", "warning", "--no-access-log", "--http", http]
    with running(argv, env=dict(os.environ), port=port, log=work / "drain.log") as server:
        url = f"{server.base_url}/drain"
        curl_put(url, TEASER, "video/mp4")  # warm
        server_cpu = cpu_seconds(server.pid)
        started = time.perf_counter()
        curl_cpu = curl_put(url, source, "video/mp4")
        wall = time.perf_counter() - started
        return wall, cpu_seconds(server.pid) - server_cpu, curl_cpu


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
    result["hash_seconds"], result["hash_cpu"] = _hash(source)
    result["hash_copy_fsync_seconds"] = _hash_copy(source, work / "copy.bin")
    result["write_fsync_cpu"] = _write_fsync(work / "copy.bin", size)
    result["drain_seconds"], result["drain_server_cpu"], result["drain_curl_cpu"] = _drain(
        work, source
    )
    uvicorn_drain = _drain(work, source, "httptools")
    result["drain_uvicorn_seconds"], result["drain_uvicorn_server_cpu"] = uvicorn_drain[:2]
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

        # the row: curl -T to the presigned URL
        presigned = client.presign(filename="curl.mp4", content_type="video/mp4")
        service_cpu = cpu_seconds(service.pid)
        started = time.perf_counter()
        url = presigned.upload_url  # absolute on the local backend (PRESSROOM_BASE_URL)
        result["curl_put_client_cpu"] = curl_put(url, source, "video/mp4")
        result["curl_put_seconds"] = time.perf_counter() - started
        result["curl_put_service_cpu"] = cpu_seconds(service.pid) - service_cpu
        result["after_curl_hwm"] = service.memory()["VmHWM"]
        status = client.wait_until_ready(presigned.file_id, poll_interval=0.1, timeout=600)
        assert status.status == "ready", status
        stored = data_dir / "media" / "files" / presigned.file_id
        result["curl_same_bytes"] = filecmp.cmp(source, stored, shallow=False)
        client.delete_file(presigned.file_id)  # and its bytes

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
    # the shortest wall time of receiving, hashing and writing every byte, both cores busy
    result["floor_seconds"] = (
        result["drain_server_cpu"]
        + result["drain_curl_cpu"]
        + result["hash_cpu"]
        + result["write_fsync_cpu"]
    ) / 2
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
        "goal": GOAL,
    }
    sizes = [size] + [each for each in config.also if each != size and not note]
    result["sizes"] = {}
    for each in sizes:
        source = make_large_mp4(work / f"source-{each // MIB}MiB.mp4", each)
        runs = []
        try:
            for index in range(config.runs if each == size else 1):
                runs.append(one_run(work / f"run-{each // MIB}-{index}", source))
        finally:
            source.unlink(missing_ok=True)
        result["sizes"][str(each // MIB)] = figures(each, runs)
    row = result["sizes"][str(size // MIB)]
    result["row"] = {
        "size_mib": size // MIB,
        "ratio": row["curl_put_to_copy_fsync"],
        "goal": GOAL,
        "met": row["curl_put_to_copy_fsync"]["median"] >= GOAL,
        "floor_ratio": row["floor_to_copy_fsync"],
    }
    result["load_average"]["after"] = load_average()
    return result


def figures(size: int, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one file size over its runs: each a median with its spread."""
    mib_s = size / MIB
    gib = size / 1024**3
    return {
        "bytes": size,
        "runs": len(runs),
        "curl_put_mib_s": summary([mib_s / r["curl_put_seconds"] for r in runs]),
        "curl_put_to_copy_fsync": summary(
            [r["copy_fsync_seconds"] / r["curl_put_seconds"] for r in runs]
        ),
        "curl_put_service_cpu_per_gib": summary([r["curl_put_service_cpu"] / gib for r in runs]),
        "curl_put_client_cpu_per_gib": summary([r["curl_put_client_cpu"] / gib for r in runs]),
        "curl_after_put_growth_mib": summary(
            [(r["after_curl_hwm"] - r["idle_rss"]) / MIB for r in runs]
        ),
        "curl_same_bytes": all(r["curl_same_bytes"] for r in runs),
        "drain_mib_s": summary([mib_s / r["drain_seconds"] for r in runs]),
        "drain_server_cpu_per_gib": summary([r["drain_server_cpu"] / gib for r in runs]),
        "drain_curl_cpu_per_gib": summary([r["drain_curl_cpu"] / gib for r in runs]),
        "drain_uvicorn_mib_s": summary([mib_s / r["drain_uvicorn_seconds"] for r in runs]),
        "drain_uvicorn_server_cpu_per_gib": summary(
            [r["drain_uvicorn_server_cpu"] / gib for r in runs]
        ),
        "hash_cpu_per_gib": summary([r["hash_cpu"] / gib for r in runs]),
        "write_fsync_cpu_per_gib": summary([r["write_fsync_cpu"] / gib for r in runs]),
        "floor_seconds": summary([r["floor_seconds"] for r in runs]),
        "floor_to_copy_fsync": summary(
            [r["copy_fsync_seconds"] / r["floor_seconds"] for r in runs]
        ),
        "put_mib_s": summary([mib_s / r["put_seconds"] for r in runs]),
        "put_seconds": summary([r["put_seconds"] for r in runs]),
        "get_mib_s": summary([mib_s / r["get_seconds"] for r in runs]),
        "copy_mib_s": summary([mib_s / r["copy_seconds"] for r in runs]),
        "copy_fsync_mib_s": summary([mib_s / r["copy_fsync_seconds"] for r in runs]),
        "copy_fsync_seconds": summary([r["copy_fsync_seconds"] for r in runs]),
        "hash_mib_s": summary([mib_s / r["hash_seconds"] for r in runs]),
        "hash_to_copy_fsync": summary([r["copy_fsync_seconds"] / r["hash_seconds"] for r in runs]),
        "hash_copy_fsync_mib_s": summary([mib_s / r["hash_copy_fsync_seconds"] for r in runs]),
        "hash_copy_to_copy_fsync": summary(
            [r["copy_fsync_seconds"] / r["hash_copy_fsync_seconds"] for r in runs]
        ),
        "put_to_copy": summary([r["copy_seconds"] / r["put_seconds"] for r in runs]),
        "put_to_copy_fsync": summary([r["copy_fsync_seconds"] / r["put_seconds"] for r in runs]),
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
