"""``run_all.py --merge``: a re-run replaces its own benchmarks and keeps the others."""

from __future__ import annotations

from typing import Any

from benchmarks import run_all


def _report(started: str, version: str | None, **benchmarks: Any) -> dict[str, Any]:
    return {
        "started": started,
        "machine": {"load": started},
        "postgres_version": version,
        "benchmarks": benchmarks,
    }


def test_a_rerun_replaces_its_benchmarks_and_keeps_the_rest() -> None:
    full = _report("02:58", None, fanout={"v": 1}, throughput={"v": 1})
    rerun = _report("03:47", None, throughput={"v": 2})

    merged = run_all.merge(full, rerun, ["throughput"])

    assert merged["benchmarks"] == {"fanout": {"v": 1}, "throughput": {"v": 2}}
    assert merged["machine"] == {"load": "03:47"}
    assert merged["reruns"] == ["03:47: throughput"]
    assert full["benchmarks"]["throughput"] == {"v": 1}  # the report read is left as it was


def test_a_rerun_that_reached_postgresql_names_its_version() -> None:
    without = _report("02:58", None, throughput={"v": 1})
    rerun = _report("03:47", "15.18", throughput={"v": 2})

    assert run_all.merge(without, rerun, ["throughput"])["postgres_version"] == "15.18"


def test_a_rerun_without_postgresql_keeps_the_version_the_report_named() -> None:
    earlier = _report("02:58", "15.18", throughput={"v": 1}, fanout={"v": 1})
    rerun = _report("04:10", None, fanout={"v": 2})

    assert run_all.merge(earlier, rerun, ["fanout"])["postgres_version"] == "15.18"
