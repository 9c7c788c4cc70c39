"""The settings the tasks read: current with the environment, built once while it stays."""

from __future__ import annotations

import pytest

from tasks.common import settings


def test_settings_follow_a_changed_variable_and_are_reused_while_none_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PRESSROOM_PIPELINE_CONCURRENCY", "5")
    first = settings()
    assert first.concurrency == 5
    assert settings() is first  # nothing changed: not read again
    monkeypatch.setenv("UNRELATED_VARIABLE", "x")
    assert settings() is first  # a variable that is not pressroom's pipeline's

    monkeypatch.setenv("PRESSROOM_PIPELINE_CONCURRENCY", "7")
    assert settings().concurrency == 7
    monkeypatch.setenv("PRESSROOM_PIPELINE_PLATFORM_CONCURRENCY", "2")
    assert settings().platform_concurrency == 2
    monkeypatch.delenv("PRESSROOM_PIPELINE_PLATFORM_CONCURRENCY")
    assert settings().platform_concurrency == 4


def test_a_lower_case_name_counts_as_pydantic_settings_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PRESSROOM_PIPELINE_CONCURRENCY", raising=False)
    assert settings().concurrency == 16
    monkeypatch.setenv("pressroom_pipeline_concurrency", "3")
    assert settings().concurrency == 3
