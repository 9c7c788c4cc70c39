"""The site builds strictly and, built, loads nothing from another host: it reads the
same on a machine with no way out to the internet."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Where a page or a stylesheet makes the browser fetch something: scripts, stylesheets,
# fonts, images, frames, preloads, CSS url() and @import. Links a reader follows (<a href>)
# are not fetched, so the pages of the networks' documentation may be linked.
FETCHED = [
    re.compile(
        r"<(?:script|img|iframe|source|video|audio|embed)\b[^>]*\bsrc=[\"']?([^\"' >]+)", re.I
    ),
    re.compile(r"<link\b[^>]*\bhref=[\"']?([^\"' >]+)", re.I),
    re.compile(r"\bsrcset=[\"']([^\"']+)", re.I),
    re.compile(r"url\(\s*[\"']?([^\"')]+)", re.I),
    re.compile(r"@import\s+[\"']([^\"']+)", re.I),
    re.compile(r"\b(?:importScripts|fetch)\(\s*[\"']([^\"']+)", re.I),
]
OUTSIDE = re.compile(r"^(?:https?:)?//", re.I)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    return out


def fetched_from_outside(text: str) -> list[str]:
    return [
        address
        for pattern in FETCHED
        for found in pattern.finditer(text)
        for address in re.split(r",\s*", found.group(1))
        if OUTSIDE.match(address.strip())
    ]


def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    pages = {p.relative_to(ROOT / "docs").with_suffix("") for p in (ROOT / "docs").rglob("*.md")}
    for page in pages:
        built = (
            site / page / "index.html"
            if page.name != "index"
            else site / page.parent / "index.html"
        )
        assert built.exists(), page


def test_the_built_site_loads_nothing_from_another_host(site: Path) -> None:
    files = [p for p in site.rglob("*") if p.suffix in {".html", ".css", ".js"}]
    assert len(files) > 50
    outside = {
        str(path.relative_to(site)): found
        for path in files
        if (found := fetched_from_outside(path.read_text(encoding="utf-8", errors="replace")))
    }
    assert outside == {}


def test_the_check_sees_an_outside_font() -> None:
    """Material's default (Google Fonts) is what ``font: false`` turns off."""
    assert fetched_from_outside(
        '<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>'
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'
    )
    assert not fetched_from_outside('<a href="https://docs.x.com/">X</a>')
