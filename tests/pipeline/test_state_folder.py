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
