"""What every benchmark shares: statistics, the machine, CPU and memory readings from
``/proc``, and a ``pressroom api`` (or benchmark app) subprocess on 127.0.0.1.

Only ratios against a baseline measured in the same run mean anything here: the machine
is small and shared, so every figure is reported beside its baseline.
"""

from __future__ import annotations

import contextlib
import os
import platform
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
PRESSROOM = str(VENV_BIN / "pressroom")
PYTHON = sys.executable
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- statistics --------------------------------------------------------------------------


@dataclass
class Sample:
    """Several runs of one figure: its median and spread."""

    values: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        self.values.append(value)

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else float("nan")

    @property
    def low(self) -> float:
        return min(self.values) if self.values else float("nan")

    @property
    def high(self) -> float:
        return max(self.values) if self.values else float("nan")

    def to_json(self) -> dict[str, Any]:
        return {
            "median": self.median,
            "min": self.low,
            "max": self.high,
            "runs": len(self.values),
            "values": self.values,
        }


def summary(values: Sequence[float]) -> dict[str, Any]:
    return Sample(list(values)).to_json()


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile (``share`` in 0..1) of unsorted values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))
    return ordered[rank]


# --- the machine -------------------------------------------------------------------------


def load_average() -> tuple[float, float, float]:
    return os.getloadavg()


def machine() -> dict[str, Any]:
    """CPU, cores, memory, OS, Python and the versions that shape the figures."""
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    versions = {}
    for name in (
        "pressroom",
        "prefect",
        "fastapi",
        "starlette",
        "uvicorn",
        "httptools",
        "uvloop",
        "sqlalchemy",
        "psycopg",
        "pydantic",
        "httpx",
        "av",
    ):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[name] = metadata.version(name)
    import sqlite3

    versions["sqlite"] = sqlite3.sqlite_version
    wrk = shutil.which("wrk")
    if wrk:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run([wrk, "-v"], capture_output=True, text=True, timeout=5)
            versions["wrk"] = (out.stdout or out.stderr).split()[1]
    disk = shutil.disk_usage(ROOT)
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "versions": versions,
        "disk_free_gib": round(disk.free / 1024**3, 1),
    }


# --- /proc readings ----------------------------------------------------------------------


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS, VmHWM … of a process, in bytes."""
    values: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) == 2 and parts[1] == "kB":
            values[name] = int(parts[0]) * 1024
    return values


def descendants(pid: int) -> list[int]:
    """Every living process below ``pid``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cpu_seconds(pid: int, *, tree: bool = False) -> float:
    """User + system CPU time of a process (and its living descendants with ``tree``)."""
    total = 0.0
    for each in [pid, *(descendants(pid) if tree else [])]:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / CLK_TCK
    return total


# --- services in subprocesses ------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Service:
    """A server subprocess on 127.0.0.1 and how to reach it."""

    process: subprocess.Popen[bytes]
    base_url: str
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def memory(self) -> dict[str, int]:
        return proc_status(self.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def service_env(data_dir: Path, port: int, **overrides: str) -> dict[str, str]:
    """The environment of a service on the embedded default, with benchmark overrides."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PRESSROOM_", "PREFECT_"))
    }
    env.update(
        PRESSROOM_DATA_DIR=str(data_dir),
        PRESSROOM_BASE_URL=f"http://127.0.0.1:{port}",
        PRESSROOM_SANDBOX_SEED="8",
    )
    env.update(overrides)
    return env


def wait_http(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:
    """Until anything answers HTTP at ``url`` (a 404 will do)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}: {tail(log)}")
        with contextlib.suppress(httpx.HTTPError):
            httpx.get(url, timeout=2)
            return
        time.sleep(0.05)
    raise RuntimeError(f"server at {url} did not answer in {timeout:.0f} s: {tail(log)}")


def tail(path: Path, lines: int = 20) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    return ""


@contextlib.contextmanager
def running(
    argv: Sequence[str], *, env: Mapping[str, str], port: int, log: Path, probe_path: str = "/"
) -> Iterator[Service]:
    """Start a server subprocess, wait until it answers, stop it afterwards."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        process = subprocess.Popen(
            list(argv), env=dict(env), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
        )
    service = Service(process, f"http://127.0.0.1:{port}", log)
    try:
        wait_http(service.base_url + probe_path, process, log)
        yield service
    finally:
        service.stop()


@contextlib.contextmanager
def pressroom_api(data_dir: Path, log: Path, **overrides: str) -> Iterator[Service]:
    """``pressroom api`` on a free port of 127.0.0.1 (one worker process)."""
    port = free_port()
    env = service_env(data_dir, port, **overrides)
    argv = [PRESSROOM, "api", "--host", "127.0.0.1", "--port", str(port)]
    with running(argv, env=env, port=port, log=log) as service:
        yield service


# --- accounts, on the service's own database ---------------------------------------------


def seed_account(
    data_dir: Path,
    database_url: str | None,
    connections: Sequence[tuple[str, str, dict[str, Any]]],
    *,
    email: str = "bench@pressroom.example",
) -> str:
    """An Agency account with these connections (platform, name, extra); returns its key."""
    from pressroom.plans import Plan
    from pressroom.platforms import Platform
    from pressroom.service.accounts.service import create_account
    from pressroom.service.admin import admin_session
    from pressroom.service.connections.service import NewConnection, connect
    from pressroom.settings import DatabaseSettings, Settings

    settings = Settings(data_dir=data_dir, db=DatabaseSettings(database_url=database_url))
    with admin_session(settings) as db:
        account, key = create_account(db, email=email, plan=Plan.AGENCY)
        for name_platform, name, extra in connections:
            connect(
                db, account, NewConnection(platform=Platform(name_platform), name=name, **extra)
            )
    return key


@contextlib.contextmanager
def postgres_database(server_url: str) -> Iterator[str]:
    """A throwaway database on a PostgreSQL server, dropped afterwards."""
    from sqlalchemy import create_engine, text

    from pressroom.service.db.session import normalise_url

    name = f"pressroom_bench_{secrets.token_hex(4)}"
    admin = create_engine(normalise_url(server_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield server_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def postgres_server_url() -> str | None:
    return os.environ.get("PRESSROOM_BENCH_POSTGRES_URL") or os.environ.get(
        "PRESSROOM_TEST_POSTGRES_URL"
    )


def postgres_version(server_url: str) -> str | None:
    from sqlalchemy import create_engine, text

    from pressroom.service.db.session import normalise_url

    engine = create_engine(normalise_url(server_url))
    try:
        with engine.connect() as conn:
            return str(conn.execute(text("SHOW server_version")).scalar())
    except Exception:
        return None
    finally:
        engine.dispose()
