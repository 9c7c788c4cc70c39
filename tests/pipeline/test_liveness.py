"""When an earlier RUNNING run counts as dead: never while it may be alive."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from pressroom.pipeline.liveness import Holder, row_from_task_run, why_abandoned

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def test_a_run_on_this_host_is_dead_only_when_its_process_is_gone() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    live = Holder("here", os.getpid(), NOW - timedelta(hours=1))  # lease old, process alive
    dead = Holder("here", gone.pid, NOW + timedelta(hours=1))
    assert why_abandoned(live, host="here", now=NOW) is None
    assert why_abandoned(dead, host="here", now=NOW) == f"its process ({gone.pid} on here) is gone"


def test_a_run_elsewhere_is_dead_only_when_its_lease_ran_out() -> None:
    renewed = Holder("there", 1, NOW + timedelta(seconds=30))
    lapsed = Holder("there", 1, NOW - timedelta(seconds=1))
    assert why_abandoned(renewed, host="here", now=NOW) is None
    assert (why_abandoned(lapsed, host="here", now=NOW) or "").startswith("its lease ran out")
    assert why_abandoned(None, host="here", now=NOW) is None  # no record: leave it alone


def test_the_holder_round_trips_through_flow_run_labels() -> None:
    holder = Holder.here(60, now=NOW)
    assert Holder.from_labels(dict(holder.labels())) == holder
    assert Holder.from_labels({"pressroom.host": "x"}) is None


def test_partial_rows_say_what_completed_and_what_was_in_flight() -> None:
    done = row_from_task_run("microblog · @acme · day-1", "COMPLETED", "Completed", None)
    flying = row_from_task_run("microblog · @acme · day-2", "RUNNING", "Running", None)
    assert done is not None and done.status.value == "published"
    assert flying is not None and flying.status.value == "unconfirmed"
    assert row_from_task_run("upload · clip", "COMPLETED", "Completed", None) is None
