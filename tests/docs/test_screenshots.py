"""The documentation's screenshots are retaken when what they show changes: each picture
is recorded with a digest of the files that draw it, and a change to one of them names
the picture to retake and the command."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from pressroom.docs import screenshots

ROOT = Path(__file__).resolve().parents[2]


def test_no_screenshot_is_older_than_what_it_shows() -> None:
    found = screenshots.stale(ROOT)
    assert found == {}, "\n".join(
        f"docs/screenshots/{name}.png was taken before one of its files changed "
        f"({', '.join(screenshots.inputs(name, ROOT))}): retake it with `{command}`"
        for name, command in found.items()
    )


def test_every_picture_is_listed_and_every_one_the_docs_show_exists() -> None:
    pictures = {path.stem for path in (ROOT / screenshots.DIRECTORY).glob("*.png")}
    assert pictures == set(screenshots.SHOTS)
    shown = {
        name
        for path in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
        for name in re.findall(r"screenshots/([\w-]+)\.png", path.read_text(encoding="utf-8"))
    }
    assert shown and shown <= set(screenshots.SHOTS)


def test_a_changed_template_makes_its_pictures_stale_and_no_other(tmp_path: Path) -> None:
    for name in screenshots.SHOTS:
        for path in screenshots.inputs(name, ROOT):
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / path, tmp_path / path)
    directory = tmp_path / screenshots.DIRECTORY
    directory.mkdir(parents=True)
    for name in screenshots.SHOTS:
        screenshots.record(name, directory, tmp_path)
    assert screenshots.stale(tmp_path) == {}

    table = tmp_path / screenshots.TEMPLATES / "partials" / "posts_table.html"
    table.write_text(table.read_text(encoding="utf-8") + "<!-- a new column -->\n")
    found = screenshots.stale(tmp_path)
    assert set(found) == {"posts", "overview"}  # the two pages that include the table
    assert found["posts"].startswith("PRESSROOM_SCREENSHOTS=docs/screenshots ")

    screenshots.record("posts", directory, tmp_path)
    screenshots.record("overview", directory, tmp_path)
    css = tmp_path / screenshots.WEB / "static" / "dashboard.css"
    css.write_text(css.read_text(encoding="utf-8") + "\n/* wider */\n")
    assert set(screenshots.stale(tmp_path)) == set(screenshots.SHOTS) - {"prefect-run"}
