"""The pre-commit hook and the CI snippet run commands that work on the examples."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
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


def test_the_preview_workflow_writes_the_summary_and_the_html_artifact(tmp_path: Path) -> None:
    """Each ``run:`` step of the example, run by bash as the runner would, on a copy of
    ``pipelines/`` with ``GITHUB_STEP_SUMMARY`` pointing at a file. Skipped: the
    ``uses:`` steps (checkout, setup-python, upload-artifact: GitHub's own actions) and
    the pip install (this environment already has pressroom with its media extra)."""
    workflow = yaml.safe_load((ROOT / "pipelines/ci/campaign-preview.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers == {"pull_request": {"paths": ["pipelines/**"]}}
    steps = workflow["jobs"]["preview"]["steps"]
    [install] = [s["run"] for s in steps if "pip install" in s.get("run", "")]
    assert "pressroom[media]" in install
    [upload] = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]

    shutil.copytree(ROOT / "pipelines", tmp_path / "pipelines")
    summary = tmp_path / "step_summary.md"
    summary.write_text("")
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(summary),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    commands = [s["run"] for s in steps if "run" in s and s["run"] != install]
    assert len(commands) == 2
    for command in commands:
        done = subprocess.run(
            ["bash", "-e", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, (command, done.stderr)

    text = summary.read_text()
    assert text.startswith("# Campaign preview\n") and "### Post launch-film" in text
    assert 0 < len(text.encode()) < 1024 * 1024
    assert "data:" not in text and "![" not in text and "<img" not in text
    artifact = tmp_path / upload["with"]["path"]
    pages = list(artifact.glob("*.html"))
    assert len(pages) == 1 and "Post <code>launch-film</code>" in pages[0].read_text()
    assert len(list(artifact.glob("*_files/*.jpg"))) == 4  # the four files of pipelines/media
