"""The examples on the Get started and Campaigns pages run as they are written.

- a YAML block with a title (```yaml title="pipelines/hello.yaml"```) is a file: it is
  written at that path of a copy of the checkout's ``pipelines/``;
- a ```console``` block is commands (``$ …``) and what they print: each is run there and
  its output must be the one shown;
- every other YAML block is a piece of a campaign: put into a small campaign whose media
  are the examples' own, it must validate without an error;
- every command of a ```bash``` block runs and exits 0, except those that need a running
  service or Prefect server (listed below, with the test that covers them);
- every ```python``` block runs.
"""

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
from PIL import Image

from pressroom.campaign import validate

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    p
    for folder in ("get-started", "campaigns")
    for p in (ROOT / "docs" / folder).glob("*.md")
    if p.name != "format.md"  # generated: no examples
)
BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.S | re.M)

# Commands not run here: those that need a live service, a Prefect server or the whole
# demo, which the demo's and the pipeline's tests run (tests/cli/test_demo.py,
# tests/pipeline/), and the test suite itself (CI runs it).
NOT_RUN_HERE = re.compile(
    r"PRESSROOM_API_KEY=|PREFECT_API_URL=|^export |campaign run|pressroom serve|"
    r"scripts/(demo|deploy|test)|distributed\.cli"
)


def blocks(page: Path) -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(2), m.group(3)) for m in BLOCK.finditer(page.read_text())]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of what the examples use: pipelines/ and the project's .venv."""
    shutil.copytree(ROOT / "pipelines", tmp_path / "pipelines")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    # The pictures the examples name that the project's examples do not have: a 3.2:1
    # banner (the shape example) and a 4:5 poster, a shape every network takes.
    Image.new("RGB", (320, 100), "white").save(tmp_path / "pipelines/media/wide-banner.png")
    Image.new("RGB", (800, 1000), "white").save(tmp_path / "pipelines/media/poster-4x5.jpg")
    return tmp_path


def run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    env.pop("PRESSROOM_API_KEY", None)
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_pages_files_and_console_sessions_run_as_printed(page: Path, checkout: Path) -> None:
    for language, info, body in blocks(page):
        title = re.search(r'title="([^"]+)"', info)
        if language == "yaml" and title:
            (checkout / title.group(1)).write_text(body)
        elif language == "console":
            sessions = re.split(r"^\$ ", body, flags=re.M)[1:]
            for session in sessions:
                command, _, expected = session.partition("\n")
                done = run(command, checkout)
                shown = (done.stdout + done.stderr).rstrip("\n")
                assert shown == expected.rstrip("\n"), (page.name, command)


MEDIA = {
    "teaser": "media/teaser-vertical.mp4",
    "film": "media/launch.mp4",
    "cover": "media/cover.jpg",
    "poster": "media/poster-4x5.jpg",
    "wide-banner": "media/wide-banner.png",
}


def as_campaign(piece: dict[str, Any]) -> dict[str, Any]:
    """A piece of a campaign completed into a whole one around it."""
    campaign_keys = {"name", "posts", "media", "schedule", "retries", "defaults"}
    if not campaign_keys & set(piece) and not all(key.startswith("x-") for key in piece):
        piece = {"posts": [{"id": "example", **piece}]}  # a platform block
    campaign: dict[str, Any] = {
        "name": "example",
        "media": {name: {"path": path} for name, path in MEDIA.items()},
        "posts": [{"id": "skeleton", "microblog": {"text": "Hello"}}],
    }
    if "media" in piece:
        campaign["media"].update(piece.pop("media"))
    return {**campaign, **piece}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_pages_campaign_pieces_validate(page: Path, checkout: Path) -> None:
    for n, (language, info, body) in enumerate(blocks(page)):
        piece = yaml.safe_load(body) if language == "yaml" and "title=" not in info else None
        if piece is None:  # not YAML, a file written whole, or a comment alone
            continue
        path = checkout / "pipelines" / f"piece-{n}.yaml"
        path.write_text(yaml.safe_dump(as_campaign(piece), allow_unicode=True))
        report = validate(str(path))
        assert report.errors == [], (page.name, body, [str(e) for e in report.errors])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_pages_commands_and_python_run(page: Path, checkout: Path) -> None:
    for language, _, body in blocks(page):
        if language == "bash":
            for line in body.replace("\\\n", " ").splitlines():
                command = line.split("  #", 1)[0].strip()
                if not command or command.startswith("#") or NOT_RUN_HERE.search(command):
                    continue
                done = run(command, checkout)
                assert done.returncode == 0, (page.name, command, done.stderr[-2000:])
        elif language == "python":
            done = run(f"python -c {shlex.quote(body)}", checkout)
            assert done.returncode == 0, (page.name, done.stderr[-2000:])
