"""`media:` as a list in a photo_sharing, page_social, text_thread, professional_network
or pin_board block: a carousel, checked at its lines as the API checks `fileIds`, sent as
the body's `fileIds` in order, counted among the plan's parts, and shown in the preview
as the post's media in order."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pressroom.campaign import load, plan, validate
from pressroom.platforms import Platform
from pressroom.rules import CAROUSELS, carousel_rule
from tests.campaign.conftest import Write
from tests.support.media import make_image

MEDIA = """\
media:
  cover: {path: media/cover.jpg}
  photo: {path: media/photo.webp}
  pin: {path: media/pin.png}
  clip: {path: media/clip.mp4}
"""


def test_the_six_blocks_take_a_carousel() -> None:
    assert set(CAROUSELS) == {
        Platform.PHOTO_SHARING,
        Platform.PAGE_SOCIAL,
        Platform.TEXT_THREAD,
        Platform.PROFESSIONAL_NETWORK,
        Platform.PIN_BOARD,
        Platform.OPEN_MICROBLOG,
    }


def test_a_carousel_is_checked_at_its_lines(write: Write, campaign_dir: Path) -> None:
    """A list on a block whose network takes none, a count outside the network's rule,
    an unknown name, a kind the network's carousels refuse, an item breaking a media
    rule and a single name where a list goes: each at the line at fault."""
    make_image(campaign_dir / "banner.jpg", size=(400, 100), fmt="JPEG")  # 4:1
    path = write(
        "name: spring\n"
        + MEDIA
        + """\
  banner: {path: banner.jpg}
posts:
  - id: words
    microblog:
      text: hi
      media: [cover, photo]
  - id: one
    photo_sharing:
      caption: hi
      media: [cover]
  - id: many
    pin_board:
      board: b
      media: [pin, pin, pin, pin, pin, pin]
  - id: names
    page_social:
      message: hi
      media:
        - cover
        - cuver
        - clip
  - id: shape
    photo_sharing:
      caption: hi
      media:
        - cover
        - banner
  - id: single
    professional_network:
      text: hi
      media: cover
"""
    )
    report = validate(path)
    found = [(i.line, i.path, i.rule) for i in report.errors]
    assert found == [
        (12, "posts.0.microblog.media", None),
        (16, "posts.1.photo_sharing.media", "photo_sharing.carousel_items"),
        (20, "posts.2.pin_board.media", "pin_board.carousel_items"),
        (26, "posts.3.page_social.media.1", None),
        (27, "posts.3.page_social.media.2", None),
        (33, "posts.4.photo_sharing.media.1", "photo_sharing.image_aspect_ratio"),
        (37, "posts.5.professional_network.media", None),
    ]
    words, one, many, unknown, kind, shape, single = (i.message for i in report.errors)
    assert words == (
        "unknown key 'media'; microblog takes no carousel; only photo_sharing, page_social, "
        "text_thread, professional_network, pin_board, open_microblog, short_video (a photo "
        "post) publish a list of media as one post"
    )
    # The same rule, with the same words, as the API's 400 for `fileIds`.
    instagram = carousel_rule(Platform.PHOTO_SHARING)
    assert instagram is not None and (instagram.min_items, instagram.max_items) == (2, 10)
    assert one == (
        "Instagram would refuse it: the carousel has 1 files; Instagram takes 2 to 10 in "
        "one carousel: add 1"
    )
    assert many.endswith("Pinterest takes 2 to 5 in one carousel: remove 1")
    assert unknown == "no media named 'cuver'; did you mean 'cover'?"
    assert kind == (
        "Facebook's carousels on page_social take an image per item, but media 'clip' is a video"
    )
    assert shape.startswith("Instagram would refuse media 'banner':")
    assert single.startswith("expected a list of media names (lines starting with '- '), got ")
    assert single.endswith("for one file, write 'media: cover' on the post")


def test_fit_reaches_each_item_of_a_carousel(write: Write, campaign_dir: Path) -> None:
    make_image(campaign_dir / "banner.jpg", size=(400, 100), fmt="JPEG")
    path = write(
        """
        name: spring
        media:
          cover: {path: media/cover.jpg}
          banner: {path: banner.jpg}
        posts:
          - id: shape
            photo_sharing:
              caption: hi
              fit: pad
              media: [cover, banner]
        """
    )
    report = validate(path)
    assert report.ok, report.errors
    [warning] = report.warnings
    assert (warning.line, warning.path) == (10, "posts.0.photo_sharing.media.1")
    assert "media 'banner' needs converting for Instagram" in warning.message


def test_the_plan_sends_a_carousel_as_file_ids_in_order(write: Write) -> None:
    """The block's list replaces the post's media on its network; the other blocks keep
    the post's file, and every file is uploaded once, in first-use order."""
    campaign = load(
        write(
            "name: s\n"
            + MEDIA
            + """\
posts:
  - id: launch
    media: clip
    page_social: {message: "The film"}
    photo_sharing:
      caption: "Three looks"
      first_comment: "Which one?"
      fit: crop
      media: [photo, cover, pin]
    pin_board: {board: b, media: [pin, cover]}
    text_thread: {text: "Two looks", media: [cover, photo]}
"""
        )
    )
    connections = [
        {"id": f"c-{p}", "platform": p, "name": p}
        for p in ("page_social", "photo_sharing", "pin_board", "text_thread")
    ]
    fan_out = plan(campaign, connections)
    assert [u.name for u in fan_out.uploads] == ["clip", "photo", "cover", "pin"]
    file_ids = {u.name: f"file-{u.name}" for u in fan_out.uploads}
    posts = {p.platform.value: p for p in fan_out.posts}
    assert posts["page_social"].publish_body(file_ids) == {
        "connectionId": "c-page_social",
        "fileId": "file-clip",
        "message": "The film",
    }
    assert posts["photo_sharing"].publish_body(file_ids) == {
        "connectionId": "c-photo_sharing",
        "fileIds": ["file-photo", "file-cover", "file-pin"],
        "caption": "Three looks",
        "firstComment": "Which one?",
        "fit": "crop",
    }
    assert posts["text_thread"].publish_body(file_ids)["fileIds"] == ["file-cover", "file-photo"]
    # The post, an item per file where the network names items, a first comment.
    assert {name: p.parts for name, p in posts.items()} == {
        "page_social": 1,
        "photo_sharing": 5,
        "pin_board": 1,  # Pinterest gives a carousel's items no ids
        "text_thread": 3,
    }
    assert posts["photo_sharing"].needs == ("photo", "cover", "pin")
    assert fan_out.to_dict()["posts"][1]["carousel"] == ["photo", "cover", "pin"]


