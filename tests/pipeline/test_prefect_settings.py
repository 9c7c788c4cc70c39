"""The Prefect settings pressroom ships: real Prefect settings, kept by the servers it
starts, printable for a server started by hand, never overriding the environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from pressroom.pipeline import prefect_settings

BATCHED = {
    ("task_run_recorder", "batch_size"): 100,
    ("task_run_recorder", "flush_interval"): 1,
    ("event_persister", "batch_size"): 200,
    ("event_persister", "flush_interval"): 1,
}


def same(shown: str, text: str) -> bool:
    """Prefect prints what it parsed: ``False`` for "false", ``1.0`` for "1"."""
    try:
        return float(shown) == float(text)
    except ValueError:
        return shown.lower() == text.lower()


def test_every_setting_is_one_prefect_knows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Prefect ignores a misspelt variable without a word: each must reach its model."""
    from prefect.settings.models.root import Settings

    ours = {**prefect_settings.CLIENT, **prefect_settings.SERVER, **prefect_settings.AT_HEAD}
    for name, value in ours.items():
        monkeypatch.setenv(name, value)
    known = Settings().to_environment_variables(exclude_unset=True)
    for name, value in ours.items():
        assert name in known, f"Prefect has no setting {name}"
        assert same(known[name], value), (name, known[name], value)


def test_the_environment_wins() -> None:
    environ = {"PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "7"}
    prefect_settings.apply(environ, prefect_settings.SERVER)
    assert environ["PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE"] == "7"
    assert environ["PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE"] == "200"


def test_prefect_env_prints_lines_a_shell_can_eval() -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_SERVER_")}
    pressroom = Path(sys.executable).parent / "pressroom"
    shown = subprocess.run(
        ["bash", "-c", f'eval "$({pressroom} prefect-env)" && env'],
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    for name, value in prefect_settings.SERVER.items():
        assert f"{name}={value}" in shown


def server_settings(api_url: str) -> dict[str, Any]:
    response = httpx.get(f"{api_url.rstrip('/')}/admin/settings", timeout=30)
    response.raise_for_status()
    services: dict[str, Any] = response.json()["server"]["services"]
    return services


def test_the_ephemeral_server_of_a_run_writes_in_batches() -> None:
    """The server a run starts is a child process: it inherits prepare_prefect's settings."""
    from prefect.settings import get_current_settings

    api_url = get_current_settings().api.url
    assert api_url, "the session's Prefect harness should be running"
    services = server_settings(api_url)
    for (service, field), value in BATCHED.items():
        assert services[service][field] == value, (service, field)
