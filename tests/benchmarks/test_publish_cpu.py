"""``benchmarks/publish_cpu.py`` still measures publishes: a smoke run, not a measurement.

It asserts what the benchmark reports (the process's CPU per publish, the loop's, each
thread's, the rounds), never how fast anything was; a publish that fails makes the run
fail, which this would see as a non-zero exit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_in_process_publish_benchmark_reports_its_figures() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.publish_cpu", "--publishes", "40", "--rounds", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(found["rounds"]) == 2
    assert found["cpu_ms_per_publish"] == min(r["cpu_ms"] for r in found["rounds"])
    for measured in found["rounds"]:  # the loop's thread is a part of the process
        assert 0 < measured["loop_cpu_ms"] <= measured["cpu_ms"] * 1.001
    assert found["threads_cpu_ms_per_publish"]["loop"] > 0
    assert Path(found["code"]) == ROOT / "src"
