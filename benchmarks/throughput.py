"""Benchmark 2, API throughput: requests per second and p50/p99 latency at 32 concurrent
connections, for an authenticated read (``GET /api/connections/unified``, 8 connections)
and a publish (microblog, sandbox latency 0, a new Idempotency-Key each), on SQLite and
PostgreSQL, each against the goal of the performance issue.

Baselines, as the goals are set: a bare FastAPI app (``bare_app.py``, none of pressroom's
middleware, routes or database) on the same stack (uvicorn, one worker, uvloop,
httptools), whose ``async def`` routes answer the same JSON as the connection list and
take the same publish body. The ``async def`` constant route inside pressroom's own app
(``bench_app.py``) is measured too, against the same baseline: what pressroom's app
costs before any route does anything. Load comes from a separate process: wrk
(``-t1 -c32``, 5 s measured after a 1 s warm-up), and the httpx + asyncio generator
(``loadgen.py``). Both sit on the same cores as the service, so only the ratios carry
over to other machines. The per-key rate limit is off. A py-spy profile of the service
under load says where the time goes, when py-spy is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx

from benchmarks.bare_app import JSON_PATH
from benchmarks.common import (
    PYTHON,
    ROOT,
    Service,
    cpu_seconds,
    free_port,
    load_average,
    postgres_database,
    postgres_server_url,
    postgres_version,
    running,
    seed_account,
    service_env,
    summary,
)
from benchmarks.profiles import record_argv, summarise

CONNECTIONS = 32


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    path: str
    authenticated: bool = False
    body: str | None = None
    bare: bool = False
    """Served by the bare app (a baseline), not by the service."""
    baseline: str | None = None
    """The endpoint this one is measured against, in the same run; None: it is one."""
    goal: float | None = None
    """The ratio to the baseline to reach, where the issue sets one."""

    @property
    def is_baseline(self) -> bool:
        return self.baseline is None


PUBLISH_BODY = '{"connectionId": "CONNECTION", "text": "Throughput {n}"}'
BARE_GET = "bare FastAPI GET, same JSON"
BARE_POST = "bare FastAPI POST JSON"
UNIFIED = "GET /api/connections/unified"
PUBLISH = "POST /api/v2/microblog/publish"
ENDPOINTS = (
    Endpoint(BARE_GET, "GET", "/bare/connections", bare=True),
    Endpoint(BARE_POST, "POST", "/bare/publish", body=PUBLISH_BODY, bare=True),
    Endpoint(
        "constant in pressroom's app (async def)", "GET", "/bench/constant", baseline=BARE_GET
    ),
    Endpoint(UNIFIED, "GET", "/api/connections/unified", True, baseline=BARE_GET, goal=0.40),
    Endpoint(
        PUBLISH,
        "POST",
        "/api/v2/microblog/publish",
        True,
        PUBLISH_BODY,
        baseline=BARE_POST,
        goal=0.20,
    ),
)
BASELINES = tuple(e.name for e in ENDPOINTS if e.is_baseline)


@dataclass(frozen=True)
class Config:
    duration: float = 5.0
    warmup: float = 1.0
    runs: int = 3
    postgres: bool = True
    wrk: bool = True
    httpx: bool = True
    profile: bool = True
    profile_seconds: float = 6.0
    key_growth: int = 10_000
    """Earlier idempotency keys for the SQLite experiment (``key_growth``); 0: skip it."""


FULL = Config()
QUICK = Config(runs=2, profile=False, key_growth=0)
# Long enough for a publish to finish on a busy machine (a smoke run checks fields, not speed).
SMOKE = Config(
    duration=2.0, warmup=0.5, runs=1, postgres=False, wrk=False, profile=False, key_growth=0
)


CONNECTIONS_SEEDED: list[tuple[str, str, dict[str, Any]]] = [
    ("microblog", "@throughput", {}),
    ("video_sharing", "Throughput Channel", {"verified": True}),
    ("short_video", "@throughput.clips", {}),
    ("photo_sharing", "throughput.photos", {}),
    ("page_social", "Throughput Page", {}),
    ("pin_board", "throughput-pins", {}),
    ("professional_network", "Throughput Inc", {}),
]


STACK = ["--loop", "uvloop", "--http", "httptools", "--log-level", "warning"]
"""How both the service and the bare app are served: as ``pressroom api`` serves (one
worker, uvloop, httptools), without access lines on either."""


def uvicorn_argv(factory: str, port: int) -> list[str]:
    return [
        PYTHON,
        "-m",
        "uvicorn",
        factory,
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *STACK,
    ]


@dataclass(frozen=True)
class Bench:
    """The service under test, the bare app beside it, and what requests need."""

    service: Service
    bare: Service
    key: str
    connection: str
    """The microblog connection publishes go to."""
    database_url: str
    listed: int
    """How many connections ``GET /api/connections/unified`` lists."""

    def server(self, endpoint: Endpoint) -> Service:
        return self.bare if endpoint.bare else self.service


@contextmanager
def bench_service(
    work: Path, database_url: str | None, *, data_dir: Path | None = None, key: str | None = None
) -> Iterator[Bench]:
    """The benchmark app on a free port, and the bare app answering the same connection
    list. Without ``data_dir`` a new one is made and an account seeded."""
    if data_dir is None or key is None:
        data_dir = work / f"data-{uuid.uuid4().hex[:6]}"
        key = seed_account(data_dir, database_url, CONNECTIONS_SEEDED)
    port = free_port()
    overrides = {
        "PRESSROOM_RATE_LIMIT_PER_MINUTE": "0",
        "PRESSROOM_SANDBOX_LATENCY_MS": "0",
    }
    if database_url:
        overrides["PRESSROOM_DATABASE_URL"] = database_url
    env = service_env(data_dir, port, **overrides)
    argv = uvicorn_argv("benchmarks.bench_app:create", port)
    with running(argv, env=env, port=port, log=data_dir / "service.log") as service:
        listed = httpx.get(
            service.base_url + "/api/connections/unified", headers={"X-API-Key": key}
        ).json()
        microblog = next(c["id"] for c in listed if c["platform"] == "microblog")
        answer = data_dir / "connections.json"
        answer.write_text(json.dumps(listed))
        bare_port = free_port()
        bare_env = service_env(data_dir, bare_port) | {JSON_PATH: str(answer)}
        bare_argv = uvicorn_argv("benchmarks.bare_app:create", bare_port)
        with running(bare_argv, env=bare_env, port=bare_port, log=data_dir / "bare.log") as bare:
            yield Bench(
                service,
                bare,
                key,
                microblog,
                database_url or f"sqlite:///{data_dir / 'pressroom.db'}",
                len(listed),
            )


def fill_keys(database_url: str, count: int) -> None:
    """``count`` completed idempotency keys for the account, as earlier publishes leave."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import create_engine, insert, select

    from pressroom.service.db.models import Account, IdempotencyRecord
    from pressroom.service.db.session import normalise_url
    from pressroom.service.publishing.repository import COMPLETED

    engine = create_engine(normalise_url(database_url))
    now = datetime.now(UTC)
    try:
        with engine.begin() as conn:
            account = conn.execute(select(Account.id)).scalar_one()
            body = {
                "success": True,
                "platform": "microblog",
                "connectionId": "conn_" + "0" * 24,
                "status": "published",
                "publishedAt": now.isoformat(),
                "url": "https://microblog.example/throughput/status/1234567890123456789",
                "microblogPostId": "1234567890123456789",
                "recordId": "post_" + "0" * 24,
            }
            for start in range(0, count, 2000):
                conn.execute(
                    insert(IdempotencyRecord),
                    [
                        {
                            "account_id": account,
                            "key": f"earlier-{i}",
                            "endpoint": "POST /api/v2/microblog/publish",
                            "request_hash": "0" * 64,
                            "state": COMPLETED,
                            "response_status": 200,
                            "response_body": body,
                            "created_at": now,
                            "expires_at": now + timedelta(days=7),
                        }
                        for i in range(start, min(count, start + 2000))
                    ],
                )
    finally:
        engine.dispose()


