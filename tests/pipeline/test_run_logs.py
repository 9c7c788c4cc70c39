"""Run logs leave the process for Prefect's API: keys never do."""

from __future__ import annotations

import logging

import pytest

from pressroom.pipeline.run_logs import RedactSecrets


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
