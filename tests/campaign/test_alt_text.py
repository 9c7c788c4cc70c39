"""`alt:` on a media entry: sent with the file as `fileAlts` where the network takes alt
text on it, checked at its line against the network's limit, shown by the preview."""

from __future__ import annotations

from pathlib import Path

from pressroom.campaign import load, plan, validate
from tests.campaign.conftest import Write

MEDIA = """\
media:
  cover: {path: media/cover.jpg, alt: "A linen shirt on a chair"}
  photo: {path: media/photo.webp, alt: "Two shirts side by side"}
  pin: {path: media/pin.png}
  clip: {path: media/clip.mp4, alt: "The workshop in Porto"}
"""


def test_the_plan_sends_each_described_file_where_the_network_takes_it(write: Write) -> None:
    campaign = load(
        write(
            "name: s\n"
            + MEDIA
            + """\
posts:
  - id: looks
    media: cover
    photo_sharing: {caption: "Looks", fit: crop, media: [cover, pin, clip]}
    text_thread: {text: "Two looks", media: [photo, clip]}
    pin_board: {board: b}
  - id: film
    media: clip
    video_sharing: {title: "The film"}
    page_social: {message: "The film"}
"""
        )
    )
    connections = [
        {"id": f"c-{p}", "platform": p, "name": p}
        for p in ("photo_sharing", "text_thread", "pin_board", "video_sharing", "page_social")
    ]
    fan_out = plan(campaign, connections)
    file_ids = {u.name: f"file-{u.name}" for u in fan_out.uploads}
    bodies = {p.platform.value: p.publish_body(file_ids) for p in fan_out.posts}
    # Instagram: images only, so not the video of the carousel; Threads: videos too.
    assert bodies["photo_sharing"]["fileAlts"] == {"file-cover": "A linen shirt on a chair"}
    assert bodies["text_thread"]["fileAlts"] == {
        "file-photo": "Two shirts side by side",
        "file-clip": "The workshop in Porto",
    }
    assert bodies["pin_board"]["fileAlts"] == {"file-cover": "A linen shirt on a chair"}
    # YouTube takes no alt text, Facebook none on a video: nothing sent, nothing refused.
    assert "fileAlts" not in bodies["video_sharing"]
    assert "fileAlts" not in bodies["page_social"]


def test_an_alt_text_is_checked_at_its_line(write: Write) -> None:
    path = write(
        "name: s\n"
        + f"""\
media:
  cover: {{path: media/cover.jpg, alt: "{"a" * 501}"}}
  photo: {{path: media/photo.webp, alt: "  "}}
posts:
  - id: pin
    media: cover
    pin_board: {{board: b}}
  - id: shot
    media: photo
    photo_sharing: {{caption: hi}}
"""
    )
    report = validate(path)
    found = [(i.line, i.path) for i in report.errors]
    assert found == [(3, "media.cover.alt"), (4, "media.photo.alt")]
    too_long, blank = (i.message for i in report.errors)
    assert "Pinterest" in too_long and "at most 500" in too_long
    assert "pin_board.alt_text" in too_long
    assert "blank" in blank


def test_the_preview_shows_the_alt_text_sent_to_each_network(write: Write) -> None:
    from tests.campaign.test_preview import preview

    write(
        "name: s\n"
        + MEDIA
        + """\
posts:
  - id: film
    media: clip
    text_thread: {text: "The film", media: [clip, cover]}
    video_sharing: {title: "The film"}
"""
    )
    code, out, _ = preview("c.yaml")
    assert code == 0, out
    threads = out.split("#### Threads (text_thread)", 1)[1].split("####", 1)[0]
    assert "alt text: The workshop in Porto" in threads
    assert "alt text: A linen shirt on a chair" in threads
    youtube = out.split("#### YouTube (video_sharing)", 1)[1].split("####", 1)[0]
    assert "alt text" not in youtube

    code, _, err = preview("c.yaml", "--format", "html", "-o", "out/preview.html")
    assert code == 0, err
    page = Path("out/preview.html").read_text()
    assert '<span class="alt">alt text: The workshop in Porto</span>' in page


def test_plan_offline_shows_the_alt_text_each_network_is_sent(write: Write) -> None:
    import json

    from tests.campaign.test_cli import run

    write(
        "name: s\n"
        + MEDIA
        + """\
posts:
  - id: looks
    media: cover
    page_social: {message: "Two looks", media: [cover, photo]}
    pin_board: {board: b}
"""
    )
    code, out, _ = run("plan", "--offline", "--json", "c.yaml")
    assert code == 0, out
    bodies = {row["platform"]: row["body"] for row in json.loads(out)["posts"]}
    assert bodies["page_social"]["fileAlts"] == {
        "<file id of cover>": "A linen shirt on a chair",
        "<file id of photo>": "Two shirts side by side",
    }
    assert bodies["pin_board"]["fileAlts"] == {"<file id of cover>": "A linen shirt on a chair"}