def key_growth(work: Path, config: Config) -> dict[str, Any]:
    """Publishing on SQLite with ``config.key_growth`` earlier keys in the account, as
    shipped (with the ``(account_id, expires_at)`` index of migration 0003) and on a copy
    without that index, as the schema was before it."""
    import sqlite3

    indexed = work / "keys-indexed"
    key = seed_account(indexed, None, CONNECTIONS_SEEDED)
    fill_keys(f"sqlite:///{indexed / 'pressroom.db'}", config.key_growth)
    plain = work / "keys-without-index"
    shutil.copytree(indexed, plain)
    with sqlite3.connect(plain / "pressroom.db") as db:
        db.execute("DROP INDEX ix_idempotency_keys_account_expires")
    publish = next(e for e in ENDPOINTS if e.name == PUBLISH)
    found: dict[str, list[dict[str, Any]]] = {"without index": [], "with index": []}
    for _ in range(config.runs):
        for name, data_dir in (("without index", plain), ("with index", indexed)):
            with bench_service(work, None, data_dir=data_dir, key=key) as bench:
                found[name].append(httpx_load(bench, publish, config))
    shutil.rmtree(plain, ignore_errors=True)
    shutil.rmtree(indexed, ignore_errors=True)
    return {
        "keys": config.key_growth,
        "variants": {
            name: {
                "rps": summary([r["rps"] for r in runs]),
                "p99_ms": summary([r["p99_ms"] for r in runs]),
                "service_cpu_ms": summary([r["service_cpu_ms"] for r in runs]),
            }
            for name, runs in found.items()
        },
    }


