"""The benchmarks still run: every one in its tiny configuration, with its report fields.

This is a smoke run, not a measurement: it asserts what each benchmark produces (the
figures, their baselines and ratios, the rendered sections), never how fast anything
was. The real runs (``benchmarks/run_all.py``) stay out of CI. One test per benchmark,
so that none holds the whole run under one test's time limit; the fan-out is in
``test_smoke_fanout.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import run_all
from tests.benchmarks.smoke_checks import CHECKS, runs_and_reports

# Minutes long: handed out first (scripts/test runs the files on parallel workers).
pytestmark = pytest.mark.long


def test_every_benchmark_has_its_smoke_checks() -> None:
    assert set(CHECKS) == set(run_all.BENCHMARKS)


@pytest.mark.parametrize("name", [n for n in CHECKS if n != "fanout"])
def test_the_benchmark_runs_in_its_smoke_configuration_and_reports(
    name: str, tmp_path: Path
) -> None:
    runs_and_reports(name, tmp_path)
