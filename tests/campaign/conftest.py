"""Campaign tests: a folder of real media made once, and a way to write campaign files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pressroom.campaign import validate
from tests.support.documents import make_pdf
from tests.support.media import make_fake_video, make_image, make_video

Write = Callable[[str], Path]


@pytest.fixture(scope="session")
def media_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Media every campaign test may name as ``media/<file>``."""
    folder = tmp_path_factory.mktemp("media")
    make_video(folder / "clip.mp4", 4, width=72, height=128)  # 9:16, 4 s
    make_video(folder / "short.mp4", 2, width=72, height=128)  # under short_video's 3 s
    make_video(folder / "wide.mp4", 4, width=64, height=48)  # 4:3
    make_image(folder / "cover.jpg", size=(1280, 720), fmt="JPEG")
    make_image(folder / "small.png", size=(100, 100))
    make_image(folder / "pin.png", size=(200, 300))
    make_image(folder / "photo.webp", size=(1280, 720), fmt="WEBP")
    make_fake_video(folder / "fake.mp4")
    (folder / "notes.txt").write_text("not media\n")
    (folder / "deck.pdf").write_bytes(make_pdf(12))
    (folder / "fake.pdf").write_text("not a PDF\n")
    return folder


@pytest.fixture
def campaign_dir(tmp_path: Path, media_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh folder, the working directory, with ``media/`` linked in."""
    (tmp_path / "media").symlink_to(media_dir, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def write(campaign_dir: Path) -> Write:
    """Write ``c.yaml`` (dedented) in the campaign folder and return its relative path."""
    import textwrap

    def _write(text: str) -> Path:
        path = Path("c.yaml")
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return _write


def lines(path: Path) -> list[str]:
    """Every issue of the file, as the CLI prints it."""
    return [str(issue) for issue in validate(path).issues]
