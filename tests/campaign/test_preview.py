"""``pressroom campaign preview``: every post as each network will show it, offline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from pressroom.campaign import validate_files
from pressroom.campaign.preview import build, markdown
from pressroom.platforms import Platform
from pressroom.rules import SeeMore, Unit
from pressroom.rules.docs import markdown_table
from pressroom.rules.table import TABLE
from tests.campaign.conftest import Write
from tests.campaign.test_schema import PIPELINES
from tests.support.media import make_transparent_png

runner = CliRunner()
NOW = "2026-03-20T12:00:00Z"


def preview(*args: str) -> tuple[int, str, str]:
    from pressroom.cli.main import app

    result = runner.invoke(app, ["campaign", "preview", *args])
    return result.exit_code, result.stdout, result.stderr


def fenced(text: str) -> str:
    return f"```text\n{text}\n```"


def test_the_repository_campaigns_render_every_post_and_network() -> None:
    code, out, _ = preview(str(PIPELINES), "--now", NOW)
    assert code == 0
    for report in validate_files(sorted(PIPELINES.glob("*.yaml"))):
        assert report.campaign is not None
        assert f"## {report.campaign.name} (" in out
        for post in report.campaign.posts:
            assert f"### Post {post.id}\n" in out
            for content in post.contents:
                for name, value in content.fields.items():
                    if name in ("text", "title", "caption", "message", "description"):
                        assert fenced(str(value)) in out
    # X's weighted count, each network's own unit, with the rule and its page
    assert "60 / 280 weighted characters" in out
    assert (
        "[microblog.weighted\\_length](<https://docs.x.com/fundamentals/counting-characters>)"
        in out
    )
    assert "bytes (UTF-8) (YouTube" in out and "UTF-16 code units (TikTok" in out
    # spring-launch runs on Mondays at 09:00 in Berlin; the clocks change on 29 March
    assert (
        "**Next runs** (0 9 \\* \\* 1 in Europe/Berlin): Mon 2026-03-23 09:00 CET · "
        "Mon 2026-03-30 09:00 CEST · Mon 2026-04-06 09:00 CEST"
    ) in out
    assert "- media 1 of 1: film (media/launch.mp4): video, 128x72" in out
    assert "- thumbnail: cover (media/cover.jpg): image, 1280x720" in out
    # for a job summary: no image at all, nothing by data: URI, within GitHub's cap
    assert "data:" not in out and "![" not in out and "<img" not in out
    assert len(out.encode()) < markdown.LIMIT


def test_a_text_over_xs_weighted_limit_shows_its_count_and_the_rule(write: Write) -> None:
    write(
        f"""
        name: long
        posts:
          - id: cjk
            microblog: {{text: "{"春" * 150}"}}
        """
    )
    code, out, _ = preview("c.yaml")
    assert code == 0  # a preview is written whatever it shows; validate is the gate
    counts = out.split(fenced("春" * 150), 1)[1].split("\n\n")[1]
    assert counts == (
        "**300 / 280 weighted characters (X's count\\: CJK and emoji 2, a link 23) (X, "
        "[microblog.weighted\\_length](<https://docs.x.com/fundamentals/counting-characters>))"
        ": 20 over the limit** · 150 / 280 characters (the spec)"
    )
    assert "- **error** at line 4, column 23, posts.0.microblog.text: X would refuse it\\: " in out


def test_the_see_more_cut_splits_the_text_where_the_table_says(
    write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No network documents a cut yet, so the table holds none and the preview shows
    none; a rule put in the table is shown at once, cut between whole characters."""
    write(
        """
        name: cut
        media: {cover: {path: media/cover.jpg}}
        posts:
          - id: photo
            media: cover
            photo_sharing: {caption: "Spring is here 👍🏽👍🏽 and the rest"}
        """
    )
    assert "behind" not in preview("c.yaml")[1]
    rule = SeeMore(
        platform=Platform.PHOTO_SHARING,
        network="Instagram",
        name="caption_more",
        doc_url="https://example.test/more",
        fields=("caption",),
        limit=16,
        unit=Unit.GRAPHEMES,
    )
    monkeypatch.setitem(TABLE, Platform.PHOTO_SHARING, (*TABLE[Platform.PHOTO_SHARING], rule))
    [row] = [row for row in markdown_table() if "`photo_sharing.caption_more`" in row]
    assert "caption: the first 16 characters shown, the rest behind 'more'" in row
    assert "never refused: `campaign preview` shows the cut" in row
    out = preview("c.yaml")[1]
    assert (
        f"{fenced('Spring is here 👍🏽')}\n\n… more: the app shows the text above, the rest "
        "behind 'more' ([photo\\_sharing.caption\\_more](<https://example.test/more>)):\n\n"
        f"{fenced('👍🏽 and the rest')}"
    ) in out