def stored_rows(database_url: str) -> dict[str, int]:
    """How much the publishes left behind: the service's work per publish may grow with it."""
    from sqlalchemy import create_engine, text

    from pressroom.service.db.session import normalise_url

    engine = create_engine(normalise_url(database_url))
    try:
        with engine.connect() as conn:
            return {
                table: int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() or 0)
                for table in ("idempotency_keys", "posts", "sandbox_deliveries")
            }
    finally:
        engine.dispose()


def _headers(endpoint: Endpoint, key: str) -> dict[str, str]:
    headers = {}
    if endpoint.authenticated:
        headers["X-API-Key"] = key
    if endpoint.body is not None:
        headers["Content-Type"] = "application/json"
        headers["Idempotency-Key"] = f"tp-{uuid.uuid4().hex[:10]}-{{n}}"
    return headers


def settle(service: Service, timeout: float = 15.0) -> None:
    """Wait until the service is idle: requests a load generator gave up on at its deadline
    may still be running, and must not be counted against the next measurement."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = cpu_seconds(service.pid)
        time.sleep(0.25)
        if cpu_seconds(service.pid) - before < 0.03:
            return


def httpx_load(bench: Bench, endpoint: Endpoint, config: Config) -> dict[str, Any]:
    service = bench.server(endpoint)
    argv = [
        PYTHON,
        str(ROOT / "benchmarks" / "loadgen.py"),
        service.base_url + endpoint.path,
        "--method",
        endpoint.method,
        "--connections",
        str(CONNECTIONS),
        "--duration",
        str(config.duration),
        "--warmup",
        str(config.warmup),
    ]
    for name, value in _headers(endpoint, bench.key).items():
        argv += ["--header", f"{name}: {value}"]
    if endpoint.body is not None:
        argv += ["--body", endpoint.body.replace("CONNECTION", bench.connection)]
    settle(service)
    cpu = cpu_seconds(service.pid)
    out = subprocess.run(
        argv, capture_output=True, text=True, timeout=config.duration + config.warmup + 120
    )
    cpu = cpu_seconds(service.pid) - cpu
    if out.returncode != 0:
        raise RuntimeError(f"load generator failed: {out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    result["service_cpu_ms"] = cpu * 1000 / max(1, result["total_requests"])
    return result


WRK_SCRIPT = """
wrk.method = "{method}"
{headers}
{body}
local counter = 0
local prefix = "{prefix}"
local threads = {{}}
replayed = 0
setup = function(thread)
  table.insert(threads, thread)
end
request = function()
  counter = counter + 1
  {per_request}
  return wrk.format()
end
{on_response}
done = function(summary, latency, requests)
  local e = summary.errors
  local again = 0
  for _, thread in ipairs(threads) do
    again = again + (thread:get("replayed") or 0)
  end
  io.write(string.format(
    'WRK-JSON {{"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, ' ..
    '"non_2xx": %d, "connect": %d, "read": %d, "write": %d, "timeout": %d, ' ..
    '"replayed": %d}}\\n',
    summary.requests, summary.duration, latency:percentile(50.0), latency:percentile(99.0),
    e.status, e.connect, e.read, e.write, e.timeout, again))
