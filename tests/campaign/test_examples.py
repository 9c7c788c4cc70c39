"""The example campaigns in ``pipelines/``: clean, complete, small, and ready for editors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pressroom.campaign import load, validate, validate_files
from pressroom.platforms import SPEC_PLATFORMS, Platform
from tests.campaign.test_schema import PIPELINES

EXAMPLES = sorted(PIPELINES.glob("*.yaml"))
MODELINE = "# yaml-language-server: $schema=campaign.schema.json"


def test_there_are_examples_and_they_have_distinct_names() -> None:
    assert [p.name for p in EXAMPLES] == ["demo.yaml", "spring-launch.yaml"]
    assert all(report.ok for report in validate_files(EXAMPLES))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_each_example_is_clean_without_warnings(example: Path) -> None:
    report = validate(example)
    assert report.issues == [], [str(issue) for issue in report.issues]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_each_example_points_editors_at_the_schema(example: Path) -> None:
    assert example.read_text(encoding="utf-8").splitlines()[0] == MODELINE


def test_together_they_cover_every_platform_a_thumbnail_and_a_pin_board() -> None:
    contents = [c for path in EXAMPLES for post in load(path).posts for c in post.contents]
    assert {c.platform for c in contents} == set(Platform)
    assert any(c.thumbnail for c in contents)
    assert any(c.platform is Platform.PIN_BOARD and c.fields.get("board") for c in contents)


def test_the_demo_is_small_and_reaches_every_platform_by_itself() -> None:
    demo = load(PIPELINES / "demo.yaml")
    assert len(demo.posts) <= 5
    # The demo seeds connections on the spec's eight labels; open_microblog, pressroom's
    # extension, is in the scheduled example.
    assert {c.platform for post in demo.posts for c in post.contents} == set(SPEC_PLATFORMS)
    assert demo.schedule is None  # the demo runs on demand


def test_the_committed_media_are_tiny_and_all_used() -> None:
    media = sorted((PIPELINES / "media").iterdir())
    assert media and all(path.stat().st_size < 8 * 1024 for path in media)
    used = {m.path for path in EXAMPLES for m in load(path).media.values()}
    assert set(media) == used
