"""Run logs leave the process for Prefect's API: pressroom's lines do, keys never do."""

from __future__ import annotations

import logging
import re
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from pressroom.pipeline.run_logs import RedactSecrets
from pressroom.pipeline.runner import run_campaign_file
from tests.pipeline import prefect_api
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.support.media import make_image


class _Collect(logging.Handler):
    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def console() -> Iterator[list[str]]:
    """The lines that reach the root logger, where Prefect's console handler prints a
    run's lines. Prefect's logging is set up first: its set-up replaces the root's
    handlers (so ``caplog`` sees nothing once a flow is imported)."""
    import prefect.main  # noqa: F401

    lines: list[str] = []
    handler = _Collect(lines)
    logging.getLogger().addHandler(handler)
    yield lines
    logging.getLogger().removeHandler(handler)


QUERY = re.compile(r"\?[^\s?]*=")

ONE_PHOTO = """\
name: one-photo
retries: {attempts: 8, backoff_seconds: 0.1, max_delay_seconds: 0.2}
media:
  still: {path: still.png}
posts:
  - id: still
    media: still
    photo_sharing: {caption: "A still."}
"""


def test_api_keys_are_masked_in_run_log_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESSROOM_API_KEY", "custom-secret-key-1234")
    record = logging.LogRecord(
        "pressroom.pipeline.steps",
        logging.INFO,
        __file__,
        1,
        "sent with %s, then rotated to %s",
        ("custom-secret-key-1234", "prk_live_AbC123_xyz"),
        None,
    )
    assert RedactSecrets().filter(record)
    assert record.getMessage() == "sent with ***, then rotated to prk_***"


def test_uploads_readiness_publish_results_and_retries_are_in_the_task_runs_logs(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    tmp_path: Path,
    console: list[str],
) -> None:
    """Read back through Prefect's client, as the UI reads them: each line in the log of
    the task run that did the work. The sandbox's seeded failures make the first publish
    attempt fail (503, Retry-After 2 s), so the publish task also shows a retry.
    """
    live_service.connect("photo_sharing", "acme.photos", account_type="business")
    live_service.settings.sandbox.sandbox_failure_rate = 0.25
    make_image(tmp_path / "still.png", size=(40, 40))

    outcome = run_campaign_file(write_campaign(ONE_PHOTO))

    assert outcome.ok, outcome.message
    [row] = outcome.rows
    assert row["attempts"] > 1, "the failure knob caused no retry"
    run_id = outcome.flow_run_id or ""
    upload, ready, publish = (
        _lines(run_id, name, expect)
        for name, expect in (
            ("upload · still", "uploaded"),
            ("ready · still", "ready"),
            ("photo_sharing · acme.photos · still", "published"),
        )
    )
    assert any(re.search(r"still: uploaded still\.png \(.+\) as file_", m) for m in upload), upload
    assert any("still: ready" in m for m in ready), ready
    assert any("waiting 2 s (" in m for m in publish), publish
    assert any(re.search(r"TransientFailure.*503.* - Retry 1/", m) for m in publish), publish
    assert any(re.search(r"published as \S+ after \d+ attempts in ", m) for m in publish), publish

    # Prefect's own success line is the console's; the run log has ours instead.
    assert not any(m == "Finished in state Completed()" for m in upload + ready), upload + ready

    everything = [line.message for line in prefect_api.logs(run_id)]
    assert not any(live_service.key in m for m in everything)
    assert not any("prk_live_" in m or "prk_test_" in m for m in everything)
    assert not any(QUERY.search(m) for m in everything), [m for m in everything if "?" in m]
    # The console shows what it showed before: the new lines are the run log's only.
    assert "Finished in state Completed()" in console
    assert any("waiting 2 s (" in m for m in console), console
    assert not any("uploaded still.png" in m or "still: ready" in m for m in console), console
    assert not any(re.search(r"published as \S+ after", m) for m in console), console


def _lines(flow_run_id: str, task_run_name: str, expected: str) -> list[str]:
    """A task run's log lines, once one holding ``expected`` has arrived (logs are sent in
    batches, a moment after the run ends)."""
    deadline = time.monotonic() + 10
    while True:
        lines = prefect_api.task_run_logs(flow_run_id, task_run_name)
        if any(expected in line for line in lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)


def test_a_client_line_outside_any_run_goes_to_the_console_alone(console: list[str]) -> None:
    """A process that ran a flow keeps Prefect's API handler on pressroom's loggers; the
    client used outside a run afterwards (a script, a notebook, a test) logs to the
    console as any library does, with no warning per line about a missing flow run."""
    from prefect.settings import (
        PREFECT_LOGGING_TO_API_ENABLED,
        PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW,
        temporary_settings,
    )

    from pressroom.pipeline import run_logs

    run_logs.attach()
    sending = {
        PREFECT_LOGGING_TO_API_ENABLED: True,
        PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW: "warn",
    }
    with temporary_settings(updates=sending), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        logging.getLogger("pressroom.client").info("retrying %s %s in %.1f s", "GET", "/x", 0.5)
        logging.getLogger("pressroom.pipeline.steps").info("waiting %d s", 2)
    assert "retrying GET /x in 0.5 s" in console
    assert "waiting 2 s" in console
    assert not [str(w.message) for w in caught if "flow run" in str(w.message)]