def test_a_threads_parts_are_numbered_each_with_its_counts(write: Write, tmp_path: Path) -> None:
    write(
        f"""
        name: story
        posts:
          - id: thread
            microblog:
              text: "The spring collection is out"
              thread:
                - "Linen shirts in six colours"
                - "{"春" * 150}"
          - id: single
            text_thread: {{text: "One post"}}
        """
    )
    out = preview("c.yaml")[1]
    thread = out.split("### Post thread", 1)[1].split("### Post single", 1)[0]
    assert [line for line in thread.splitlines() if line.startswith("**Part")] == [
        "**Part 1 of 3**",
        "**Part 2 of 3**",
        "**Part 3 of 3**",
    ]
    second = thread.split("**Part 2 of 3**", 1)[1].split("**Part 3 of 3**", 1)[0]
    assert fenced("Linen shirts in six colours") in second
    assert "27 / 280 weighted characters" in second and "27 / 280 characters (the spec)" in second
    third = thread.split("**Part 3 of 3**", 1)[1]
    assert (
        "**300 / 280 weighted characters (X's count\\: CJK and emoji 2, a link 23) (X, "
        "[microblog.weighted\\_length](<https://docs.x.com/fundamentals/counting-characters>))"
        ": 20 over the limit** · 150 / 280 characters (the spec)"
    ) in third
    # validate's finding about part 3 is shown beside the thread, at its line
    assert (
        "- **error** at line 8, column 11, posts.0.microblog.thread.1: part 3 of the thread"
        in thread
    )
    assert "**Part" not in out.split("### Post single", 1)[1]  # a single post is not numbered

    preview("c.yaml", "--format", "html", "-o", str(tmp_path / "p.html"))
    page = (tmp_path / "p.html").read_text()
    assert re.findall(r"<h5>(Part \d of \d)</h5>", page) == [f"Part {n} of 3" for n in (1, 2, 3)]
    assert page.count('data-kind="reply"') == 2


def test_next_runs_are_shown_on_the_campaigns_clock(write: Write) -> None:
    write(
        """
        name: mornings
        schedule: {cron: "30 8 * * *", timezone: America/New_York}
        posts:
          - id: a
            microblog: {text: hi}
        """
    )
    out = preview("c.yaml", "--now", "2026-03-07T12:00:00Z")[1]
    assert (
        "(30 8 \\* \\* \\* in America/New\\_York): Sat 2026-03-07 08:30 EST · "
        "Sun 2026-03-08 08:30 EDT · Mon 2026-03-09 08:30 EDT"
    ) in out
    # without a zone, --now is UTC; a campaign without a schedule says how it runs
    assert "Sat 2026-03-07 08:30 EST" in preview("c.yaml", "--now", "2026-03-07T12:00")[1]
    code, _, err = preview("c.yaml", "--now", "Monday")
    assert code == 2 and "'Monday' is not an ISO 8601 time" in err


