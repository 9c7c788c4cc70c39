"""`format:` (and `document_title:`) in the photo_sharing, page_social, short_video and
professional_network blocks: checked at its line against the rule table's formats, and
sent as the body's `format` by the plan."""

from __future__ import annotations

from pressroom.campaign import load, plan, validate
from tests.campaign.conftest import Write

MEDIA = """\
media:
  cover: {path: media/cover.jpg}
  clip: {path: media/clip.mp4}
"""


def test_a_format_is_checked_at_its_line(write: Write) -> None:
    path = write(
        "name: spring\n"
        + MEDIA
        + """\
posts:
  - id: reel-of-an-image
    media: cover
    photo_sharing:
      format: reel
  - id: story-with-text
    media: cover
    page_social:
      format: story
      message: hello
  - id: not-offered
    media: clip
    short_video:
      format: reel
  - id: unknown
    media: clip
    photo_sharing:
      format: reels
  - id: title-alone
    professional_network:
      text: hi
      document_title: Report
  - id: fine
    media: clip
    photo_sharing:
      format: reel
      caption: Behind the scenes
"""
    )
    report = validate(path)
    found = [(i.path, i.message) for i in report.errors]
    paths = [p for p, _ in found]
    assert paths == [
        "posts.0.photo_sharing",
        "posts.1.page_social.message",
        "posts.2.short_video.format",
        "posts.3.photo_sharing.format",
        "posts.4.professional_network.document_title",
    ], found
    assert "reel takes a video" in found[0][1]
    assert "story shows no text" in found[1][1]
    assert "short_video offers format post, photo" in found[2][1]
    assert "did you mean 'reel'" in found[3][1].lower() or "reel" in found[3][1]
    assert "format: document" in found[4][1]
    assert report.errors[0].line == 8  # the block's key: the file it names is at fault


def test_the_plan_sends_the_format(write: Write) -> None:
    campaign = load(
        write(
            "name: s\n"
            + MEDIA
            + """\
posts:
  - id: reel
    media: clip
    photo_sharing: {format: reel, caption: "Behind the scenes"}
"""
        )
    )
    [planned] = plan(campaign, [{"id": "ig1", "platform": "photo_sharing", "name": "Ada"}]).posts
    assert planned.body == {
        "connectionId": "ig1",
        "caption": "Behind the scenes",
        "format": "reel",
    }


def test_the_preview_shows_each_blocks_format(write: Write) -> None:
    from tests.campaign.test_preview import preview

    write(
        "name: s\n"
        + MEDIA
        + """\
posts:
  - id: reel
    media: clip
    photo_sharing: {format: reel, caption: "Behind the scenes"}
    page_social: {message: "Out now"}
"""
    )
    out = preview("c.yaml")[1]
    instagram = out.split("#### Instagram (photo_sharing)", 1)[1].split("####", 1)[0]
    assert "format: reel; connections:" in instagram
    facebook = out.split("#### Facebook (page_social)", 1)[1]
    assert "format: post; connections:" in facebook