def test_plan_offline_shows_the_carousels_file_ids(write: Write) -> None:
    from tests.campaign.test_cli import run

    write(
        "name: looks\n"
        + MEDIA
        + """\
posts:
  - id: looks
    page_social: {message: "Three looks", media: [photo, cover, pin]}
"""
    )
    code, out, _ = run("plan", "--offline", "c.yaml")
    assert code == 0, out
    assert (
        '      {"connectionId": "<connection id>", "fileIds": ["<file id of photo>", '
        '"<file id of cover>", "<file id of pin>"], "message": "Three looks"}'
    ) in out.splitlines()
    assert "2 uploads" not in out and "3 uploads" in out
    assert (
        "  looks  page_social  to every active connection  POST "
        "/api/v2/page_social/publish  (a carousel of 3 items, 4 parts)"
    ) in out.splitlines()
    code, out, _ = run("plan", "--offline", "--json", "c.yaml")
    assert [row["parts"] for row in json.loads(out)["posts"]] == [4]


def test_plan_words_each_shape_of_parts(write: Write) -> None:
    """A carousel with a first comment, one whose network names no items, and a thread
    opening with a carousel: each call's note says what it makes and counts its parts
    as the run's result will."""
    from tests.campaign.test_cli import run

    write(
        "name: looks\n"
        + MEDIA
        + """\
posts:
  - id: looks
    photo_sharing:
      caption: "Three looks"
      first_comment: "Which one?"
      media: [cover, photo, cover]
    pin_board: {board: b, media: [pin, cover]}
    text_thread: {text: "One", thread: ["Two", "Three"], media: [cover, photo]}
"""
    )
    code, out, _ = run("plan", "--offline", "c.yaml")
    assert code == 0, out
    notes = [line.split("/publish", 1)[1] for line in out.splitlines() if "/publish" in line]
    assert notes == [
        "  (a carousel of 3 items and its first comment, 5 parts)",
        "  (a carousel of 2 items, 1 part)",  # Pinterest gives items no ids
        "  (a thread of 3 parts, the first a carousel of 2 items, 5 parts)",
    ]


def test_the_preview_shows_a_carousels_files_in_order(write: Write) -> None:
    """The Markdown lists them in order with their facts and no image; the HTML shows a
    thumbnail of each, in order, written beside the page."""
    from tests.campaign.test_preview import preview

    write(
        "name: looks\n"
        + MEDIA
        + """\
posts:
  - id: looks
    media: clip
    photo_sharing: {caption: "Three looks", fit: crop, media: [pin, clip, cover]}
    page_social: {message: "The film"}
"""
    )
    code, out, _ = preview("c.yaml")
    assert code == 0, out
    instagram = out.split("#### Instagram (photo_sharing)", 1)[1].split("####", 1)[0]
    assert [line.split(" (", 1)[0] for line in instagram.splitlines() if "- media" in line] == [
        "- media 1 of 3: pin",
        "- media 2 of 3: clip",
        "- media 3 of 3: cover",
    ]
    assert "A carousel of 3 files, in order:" in instagram
    facebook = out.split("#### Facebook (page_social)", 1)[1]
    assert "- media 1 of 1: clip (media/clip.mp4)" in facebook and "carousel" not in facebook
    assert "data:" not in out and "![" not in out and "<img" not in out

    code, _, err = preview("c.yaml", "--format", "html", "-o", "out/preview.html")
    assert code == 0, err
    page = Path("out/preview.html").read_text()
    article = page.split('data-platform="photo_sharing"', 1)[1].split("</article>", 1)[0]
    assert '<ol class="media" aria-label="carousel of 3 files, in order">' in article
    assert re.findall(r'<figure data-media="([^"]+)"><img src="preview_files/', article) == [
        "pin",
        "clip",
        "cover",
    ]
    assert re.findall(r'alt="media (\d of \d), ', article) == ["1 of 3", "2 of 3", "3 of 3"]
    assert "data:" not in page
