"""``benchmarks/publish_cpu.py`` still measures publishes: a smoke run, not a measurement.

It asserts what the benchmark reports (the process's CPU per publish, the loop's, each
thread's, the rounds), never how fast anything was; a publish that fails makes the run
fail, which this would see as a non-zero exit.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.benchmarks.smoke_checks import ROOT, run_module


def test_the_in_process_publish_benchmark_reports_its_figures() -> None:
    stdout = run_module("benchmarks.publish_cpu", "--publishes", "40", "--rounds", "2")
    found = json.loads(stdout.strip().splitlines()[-1])
    assert len(found["rounds"]) == 2
    assert found["cpu_ms_per_publish"] == min(r["cpu_ms"] for r in found["rounds"])
    for measured in found["rounds"]:  # the loop's thread is a part of the process
        assert 0 < measured["loop_cpu_ms"] <= measured["cpu_ms"] * 1.001
    assert found["threads_cpu_ms_per_publish"]["loop"] > 0
    assert Path(found["code"]) == ROOT / "src"
