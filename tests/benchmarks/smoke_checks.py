"""What each benchmark's smoke run must produce, one checker per benchmark.

Shared by ``test_smoke.py`` and ``test_smoke_fanout.py``: the fan-out (mostly Prefect's
start-up) is the longest, so it has a file of its own that a second test worker can take
while the first runs the others.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import report, run_all, throughput

ROOT = Path(__file__).resolve().parents[2]


def run_module(module: str, *args: str) -> str:
    """A benchmark module's standard output, run as a user runs it from the checkout;
    its standard error in the failure when it exits non-zero."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def fanout(found: dict[str, Any]) -> None:
    ephemeral = found["modes"]["ephemeral, one process"]
    assert ephemeral["published"] == [found["requests"]] == [8]
    for figure in ("startup_seconds", "flow_seconds", "script_seconds", "ratio"):
        assert ephemeral[figure]["runs"] == 1 and ephemeral[figure]["median"] > 0
    assert ephemeral["overhead_cpu_ms_per_task"]["runs"] == 1
    whole = found["whole_process"]
    # Each row with the performance issue's own goal: 2.0× with its own Prefect server.
    assert whole["ratio"]["runs"] == 1 and whole["goal_ratio"] == 2.0
    assert found["flow_goal_ratio"] == 1.25
    assert whole["flow_process_seconds"]["median"] > whole["script_process_seconds"]["median"] > 0
    # The same requests as a plain Prefect flow, measured in the same round.
    assert whole["plain_prefect_ratio"]["runs"] == whole["plain_prefect_flow_ratio"]["runs"] == 1
    assert whole["plain_prefect_process_seconds"]["median"] > 0


def throughput_(found: dict[str, Any]) -> None:
    sqlite = found["databases"]["SQLite"]
    assert sqlite["listed_connections"] == 8
    for endpoint in throughput.ENDPOINTS:
        figures = sqlite["figures"]["httpx"][endpoint.name]
        assert figures["rps"]["median"] > 0, endpoint.name
        assert figures["rps_ratio"]["median"] > 0, endpoint.name
        assert figures["p99_ms"]["median"] >= figures["p50_ms"]["median"], endpoint.name
        assert all(set(s) == {"200"} for s in figures["statuses"]), figures["statuses"]
        if endpoint.is_baseline:
            assert figures["rps_ratio"]["median"] == 1.0
        assert figures["goal"] == endpoint.goal and (figures["met"] is None) == (
            endpoint.goal is None
        )
    goals = {e.name: e.goal for e in throughput.ENDPOINTS if e.goal is not None}
    assert goals == {throughput.UNIFIED: 0.40, throughput.PUBLISH: 0.20}


def uploads(found: dict[str, Any]) -> None:
    upload = found["sizes"]["8"]
    assert upload["same_bytes"] is True and upload["curl_same_bytes"] is True
    row = found["row"]
    assert row["goal"] == 0.60 and row["size_mib"] == 8
    assert row["ratio"] == upload["curl_put_to_copy_fsync"] and row["ratio"]["median"] > 0
    assert row["met"] == (row["ratio"]["median"] >= 0.60)
    assert upload["floor_seconds"]["median"] > 0 and upload["drain_mib_s"]["median"] > 0
    assert upload["put_mib_s"]["median"] > 0 and upload["copy_mib_s"]["median"] > 0
    assert upload["growth_mib"]["runs"] == 1 and upload["idle_rss_mib"]["median"] > 0


def validation(found: dict[str, Any]) -> None:
    assert found["failures"] == {}
    assert set(found["figures"]) == {
        "python -c pass",
        "validate examples",
        "validate 20 posts",
    }


def readiness(found: dict[str, Any]) -> None:
    figures = found["figures"]
    assert set(figures) == {"cold 4 s", "warm 4 s"}
    assert all(
        f["ready_seconds"]["median"] > 0 and f["ratio"]["runs"] == 1 for f in figures.values()
    )


def startup(found: dict[str, Any]) -> None:
    figures = found["figures"]
    assert {name: f["goal_seconds"] for name, f in figures.items()} == {
        "demo_cold": 10.0,
        "demo_warm": 5.0,
        "demo_warm_not_kept": None,
        "run_on_server": 3.0,
    }
    for f in figures.values():
        assert 0 < f["first_published"]["median"] < f["process"]["median"]


# name: (its checker, what its section of the report must say)
CHECKS: dict[str, tuple[Callable[[dict[str, Any]], None], tuple[str, ...]]] = {
    "fanout": (
        fanout,
        ("## 1. Campaign fan-out", "flow ÷ script", "Whole process, what a user waits for"),
    ),
    "throughput": (throughput_, ("## 2. API throughput", "÷ baseline")),
    "uploads": (
        uploads,
        ("## 3. Uploads and downloads", "`curl -T` PUT MiB/s", "≥ 0.60×", "The floor of any PUT"),
    ),
    "validation": (validation, ("## 4. Validation",)),
    "readiness": (readiness, ("## 5. Readiness",)),
    "startup": (startup, ("## 6. First result",)),
}


def runs_and_reports(name: str, tmp_path: Path) -> None:
    """Run one benchmark in its smoke configuration, check its figures and its section."""
    results = run_all.run([name], "smoke", tmp_path / "work", log=lambda _: None)
    results["command"] = f"python benchmarks/run_all.py --smoke --only {name}"
    found = results["benchmarks"][name]
    assert "error" not in found, found.get("error")
    check, says = CHECKS[name]
    check(found)
    markdown = report.render(results)
    for text in ("## Machine", *says):
        assert text in markdown, text
