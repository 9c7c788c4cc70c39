"""Benchmark 1, campaign fan-out: the run-campaign flow against a plain asyncio + httpx
script making the same requests under the same caps, on the same ``pressroom api``.

The campaign spreads its publish requests over the eight platforms, several connections
each (200 requests: 5 connections per platform × 5 posts per kind), with the sandbox
latency at 200 ms. Caps for both: 16 in flight, 4 per platform (the pipeline's
defaults). The ideal is requests × latency / concurrency.

Three ways of running Prefect, each with its own ``PREFECT_HOME``:
- ephemeral, one process: start-up once, then several flow runs in a row;
- ephemeral, fresh processes: one flow run per new process (start-up each time);
- a real ``prefect server`` (started here with pressroom's server settings, as
  ``pressroom serve`` starts one), several runs in one process.
Each flow run is paired with a script run (alternating which goes first), so the ratio
of a pair shares the machine's state at that moment.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import (
    PRESSROOM,
    PYTHON,
    ROOT,
    free_port,
    load_average,
    pressroom_api,
    seed_account,
    summary,
    tail,
    wait_http,
)
from pressroom.pipeline import prefect_settings

KINDS = {
    # platform: (the post kind, the block written for it)
    "microblog": ("text", {"text": "Fan-out {n}: spring is here 🌷"}),
    "text_thread": ("text", {"text": "Fan-out {n}: the spring collection is here."}),
    "professional_network": ("text", {"text": "Fan-out {n}: we launched our spring line."}),
    "photo_sharing": ("image", {"caption": "Fan-out {n} #spring"}),
    "page_social": ("image", {"message": "Fan-out {n}: open today."}),
    "pin_board": ("image", {"board": "bench", "title": "Fan-out {n}"}),
    "video_sharing": ("video", {"title": "Fan-out {n}", "privacy": "unlisted"}),
    "short_video": ("video", {"caption": "Fan-out {n} #spring", "privacy_level": "SELF_ONLY"}),
}
CONNECTABLE: dict[str, tuple[str, dict[str, Any]]] = {
    # the seven platforms connected directly; text_thread comes with photo_sharing
    "microblog": ("@bench{i}", {}),
    "video_sharing": ("Bench Channel {i}", {"verified": True}),
    "short_video": ("@bench.clips{i}", {}),
    "photo_sharing": ("bench.photos{i}", {"account_type": "business"}),
    "page_social": ("Bench Page {i}", {}),
    "pin_board": ("bench-pins-{i}", {}),
    "professional_network": ("Bench Inc {i}", {}),
}
GOALS = {
    "flow": 1.25,
    "whole_process": 2.0,
    "whole_process_on_server": 1.5,
}
"""The performance issue's goals, flow (or process) ÷ script in the same run: the flow
alone ('Beginning flow run' to 'Finished'); ``pressroom campaign run`` as a whole process
with its own temporary Prefect server (nothing running before); the same beside a
running Prefect server (``PREFECT_API_URL`` set)."""

MEDIA = {"image": "cover.jpg", "video": "teaser-vertical.mp4"}
"""cover.jpg, not the 2:3 poster: Instagram takes 4:5 to 1.91:1 (``pressroom.rules``)."""


@dataclass(frozen=True)
class Config:
    connections_per_platform: int = 5
    posts_per_kind: int = 5
    latency_ms: int = 200
    concurrency: int = 16
    platform_concurrency: int = 4
    runs_one_process: int = 5
    fresh_processes: int = 3
    server_runs: int = 3
    real_server: bool = True
    global_first: bool = True
    profile: bool = True
    whole_process_runs: int = 3
    """Pairs of whole processes: ``pressroom campaign run`` and the script, start to exit."""
    task_overhead_runs: int = 3
    """Runs of the no-op task flows (``task_overhead.py``) in the one-process workers."""
    variants: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
        (
            "ephemeral, one process, Prefect's default server settings",
            (
                # Prefect's own defaults, in place of pressroom's batched writes
                # (pressroom.pipeline.prefect_settings.SERVER).
                ("PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE", "1"),
                ("PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL", "5"),
                ("PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE", "20"),
                ("PREFECT_SERVER_SERVICES_EVENT_PERSISTER_FLUSH_INTERVAL", "5"),
            ),
        ),
        (
            "ephemeral, one process, lighter Prefect settings",
            (
                ("PREFECT_LOGGING_TO_API_ENABLED", "false"),
                ("PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED", "false"),
            ),
        ),
    )
    """Experiments: the one-process ephemeral runs again with Prefect settings changed."""

    @property
    def requests(self) -> int:
        return self.connections_per_platform * self.posts_per_kind * len(KINDS)

    @property
    def ideal_seconds(self) -> float:
        return self.requests * self.latency_ms / 1000 / self.concurrency


FULL = Config()
QUICK = Config(
    runs_one_process=3,
    fresh_processes=1,
    server_runs=3,
    whole_process_runs=2,
    task_overhead_runs=2,
    variants=(),
)
SMOKE = Config(
    connections_per_platform=1,
    posts_per_kind=1,
    latency_ms=0,
    runs_one_process=1,
    fresh_processes=0,
    server_runs=0,
    whole_process_runs=1,
    real_server=False,
    global_first=False,
    profile=False,
    task_overhead_runs=0,
    variants=(),
)


def write_campaign(folder: Path, config: Config) -> Path:
    """The fan-out campaign: per kind, ``posts_per_kind`` posts to every connection."""
    media_dir = folder / "media"
    media_dir.mkdir(parents=True, exist_ok=True)
    for name in MEDIA.values():
        shutil.copyfile(ROOT / "pipelines" / "media" / name, media_dir / name)
    lines = [
        "name: fan-out",
        "media:",
        *(f"  {kind}:\n    path: media/{name}" for kind, name in MEDIA.items()),
        "posts:",
    ]
    for kind in ("text", "image", "video"):
        for n in range(1, config.posts_per_kind + 1):
            lines.append(f"  - id: {kind}-{n}")
            if kind != "text":
                lines.append(f"    media: {kind}")
            for platform, (platform_kind, block) in KINDS.items():
                if platform_kind != kind:
                    continue
                lines.append(f"    {platform}:")
                for field, value in block.items():
                    lines.append(
                        f"      {field}: {json.dumps(value.format(n=n), ensure_ascii=False)}"
                    )
    path = folder / "fan-out.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def connections(config: Config) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (platform, name.format(i=i), dict(extra))
        for i in range(1, config.connections_per_platform + 1)
        for platform, (name, extra) in CONNECTABLE.items()
    ]


def _upload_media(campaign: Path, base_url: str, key: str, state_dir: Path) -> dict[str, str]:
    """Upload the campaign's media once and remember them as the pipeline does, so the
    runs measure publishing (the flow then only checks their status, as the script does)."""
    from pressroom.campaign import load, plan
    from pressroom.client import Client
    from pressroom.pipeline.config import PipelineSettings
    from pressroom.pipeline.media_memory import MediaMemory

    state = PipelineSettings(state_dir=state_dir).state_for(base_url)
    memory = MediaMemory(state.media_memory_file)
    file_ids = {}
    with Client(base_url=base_url, api_key=key) as client:
        fanned = plan(load(campaign), client.list_connections())
        for upload in fanned.uploads:
            status = client.upload(upload.path, poll_interval=0.1, timeout=120)
            memory.remember(upload.sha256, status.file_id)
            file_ids[upload.name] = status.file_id
    return file_ids


def _worker(
    name: str,
    config: Config,
    work: Path,
    shared: dict[str, Any],
    env: dict[str, str],
    *,
    runs: int,
    profile: bool,
) -> dict[str, Any]:
    """One flow-worker process; returns what it measured."""
    spec = {
        **shared,
        "mode": name,
        "runs": runs,
        "edition_prefix": f"{name.split(',')[0].replace(' ', '-')}-{uuid.uuid4().hex[:8]}",
        "global_first": config.global_first,
        "profile_dir": str(work / "profiles" / name) if profile else None,
        "requests": config.requests,
        "task_overhead_runs": config.task_overhead_runs if runs > 1 else 0,
    }
    spec_file = work / f"{name.replace(', ', '-').replace(' ', '-')}-{uuid.uuid4().hex[:6]}.json"
    out_file = spec_file.with_suffix(".out.json")
    spec_file.write_text(json.dumps(spec))
    log = spec_file.with_suffix(".log")
    started = time.perf_counter()
    with log.open("wb") as out:
        subprocess.run(
            [PYTHON, str(ROOT / "benchmarks" / "fanout_flow.py"), str(spec_file), str(out_file)],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
            timeout=1800,
        )
    if not out_file.exists():
        raise RuntimeError(f"fan-out worker {name} failed: {tail(log, 40)}")
    result: dict[str, Any] = json.loads(out_file.read_text())
    result["process_wall_seconds"] = time.perf_counter() - started
    return result


def run(work: Path, config: Config = FULL) -> dict[str, Any]:
    """The whole fan-out benchmark; returns its figures (see ``aggregate``)."""
    work.mkdir(parents=True, exist_ok=True)
    data_dir = work / "service"
    state_dir = work / "pipeline"
    campaign = write_campaign(work / "campaign", config)
    key = seed_account(data_dir, None, connections(config))
    load_before = load_average()
    workers: list[dict[str, Any]] = []
    with pressroom_api(
        data_dir,
        work / "service.log",
        PRESSROOM_SANDBOX_LATENCY_MS=str(config.latency_ms),
        PRESSROOM_RATE_LIMIT_PER_MINUTE="0",
        # Every run posts 5 posts per connection again: past 20 runs an Instagram account's
        # day (100) is used up, and the sandbox's Retry-After (as the network's, an hour)
        # held the run's threads in their waits for the rest of the benchmark.
        PRESSROOM_SANDBOX_DAILY_QUOTAS="false",
    ) as service:
        file_ids = _upload_media(campaign, service.base_url, key, state_dir)
        shared = {
            "campaign": str(campaign),
            "file_ids": file_ids,
            "service_pid": service.pid,
            "concurrency": config.concurrency,
            "platform_concurrency": config.platform_concurrency,
        }
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "PRESSROOM_"))}
        env.update(
            PRESSROOM_BASE_URL=service.base_url,
            PRESSROOM_API_KEY=key,
            PRESSROOM_PIPELINE_STATE_DIR=str(state_dir),
            PRESSROOM_PIPELINE_RESULTS_DIR=str(work / "results"),
            PRESSROOM_PIPELINE_POLL_SECONDS="0.2",
            PRESSROOM_PIPELINE_CONCURRENCY=str(config.concurrency),
            PRESSROOM_PIPELINE_PLATFORM_CONCURRENCY=str(config.platform_concurrency),
            PREFECT_HOME=str(work / "prefect-ephemeral"),
            PREFECT_SERVER_ANALYTICS_ENABLED="false",
            # Each `campaign run` without a server named starts its own and stops it, as
            # the goal for the whole process says (no server running before it).
            PRESSROOM_PIPELINE_PREFECT_IDLE_SECONDS="0",
        )
        workers.append(
            _worker(
                "ephemeral, one process",
                config,
                work,
                shared,
                env,
                runs=config.runs_one_process,
                profile=config.profile,
            )
        )
        for variant, settings in config.variants:
            home = work / f"prefect-{uuid.uuid4().hex[:6]}"
            workers.append(
                _worker(
                    variant,
                    config,
                    work,
                    shared,
                    {**env, "PREFECT_HOME": str(home), **dict(settings)},
                    runs=min(3, config.runs_one_process),
                    profile=False,
                )
            )
            workers[-1]["settings"] = dict(settings)
        for _ in range(config.fresh_processes):
            workers.append(
                _worker(
                    "ephemeral, fresh process", config, work, shared, env, runs=1, profile=False
                )
            )
        if config.real_server and config.server_runs:
            workers.extend(_on_real_server(config, work, shared, env))
        whole = _whole_processes(config, work, shared, env, goal=GOALS["whole_process"])
        whole_on_server = None
        if config.real_server and config.whole_process_runs:
            with prefect_server(work, env, "prefect-whole-server") as (api, _pid, _start):
                whole_on_server = _whole_processes(
                    config,
                    work,
                    shared,
                    env,
                    api_url=api,
                    goal=GOALS["whole_process_on_server"],
                )
    result = aggregate(workers, config)
    result["flow_goal_ratio"] = GOALS["flow"]
    result["whole_process"] = whole
    if whole_on_server is not None:
        result["whole_process_on_server"] = whole_on_server
    result["load_average"] = {"before": load_before, "after": load_average()}
    return result


def _whole_processes(
    config: Config,
    work: Path,
    shared: dict[str, Any],
    env: dict[str, str],
    *,
    goal: float,
    api_url: str | None = None,
) -> dict[str, Any]:
    """What a user waits for: ``pressroom campaign run`` from its start to its exit
    (imports, the plan, the run, the shutdown, and without ``api_url`` its temporary
    Prefect server) against the script from its start to its exit, and beside them the
    same requests as a plain Prefect flow (``fanout_plain_prefect.py``: a bare task per
    publish, Prefect as it comes), in rounds, rotating which goes first. All find the
    campaign's media uploaded already; one unmeasured run of the command first warms
    Prefect's home. With ``api_url`` the commands find that server running
    (``PREFECT_API_URL``), as beside ``pressroom serve``; without, the plain flow gets
    Prefect's own temporary server."""
    from benchmarks.fanout_flow import baseline, request_script

    run_env = {**env, "PREFECT_HOME": str(work / "prefect-whole")}
    if api_url is not None:
        run_env["PREFECT_API_URL"] = api_url

    def flow_process(edition: str) -> float:
        started = time.perf_counter()
        done = subprocess.run(
            [PRESSROOM, "campaign", "run", shared["campaign"], "--edition", edition],
            env=run_env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if done.returncode != 0:
            raise RuntimeError(f"campaign run failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")
        return time.perf_counter() - started

    script_flows: list[float] = []

    def script_process(edition: str) -> float:
        started = time.perf_counter()
        found = baseline(shared, edition, "platform-first", env=run_env)
        script_flows.append(found["wall_seconds"])
        return time.perf_counter() - started

    plain_flows: list[float] = []

    def plain_prefect_process(edition: str) -> float:
        started = time.perf_counter()
        done = subprocess.run(
            request_script("fanout_plain_prefect.py", shared, edition),
            env={**run_env, "PYTHONPATH": str(ROOT)},
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if done.returncode != 0:
            raise RuntimeError(f"the plain Prefect flow failed: {done.stderr[-3000:]}")
        found = json.loads(done.stdout.strip().splitlines()[-1])
        if any(not status.startswith("2") for status in found["statuses"]):
            raise RuntimeError(f"the plain Prefect flow was refused: {found['statuses']}")
        plain_flows.append(found["flow_seconds"])
        return time.perf_counter() - started

    flows: list[float] = []
    scripts: list[float] = []
    plains: list[float] = []
    if config.whole_process_runs:
        flow_process(f"whole-warmup-{uuid.uuid4().hex[:6]}")
    for i in range(config.whole_process_runs):
        tag = uuid.uuid4().hex[:6]
        kinds = [
            (scripts, script_process, "script"),
            (flows, flow_process, "flow"),
            (plains, plain_prefect_process, "plain"),
        ]
        for times, measure, name in kinds[i % 3 :] + kinds[: i % 3]:
            times.append(measure(f"whole-{name}-{tag}"))
    return {
        "goal_ratio": goal,
        "flow_process_seconds": summary(flows),
        "script_process_seconds": summary(scripts),
        "ratio": summary([f / s for f, s in zip(flows, scripts, strict=True)]),
        "plain_prefect_process_seconds": summary(plains),
        "plain_prefect_ratio": summary([p / s for p, s in zip(plains, scripts, strict=True)]),
        "plain_prefect_flow_ratio": summary(
            [p / s for p, s in zip(plain_flows, script_flows, strict=True)]
        ),
    }


@contextmanager
def prefect_server(work: Path, env: dict[str, str], name: str) -> Iterator[tuple[str, int, float]]:
    """``prefect server start`` with pressroom's server settings, as ``pressroom serve``
    starts one; yields its API URL, its pid and how long it took to answer."""
    port = free_port()
    server_env = dict(env)
    server_env.update(PREFECT_HOME=str(work / name))
    prefect_settings.apply(server_env, prefect_settings.SERVER)
    log = work / f"{name}.log"
    started = time.perf_counter()
    with log.open("wb") as out:
        server = subprocess.Popen(
            [
                str(Path(PYTHON).parent / "prefect"),
                "server",
                "start",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            env=server_env,
            cwd=work,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        api = f"http://127.0.0.1:{port}/api"
        deadline = time.monotonic() + 180
        while True:
            wait_http(api + "/health", server, log, timeout=180)
            try:
                if httpx.get(api + "/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("prefect server never became healthy")
            time.sleep(0.2)
        yield api, server.pid, time.perf_counter() - started
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def _on_real_server(
    config: Config, work: Path, shared: dict[str, Any], env: dict[str, str]
) -> list[dict[str, Any]]:
    with prefect_server(work, env, "prefect-server") as (api, pid, server_start):
        worker_env = {**env, "PREFECT_HOME": str(work / "prefect-server"), "PREFECT_API_URL": api}
        prefect_settings.apply(worker_env, prefect_settings.SERVER)
        found = _worker(
            "prefect server",
            config,
            work,
            {**shared, "server_pid": pid},
            worker_env,
            runs=config.server_runs,
            profile=config.profile,
        )
        found["server_start_seconds"] = server_start
        return [found]


def aggregate(workers: list[dict[str, Any]], config: Config) -> dict[str, Any]:
    """Medians and spreads per way of running, and the per-task overhead."""
    modes: dict[str, dict[str, Any]] = {}
    for worker in workers:
        mode = modes.setdefault(
            worker["mode"],
            {
                "startup": [],
                "import": [],
                "flow": [],
                "script": [],
                "script_global_first": [],
                "ratio": [],
                "ratio_global_first": [],
                "ratio_interleaved": [],
                "drain": [],
                "flow_cpu": [],
                "server_cpu": [],
                "script_cpu": [],
                "service_cpu_flow": [],
                "service_cpu_script": [],
                "published": [],
                "sequence": [],
                "server_start": [],
            },
        )
        mode["startup"].append(worker["startup_seconds"])
        mode["import"].append(worker["import_seconds"])
        if "server_start_seconds" in worker:
            mode["server_start"].append(worker["server_start_seconds"])
        sequence = []
        for pair in worker["runs"]:
            flow, script = pair["flow"], pair["baseline"]
            mode["flow"].append(flow["wall_seconds"])
            mode["script"].append(script["wall_seconds"])
            mode["ratio"].append(flow["wall_seconds"] / script["wall_seconds"])
            mode["drain"].append(flow["drain_seconds"])
            mode["flow_cpu"].append(flow["cpu_seconds"])
            mode["server_cpu"].append(flow["prefect_server_cpu_seconds"])
            mode["script_cpu"].append(script["cpu_seconds"])
            mode["service_cpu_flow"].append(flow["service_cpu_seconds"])
            mode["service_cpu_script"].append(script["service_cpu_seconds"])
            mode["published"].append(flow["statuses"].get("published", 0))
            if "baseline_global_first" in pair:
                gf = pair["baseline_global_first"]["wall_seconds"]
                mode["script_global_first"].append(gf)
                mode["ratio_global_first"].append(gf / script["wall_seconds"])
            if "baseline_interleaved" in pair:
                gfi = pair["baseline_interleaved"]["wall_seconds"]
                mode["ratio_interleaved"].append(gfi / script["wall_seconds"])
            sequence.append(round(flow["wall_seconds"], 3))
        mode["sequence"].append(sequence)
        if "profiled_run" in worker:
            mode["profile"] = worker["profiled_run"].get("profiles", {})
        if "task_overhead" in worker:
            mode["task_overhead"] = worker["task_overhead"]
        if "settings" in worker:
            mode["settings"] = worker["settings"]
    requests = config.requests
    figures: dict[str, Any] = {}
    for name, mode in modes.items():
        extra_cpu = [
            (f + s - b) / requests * 1000
            for f, s, b in zip(
                mode["flow_cpu"], mode["server_cpu"], mode["script_cpu"], strict=True
            )
        ]
        extra_wall = [
            (f - s) / requests * 1000 for f, s in zip(mode["flow"], mode["script"], strict=True)
        ]
        figures[name] = {
            "startup_seconds": summary(mode["startup"]),
            "import_seconds": summary(mode["import"]),
            "server_start_seconds": summary(mode["server_start"]) if mode["server_start"] else None,
            "flow_seconds": summary(mode["flow"]),
            "script_seconds": summary(mode["script"]),
            "ratio": summary(mode["ratio"]),
            "script_global_first_seconds": summary(mode["script_global_first"])
            if mode["script_global_first"]
            else None,
            "ratio_global_first_to_script": summary(mode["ratio_global_first"])
            if mode["ratio_global_first"]
            else None,
            "ratio_interleaved_to_script": summary(mode["ratio_interleaved"])
            if mode["ratio_interleaved"]
            else None,
            "drain_seconds": summary(mode["drain"]),
            "flow_process_cpu_seconds": summary(mode["flow_cpu"]),
            "prefect_server_cpu_seconds": summary(mode["server_cpu"]),
            "script_cpu_seconds": summary(mode["script_cpu"]),
            "service_cpu_seconds_flow": summary(mode["service_cpu_flow"]),
            "service_cpu_seconds_script": summary(mode["service_cpu_script"]),
            "overhead_cpu_ms_per_task": summary(extra_cpu),
            "overhead_wall_ms_per_task": summary(extra_wall),
            "published": mode["published"],
            "flow_seconds_in_order": mode["sequence"],
            "profile": mode.get("profile"),
            "task_overhead": mode.get("task_overhead"),
            "settings": mode.get("settings"),
        }
    return {
        "requests": requests,
        "latency_ms": config.latency_ms,
        "concurrency": config.concurrency,
        "platform_concurrency": config.platform_concurrency,
        "connections_per_platform": config.connections_per_platform,
        "ideal_seconds": config.ideal_seconds,
        "modes": figures,
    }
