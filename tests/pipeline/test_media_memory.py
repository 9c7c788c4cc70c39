"""The media memory: where it lives, and two processes updating it at once."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from pressroom.pipeline.config import PipelineSettings
from pressroom.pipeline.media_memory import MediaMemory


def _remember_many(path: str, prefix: str, count: int) -> None:
    memory = MediaMemory(Path(path))
    for i in range(count):
        memory.remember(f"{prefix}-{i}", f"file_{prefix}_{i}")


def test_two_processes_at_once_lose_none_of_each_others_uploads(tmp_path: Path) -> None:
    path = tmp_path / "media-memory.json"
    context = multiprocessing.get_context("spawn")
    runs = [
        context.Process(target=_remember_many, args=(str(path), prefix, 150))
        for prefix in ("a", "b")
    ]
    for run in runs:
        run.start()
    for run in runs:
        run.join(timeout=120)
        assert run.exitcode == 0
    memory = MediaMemory(path)
    missing = [
        f"{prefix}-{i}"
        for prefix in ("a", "b")
        for i in range(150)
        if memory.recall(f"{prefix}-{i}") != [f"file_{prefix}_{i}"]
    ]
    assert missing == []


def test_state_lives_in_the_user_state_dir_keyed_by_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PRESSROOM_PIPELINE_STATE_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    settings = PipelineSettings()
    one = settings.state_for("http://127.0.0.1:8000")
    assert one.folder.is_absolute()
    assert one.folder.is_relative_to(tmp_path / "xdg" / "pressroom")
    assert one.folder != settings.state_for("http://127.0.0.1:8001").folder
    assert one.folder == settings.state_for("http://127.0.0.1:8000/").folder

    monkeypatch.setenv("PRESSROOM_PIPELINE_STATE_DIR", "relative/state")
    overridden = PipelineSettings().state_for("http://127.0.0.1:8000")
    assert overridden.folder.is_relative_to(tmp_path / "relative" / "state")


def test_each_account_keeps_its_own_upload_of_a_content(tmp_path: Path) -> None:
    memory = MediaMemory(tmp_path / "media-memory.json")
    memory.remember("abc", "file_of_account_a")
    memory.remember("abc", "file_of_account_b")
    assert memory.recall("abc") == ["file_of_account_b", "file_of_account_a"]
    memory.forget("abc", "file_of_account_b")
    assert memory.recall("abc") == ["file_of_account_a"]
