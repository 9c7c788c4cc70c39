"""The campaign fan-out benchmark still runs in its smoke configuration, with its report.

A file of its own (the checks are in ``smoke_checks.py``): it is the longest benchmark,
mostly Prefect's start-up, and a second test worker can run it beside ``test_smoke.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchmarks.smoke_checks import runs_and_reports

# Minutes long: handed out first (scripts/test runs the files on parallel workers).
pytestmark = pytest.mark.long


def test_the_fanout_runs_in_its_smoke_configuration_and_reports(tmp_path: Path) -> None:
    runs_and_reports("fanout", tmp_path)
