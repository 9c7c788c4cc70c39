"""The folder the exactly-once record lives in: what Prefect's result store needs of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tasks.storage import StateFolder


def test_files_round_trip_under_the_folder_resolved_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = StateFolder.at(Path("state/keys"))
    assert folder.basepath == str(tmp_path.resolve() / "state" / "keys")
    monkeypatch.chdir("/")  # a later change of directory does not move it
    folder.write_path("campaign:manual:hello:microblog:conn_1", b"{}")
    assert folder.read_path("campaign:manual:hello:microblog:conn_1") == b"{}"
    assert (tmp_path / "state" / "keys" / "campaign:manual:hello:microblog:conn_1").is_file()
    assert folder._resolve_path("a/../b") == tmp_path.resolve() / "state" / "keys" / "b"


def test_a_name_cannot_leave_the_folder(tmp_path: Path) -> None:
    folder = StateFolder.at(tmp_path / "keys")
    with pytest.raises(ValueError, match="outside the state folder"):
        folder.write_path("../elsewhere", b"x")
    assert not (tmp_path / "elsewhere").exists()
    with pytest.raises(ValueError, match="outside the state folder"):
        folder.read_path("/etc/passwd")


def test_an_exactly_once_result_is_kept_in_the_state_folder_and_read_back_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The result and its key land in the state folder; a later run finds the result
    (``Cached``) without the task running again; and the record names its file by
    absolute path, so a process that never saw this task (a re-run after a kill) reads
    it with Prefect's plain ``LocalFileSystem``."""
    import asyncio

    from prefect import flow, task
    from prefect.cache_policies import CachePolicy
    from prefect.results import ResultRecordMetadata, ResultStore

    from tasks.common import service_state
    from tasks.publishing import by_idempotency_key, exactly_once

    monkeypatch.setenv("PRESSROOM_PIPELINE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("PRESSROOM_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PRESSROOM_API_KEY", "pk_unused")
    calls: list[str] = []

    @task(cache_policy=CachePolicy.from_cache_key_fn(by_idempotency_key), persist_result=True)
    def remember(key: str) -> dict[str, str]:
        calls.append(key)
        return {"key": key, "item": "post_1"}

    @flow
    def twice(key: str) -> list[str]:
        once = exactly_once(remember)
        first, again = once(key, return_state=True), once(key, return_state=True)
        return [first.name, again.name]

    assert twice("campaign:w48:hello:microblog:conn_1") == ["Completed", "Cached"]
    assert calls == ["campaign:w48:hello:microblog:conn_1"]

    store = service_state().cache_dir.resolve()
    assert isinstance(exactly_once(remember).result_storage, StateFolder)
    metadata = ResultRecordMetadata.load_bytes(
        (store / "keys" / "campaign:w48:hello:microblog:conn_1").read_bytes()
    )
    assert metadata.storage_block_id is None
    assert metadata.storage_key == str(store / "results" / "campaign:w48:hello:microblog:conn_1")
    record = asyncio.run(ResultStore._from_metadata(metadata))
    assert record.result == {"key": "campaign:w48:hello:microblog:conn_1", "item": "post_1"}