def test_html_writes_a_thumbnail_beside_it_for_each_file(write: Write, tmp_path: Path) -> None:
    make_transparent_png(tmp_path / "logo.png", size=(640, 480))
    write(
        """
        name: pictures
        media:
          cover: {path: media/cover.jpg}
          clip: {path: media/clip.mp4}
          logo: {path: logo.png}
        posts:
          - id: film
            media: clip
            short_video: {caption: "Sneak peek", privacy_level: SELF_ONLY}
          - id: logo
            media: logo
            page_social: {message: "Our new logo"}
          - id: cover
            media: cover
            pin_board: {board: b, title: "Spring"}
        """
    )
    code, _, err = preview("c.yaml", "--format", "html", "-o", "out/preview.html")
    assert code == 0, err
    page = Path("out/preview.html").read_text()
    sources = re.findall(r'<img src="([^"]+)" width="(\d+)" height="(\d+)"', page)
    assert len(sources) == 3 and "data:" not in page
    sizes = {}
    for src, width, height in sources:
        assert src.startswith("preview_files/") and src.endswith(".jpg")
        with Image.open(Path("out") / src) as thumbnail:
            assert thumbnail.format == "JPEG"
            assert thumbnail.size == (int(width), int(height))
            sizes[src.split("-", 1)[1]] = thumbnail.size
            if "logo" in src:  # transparency flattened onto white, not black
                assert thumbnail.convert("RGB").getpixel((2, 2)) >= (250, 250, 250)
    # at most 320 px a side; a video's is its first picture, never enlarged
    assert sizes == {"cover.jpg": (320, 180), "clip.jpg": (72, 128), "logo.jpg": (320, 240)}


def test_html_needs_a_path_for_its_thumbnails(write: Write) -> None:
    write("name: a\nposts: [{id: a, microblog: {text: hi}}]\n")
    code, _, err = preview("c.yaml", "--format", "html")
    assert code == 2 and "html needs -o PATH" in err


def test_markup_in_a_post_is_shown_as_written(write: Write, tmp_path: Path) -> None:
    text = "<script>alert('x')</script> **bold** [link](https://example.com) :tada: ``` @acme"
    write(
        f"""
        name: markup
        description: "1. <b>not a list</b>"
        posts:
          - id: a
            microblog: {{text: "{text}"}}
        """
    )
    out = preview("c.yaml")[1]
    assert f"````text\n{text}\n````" in out  # a fence longer than the text's own backticks
    assert "1\\. \\<b\\>not a list\\</b\\>" in out
    preview("c.yaml", "--format", "html", "-o", str(tmp_path / "p.html"))
    page = (tmp_path / "p.html").read_text()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "<script" not in page and "<b>" not in page


def test_findings_are_shown_beside_the_post_they_are_about(write: Write) -> None:
    path = write(
        f"""
        name: findings
        media: {{square: {{path: media/small.png}}, unused: {{path: media/cover.jpg}}}}
        defaults:
          microblog: {{text: "{"春" * 150}"}}
        posts:
          - id: pin
            media: square
            pin_board: {{board: b}}
          - id: one
            microblog: {{}}
          - id: two
            microblog: {{}}
        """
    )
    [report] = validate_files([path])
    shown = build(report)
    pin, one, two = shown.posts
    [advice] = pin.blocks[0].issues
    assert advice.severity == "warning" and "recommended for pin_board" in advice.message
    # the default's error beside each post that takes it, once in the counts
    for post in (one, two):
        [error] = post.blocks[0].issues
        assert error.path == "defaults.microblog.text" and error.rule == "microblog.weighted_length"
    [unused] = shown.issues
    assert unused.path == "media.unused" and "not used by any post" in unused.message
    assert (shown.errors, shown.warnings) == (1, 2)


def test_a_file_that_is_no_campaign_shows_its_errors(write: Write) -> None:
    write("name: [\n")
    code, out, _ = preview("c.yaml")
    assert code == 0
    assert "## c (c.yaml)\n\nThis file could not be read as a campaign:" in out
    assert "- **error** at line" in out


def test_the_summary_stops_within_its_cap_and_says_so(write: Write) -> None:
    posts = "\n".join(f"  - id: p{i}\n    microblog: {{text: post number {i}}}" for i in range(60))
    path = write(f"name: many\nposts:\n{posts}\n")
    previews = [build(report) for report in validate_files([path])]
    whole = markdown.render(previews)
    cut = markdown.render(previews, limit=8 * 1024)
    assert len(cut.encode()) <= 8 * 1024 < len(whole.encode())
    shown = cut.count("### Post ")
    assert 0 < shown < 60 and cut.startswith(whole[: len(cut) // 2])
    assert cut.endswith(
        f"**The summary stops here:** {60 - shown} more posts are left out to keep it "
        "within 8 KiB. The HTML preview shows every post.\n"
    )
