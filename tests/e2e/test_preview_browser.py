"""In Chromium: the HTML that ``pressroom campaign preview`` writes shows each post's text,
its counts and its thumbnails, shows markup in a post as text, and has no accessibility
violation. The page is opened from disk, as someone opens the workflow's artifact."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pressroom.campaign import validate_files
from pressroom.cli.main import app
from pressroom.platforms import RULES
from tests.e2e.conftest import check_page

pytestmark = pytest.mark.browser
PIPELINES = Path(__file__).resolve().parents[2] / "pipelines"


def write_preview(files: list[Path], out: Path) -> Path:
    result = CliRunner().invoke(
        app, ["campaign", "preview", *map(str, files), "--format", "html", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def browser_page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context()
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def thumbnails_loaded(article: Any) -> list[int]:
    """Each picture's natural width: 0 for one the browser could not load."""
    widths: list[int] = article.locator("img").evaluate_all(
        "images => images.map(image => image.complete ? image.naturalWidth : 0)"
    )
    return widths


def test_every_post_of_the_repository_shows_its_text_counts_and_thumbnails(
    browser_page: Any, axe: Any, tmp_path: Path
) -> None:
    page = browser_page
    out = write_preview([PIPELINES], tmp_path / "preview" / "index.html")
    page.goto(out.as_uri())
    page.get_by_role("heading", name="Campaign preview", level=1).wait_for()
    reports = validate_files(sorted(PIPELINES.glob("*.yaml")))
    blocks = 0
    for report in reports:
        campaign = report.campaign
        assert campaign is not None
        section = page.locator("section.campaign").filter(
            has=page.get_by_role("heading", name=campaign.name, level=2)
        )
        for post in campaign.posts:
            shown = section.locator(f'section.post[data-post="{post.id}"]')
            assert shown.get_by_role("heading", level=3).inner_text() == f"Post {post.id}"
            for content in post.contents:
                blocks += 1
                article = shown.locator(f'article[data-platform="{content.platform.value}"]')
                for rule in RULES[content.platform].text_fields:
                    value = content.text(rule.name)
                    if value is None:
                        continue
                    # Part 0, then a thread's later parts, each with its own counts.
                    for kind, shown_value in (
                        ("post", value),
                        *(("reply", part) for part in content.thread if rule.name == "text"),
                    ):
                        parts = article.locator(f'.part[data-kind="{kind}"]')
                        index = 0 if kind == "post" else content.thread.index(shown_value)
                        text = parts.nth(index).locator(f'.text[data-field="{rule.name}"]')
                        assert text.locator(".body").inner_text() == shown_value
                        counts = text.locator(".count").all_inner_texts()
                        assert counts and all(" / " in c or "no limit" in c for c in counts)
                        if rule.max_chars is not None:
                            assert any(f"/ {rule.max_chars:,} characters" in c for c in counts)
                    replies = article.locator('.part[data-kind="reply"]')
                    assert replies.count() == (len(content.thread) if rule.name == "text" else 0)
                # The post's one file, or a carousel's files in the order written.
                files = list(content.carousel) or (
                    [post.media]
                    if post.media is not None and not RULES[content.platform].text_only
                    else []
                )
                for number, name in enumerate(files, 1):
                    media = campaign.media[name]
                    figure = article.locator("ol.media > li").nth(number - 1).locator("figure")
                    assert figure.get_attribute("data-media") == name
                    alt = figure.locator("img").get_attribute("alt")
                    assert f"{number} of {len(files)}, {name}" in alt
                    assert media.written_path in figure.inner_text()
                expected = len(files) + (content.thumbnail is not None)
                widths = thumbnails_loaded(article)
                assert len(widths) == expected and all(0 < w <= 320 for w in widths)
    assert blocks == page.locator("article.block").count() == 18
    microblog = page.locator('section.post[data-post="hello"] article[data-platform="microblog"]')
    assert "63 / 280 weighted characters" in microblog.locator(".count").first.inner_text()
    # spring-launch's Instagram carousel: the film, then the cover, in that order.
    carousel = page.locator(
        'section.post[data-post="launch-film"] article[data-platform="photo_sharing"] ol.media'
    )
    assert carousel.get_attribute("aria-label") == "carousel of 2 files, in order"
    assert carousel.locator("figure").evaluate_all(
        "figures => figures.map(figure => figure.dataset.media)"
    ) == ["film", "cover"]
    check_page(page, axe, "campaign-preview")


def test_a_post_with_markup_and_an_over_long_text_shows_both_as_they_are(
    browser_page: Any, axe: Any, tmp_path: Path
) -> None:
    page = browser_page
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    (tmp_path / "media").mkdir()
    shutil.copy(PIPELINES / "media" / "cover.jpg", tmp_path / "media" / "cover.jpg")
    script = "<script>alert('posted')</script> <img src=x onerror=alert(1)> **not bold**"
    (tmp_path / "c.yaml").write_text(
        "name: risky\n"
        "media: {cover: {path: media/cover.jpg}}\n"
        "posts:\n"
        f'  - id: markup\n    microblog: {{text: "{script}"}}\n'
        f'  - id: long\n    microblog: {{text: "{"春" * 150}"}}\n'
        "  - id: photo\n    media: cover\n    page_social: {message: Spring}\n",
        encoding="utf-8",
    )
    out = write_preview([tmp_path / "c.yaml"], tmp_path / "out" / "preview.html")
    page.goto(out.as_uri())
    markup = page.locator('section.post[data-post="markup"] .body')
    assert markup.inner_text() == script
    assert page.locator("script").count() == 0 and dialogs == []
    long = page.locator('section.post[data-post="long"] article[data-platform="microblog"]')
    over = long.locator(".count.over")
    assert over.count() == 1
    assert over.inner_text().startswith("300 / 280 weighted characters")
    assert over.inner_text().endswith("microblog.weighted_length): 20 over the limit")
    assert over.get_by_role("link", name="microblog.weighted_length").get_attribute("href") == (
        "https://docs.x.com/fundamentals/counting-characters"
    )
    assert "X would refuse it" in long.locator(".issue-error").inner_text()
    photo = page.locator('section.post[data-post="photo"]')
    assert thumbnails_loaded(photo) == [320]
    check_page(page, axe, "campaign-preview-findings")
