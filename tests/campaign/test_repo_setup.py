"""The pre-commit hook and the CI snippet run commands that work on the examples."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from pressroom.cli.main import app

ROOT = Path(__file__).resolve().parents[2]


def run_command(line: str) -> int:
    words = shlex.split(line)
    assert words[:2] == ["pressroom", "campaign"], line
    return CliRunner().invoke(app, words[1:]).exit_code


def test_the_declared_hook_validates_the_campaign_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "pressroom-campaigns" and hook["pass_filenames"] is False
    assert re.match(hook["files"], "pipelines/media/cover.jpg")
    monkeypatch.chdir(ROOT)
    assert run_command(" ".join([hook["entry"], *hook["args"]])) == 0


def test_the_example_pre_commit_config_uses_the_same_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    config: dict[str, Any] = yaml.safe_load(
        (ROOT / "pipelines/ci/pre-commit-config.yaml").read_text()
    )
    [local] = [repo for repo in config["repos"] if repo["repo"] == "local"]
    [hook] = local["hooks"]
    [declared] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {k: hook[k] for k in ("id", "entry", "args", "files")} == {
        k: declared[k] for k in ("id", "entry", "args", "files")
    }
    monkeypatch.chdir(ROOT)
    assert run_command(" ".join([hook["entry"], *hook["args"]])) == 0


def test_the_ci_snippet_validates_with_annotations(monkeypatch: pytest.MonkeyPatch) -> None:
    workflow = yaml.safe_load((ROOT / "pipelines/ci/github-actions.yml").read_text())
    steps = workflow["jobs"]["validate"]["steps"]
    [validate] = [s["run"] for s in steps if s.get("name") == "Validate campaigns"]
    assert "--format github" in validate
    monkeypatch.chdir(ROOT)
    assert run_command(validate) == 0