end
"""
COUNT_REPLAYS = """
response = function(status, headers, body)
  if headers["idempotent-replayed"] or headers["Idempotent-Replayed"] then
    replayed = replayed + 1
  end
end
"""
"""Each publish must be new: an answer replayed for a key already used is counted (and
reported as an error), since a replay costs a fraction of a publish."""


def wrk_load(bench: Bench, endpoint: Endpoint, config: Config, folder: Path) -> dict[str, Any]:
    """``wrk -t1 -c32 -d5s`` (the issue's method); a warm-up run first, unmeasured."""
    wrk = shutil.which("wrk")
    assert wrk is not None
    service = bench.server(endpoint)
    connection = bench.connection
    url = service.base_url + endpoint.path

    def one(seconds: float) -> dict[str, Any]:
        # Each run its own keys: the warm-up's must not come back as replays.
        headers = _headers(endpoint, bench.key)
        idempotency = headers.pop("Idempotency-Key", None)
        body = endpoint.body or ""
        script = WRK_SCRIPT.format(
            method=endpoint.method,
            headers="\n".join(f'wrk.headers["{k}"] = "{v}"' for k, v in headers.items()),
            body=f"wrk.body = '{body.replace('CONNECTION', connection).replace('{n}', 'wrk')}'"
            if endpoint.body
            else "",
            prefix=(idempotency or "").replace("{n}", ""),
            per_request='wrk.headers["Idempotency-Key"] = prefix .. counter' if idempotency else "",
            on_response=COUNT_REPLAYS if idempotency else "",
        )
        path = folder / f"wrk-{uuid.uuid4().hex[:6]}.lua"
        path.write_text(script)
        out = subprocess.run(
            [
                wrk,
                "-t1",
                f"-c{CONNECTIONS}",
                f"-d{max(1, round(seconds))}s",
                "--timeout",
                "30s",
                "-s",
                str(path),
                url,
            ],
            capture_output=True,
            text=True,
            timeout=seconds + 60,
        )
        line = next((x for x in out.stdout.splitlines() if x.startswith("WRK-JSON ")), None)
        if line is None:
            raise RuntimeError(f"wrk failed: {out.stdout[-1000:]} {out.stderr[-1000:]}")
        parsed: dict[str, Any] = json.loads(line.removeprefix("WRK-JSON "))
        return parsed

    settle(service)
    one(config.warmup)
    cpu = cpu_seconds(service.pid)
    raw = one(config.duration)
    cpu = cpu_seconds(service.pid) - cpu
    seconds = raw["duration_us"] / 1e6
    return {
        "service_cpu_ms": cpu * 1000 / max(1, raw["requests"]),
        "generator": "wrk",
        "requests": raw["requests"],
        "seconds": seconds,
        "rps": raw["requests"] / seconds,
        "p50_ms": raw["p50_us"] / 1000,
        "p99_ms": raw["p99_us"] / 1000,
        "errors": {
            k: raw[k]
            for k in ("non_2xx", "connect", "read", "write", "timeout", "replayed")
            if raw[k]
        },
    }


def profile(
    bench: Bench, endpoint: Endpoint, config: Config, folder: Path
) -> dict[str, Any] | None:
    spy = Path(PYTHON).parent / "py-spy"
    if not spy.exists():
        return None
    path = folder / f"profile-{uuid.uuid4().hex[:6]}.txt"
    service = bench.server(endpoint)
    settle(service)
    recorder = subprocess.Popen(
        record_argv(spy, service.pid, path, "-d", str(round(config.profile_seconds + 2))),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    load = httpx_load(bench, endpoint, Config(duration=config.profile_seconds, warmup=0.5))
    recorder.wait(timeout=60)
    found = summarise(path) if path.exists() else None
    if found is not None:
        found["rps_while_profiled"] = load["rps"]
    return found


def run(work: Path, config: Config = FULL) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    generators = (["wrk"] if config.wrk and shutil.which("wrk") else []) + (
        ["httpx"] if config.httpx or not shutil.which("wrk") else []
    )
    databases: list[tuple[str, str | None]] = [("SQLite", None)]
    server = postgres_server_url()
    missing: list[str] = []
    if config.postgres and server:
        databases.append(("PostgreSQL", server))
    elif config.postgres:
        missing.append("PostgreSQL: no PRESSROOM_TEST_POSTGRES_URL / PRESSROOM_BENCH_POSTGRES_URL")
    result: dict[str, Any] = {
        "connections": CONNECTIONS,
        "generators": generators,
        "wrk_missing": shutil.which("wrk") is None,
        "baselines": list(BASELINES),
        "endpoints": {
            e.name: {"baseline": e.baseline, "goal": e.goal, "bare": e.bare} for e in ENDPOINTS
        },
        "duration": config.duration,
        "warmup": config.warmup,
        "databases": {},
        "missing": missing,
        "load_average": {"before": load_average()},
    }
    if server and config.postgres:
        result["postgres_version"] = postgres_version(server)
    for db_name, server_url in databases:
        context = postgres_database(server_url) if server_url else nullcontext(None)
        with context as database_url, bench_service(work, database_url) as bench:
            figures: dict[str, Any] = {}
            raw: dict[tuple[str, str], list[dict[str, Any]]] = {}
            for _ in range(config.runs):
                for generator in generators:
                    for endpoint in ENDPOINTS:
                        if generator == "httpx":
                            found = httpx_load(bench, endpoint, config)
                        else:
                            found = wrk_load(bench, endpoint, config, work)
                        raw.setdefault((generator, endpoint.name), []).append(found)
            for generator in generators:
                per_endpoint = {}
                for endpoint in ENDPOINTS:
                    runs = raw[(generator, endpoint.name)]
                    base = raw[(generator, endpoint.baseline or endpoint.name)]
                    rps_ratio = summary(
                        [r["rps"] / b["rps"] for r, b in zip(runs, base, strict=True)]
                    )
                    per_endpoint[endpoint.name] = {
                        "rps": summary([r["rps"] for r in runs]),
                        "p50_ms": summary([r["p50_ms"] for r in runs]),
                        "p99_ms": summary([r["p99_ms"] for r in runs]),
                        "service_cpu_ms": summary([r["service_cpu_ms"] for r in runs]),
                        "baseline": endpoint.baseline,
                        "goal": endpoint.goal,
                        "met": None
                        if endpoint.goal is None
                        else rps_ratio["median"] >= endpoint.goal,
                        "rps_ratio": rps_ratio,
                        "p50_ratio": summary(
                            [r["p50_ms"] / b["p50_ms"] for r, b in zip(runs, base, strict=True)]
                        ),
                        "errors": [r.get("errors") for r in runs if r.get("errors")],
                        "statuses": [r.get("statuses") for r in runs if r.get("statuses")],
                    }
                figures[generator] = per_endpoint
            profiles = {}
            if config.profile:
                for endpoint in ENDPOINTS:
                    if endpoint.name in (UNIFIED, PUBLISH):
                        profiles[endpoint.name] = profile(bench, endpoint, config, work)
            result["databases"][db_name] = {
                "figures": figures,
                "profiles": profiles,
                "listed_connections": bench.listed,
                "stored_rows": stored_rows(bench.database_url),
            }
    if config.key_growth:
        result["key_growth"] = key_growth(work, config)
    result["load_average"]["after"] = load_average()
    return result


def main(argv: list[str] | None = None) -> None:
    """This benchmark alone: prints its report section, each figure beside its goal
    (``run_all.py --only throughput --merge`` also keeps it in the report)."""
    import argparse

    from benchmarks.report import throughput as section

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--quick", action="store_true", help="2 runs, no profile, no experiment")
    parser.add_argument("--runs", type=int, help="runs of each measurement")
    parser.add_argument("--sqlite-only", action="store_true", help="no PostgreSQL")
    parser.add_argument("--wrk-only", action="store_true", help="no httpx generator")
    parser.add_argument("--work", type=Path, default=Path("/tmp/pressroom-throughput"))
    args = parser.parse_args(argv)
    config = QUICK if args.quick else FULL
    if args.runs:
        config = replace(config, runs=args.runs)
    if args.sqlite_only:
        config = replace(config, postgres=False)
    if args.wrk_only:
        config = replace(config, httpx=False)
    print("\n".join(section(run(args.work, config))))


if __name__ == "__main__":
    main()
