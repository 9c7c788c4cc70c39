"""`first_comment:` in the photo_sharing, page_social, professional_network and
video_sharing blocks: checked at its line, sent as the body's `firstComment`, counted
among the plan's parts, and shown in the preview under its own heading."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pressroom.campaign import load, plan, validate
from pressroom.platforms import Platform
from pressroom.rules import COMMENTED
from tests.campaign.conftest import Write
from tests.campaign.test_preview import fenced, preview


def test_the_four_blocks_take_a_first_comment() -> None:
    assert set(COMMENTED) == {
        Platform.PHOTO_SHARING,
        Platform.PAGE_SOCIAL,
        Platform.PROFESSIONAL_NETWORK,
        Platform.VIDEO_SHARING,
    }


def test_a_first_comment_is_checked_at_its_line(write: Write) -> None:
    """Blank, a YAML comment cutting it short, and ``first_comment:`` on a block whose
    network takes none: each at the line at fault."""
    path = write(
        """
        name: spring
        posts:
          - id: blank
            professional_network:
              text: hi
              first_comment: "   "
          - id: cut
            professional_network:
              text: hi
              first_comment: see #launch for more
          - id: other
            microblog:
              text: hi
              first_comment: more
        """
    )
    report = validate(path)
    assert [(i.line, i.path) for i in report.errors] == [
        (6, "posts.0.professional_network.first_comment"),
        (14, "posts.2.microblog.first_comment"),
    ]
    assert report.errors[0].message == (
        "first_comment is blank: write the comment or remove the line"
    )
    assert report.errors[1].message == (
        "unknown key 'first_comment'; microblog takes no first comment; only "
        "video_sharing, photo_sharing, page_social, professional_network add one under "
        "the post"
    )
    [warning] = report.warnings
    assert (warning.line, warning.path) == (10, "posts.1.professional_network.first_comment")
    assert "stops before '#launch for more'" in warning.message


def test_the_plan_sends_it_as_first_comment_and_counts_its_part(write: Write) -> None:
    campaign = load(
        write(
            """
            name: s
            defaults:
              professional_network: {first_comment: "Apply: acme.example/jobs"}
            posts:
              - id: a
                professional_network: {text: "We are hiring"}
              - id: b
                professional_network: {text: "Still hiring", first_comment: "Own one"}
            """
        )
    )
    planned = plan(
        campaign, [{"id": "pn1", "platform": "professional_network", "name": "Ada"}]
    ).posts
    assert [(p.body, p.parts) for p in planned] == [
        (
            {
                "connectionId": "pn1",
                "text": "We are hiring",
                "firstComment": "Apply: acme.example/jobs",
            },
            2,
        ),
        ({"connectionId": "pn1", "text": "Still hiring", "firstComment": "Own one"}, 2),
    ]


def test_the_preview_shows_the_first_comment_under_its_heading(
    write: Write, tmp_path: Path
) -> None:
    write(
        """
        name: story
        posts:
          - id: pro
            professional_network:
              text: "We are hiring"
              first_comment: "Apply at acme.example/jobs"
          - id: single
            professional_network: {text: "One post"}
        """
    )
    out = preview("c.yaml")[1]
    post = out.split("### Post pro", 1)[1].split("### Post single", 1)[0]
    comment = post.split("**First comment**", 1)[1]
    assert fenced("Apply at acme.example/jobs") in comment
    assert "26 characters, no limit" in comment
    assert "**Part" not in post  # a post and its comment are not numbered as a thread
    assert "**First comment**" not in out.split("### Post single", 1)[1]

    preview("c.yaml", "--format", "html", "-o", str(tmp_path / "p.html"))
    page = (tmp_path / "p.html").read_text()
    assert re.findall(r"<h5>([^<]*)</h5>", page) == ["First comment"]


def test_plan_shows_the_first_comment_among_the_calls_parts(write: Write) -> None:
    from tests.campaign.test_cli import run

    write(
        """
        name: hiring
        posts:
          - id: job
            professional_network: {text: "We are hiring", first_comment: "Apply below"}
        """
    )
    code, out, _ = run("plan", "--offline", "c.yaml")
    assert code == 0, out
    assert (
        "  job  professional_network  to every active connection  POST "
        "/api/v2/professional_network/publish  (a post and its first comment, 2 parts)"
    ) in out.splitlines()
    assert (
        '      {"connectionId": "<connection id>", "text": "We are hiring", '
        '"firstComment": "Apply below"}'
    ) in out.splitlines()
    code, out, _ = run("plan", "--offline", "--json", "c.yaml")
    assert [row["parts"] for row in json.loads(out)["posts"]] == [2]
