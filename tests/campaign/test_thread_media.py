"""A text_thread thread part with files in a campaign: `{text, media}` in place of the
part's text, checked at its lines as the API checks `thread[i].fileIds`, sent as the
part's `fileIds`, uploaded with the rest, and shown in the preview under the part."""

from __future__ import annotations

from pressroom.campaign import load, plan, validate, validate_files
from pressroom.campaign.preview import build
from pressroom.campaign.preview.model import PartKind
from tests.campaign.conftest import Write

MEDIA = """\
media:
  cover: {path: media/cover.jpg}
  photo: {path: media/photo.webp}
  clip: {path: media/clip.mp4}
"""


def test_a_thread_part_takes_media_and_is_sent_with_its_file_ids(write: Write) -> None:
    campaign = load(
        write(
            "name: s\n"
            + MEDIA
            + """\
posts:
  - id: launch
    text_thread:
      text: "One"
      thread:
        - "Two"
        - text: "Three"
          media: [cover]
        - {text: "Four", media: [photo, clip]}
"""
        )
    )
    fan_out = plan(campaign, [{"id": "c-tt", "platform": "text_thread", "name": "tt"}])
    assert [u.name for u in fan_out.uploads] == ["cover", "photo", "clip"]
    [post] = fan_out.posts
    file_ids = {u.name: f"file-{u.name}" for u in fan_out.uploads}
    assert post.publish_body(file_ids)["thread"] == [
        {"text": "Two"},
        {"text": "Three", "fileIds": ["file-cover"]},
        {"text": "Four", "fileIds": ["file-photo", "file-clip"]},
    ]
    assert post.needs == ("cover", "photo", "clip")


def test_a_thread_parts_media_is_checked_at_its_lines(write: Write) -> None:
    """An unknown name, and media on microblog's parts (its network's thread is text)."""
    path = write(
        "name: s\n"
        + MEDIA
        + """\
posts:
  - id: launch
    text_thread:
      text: "One"
      thread:
        - text: "Two"
          media: [cover, cuver]
  - id: words
    microblog:
      text: "One"
      thread:
        - {text: "Two", media: [cover]}
"""
    )
    report = validate(path)
    found = [(i.line, i.path) for i in report.errors]
    assert found[0] == (12, "posts.0.text_thread.thread.0.media.1")
    assert report.errors[0].message == "no media named 'cuver'; did you mean 'cover'?"
    assert found[1:] == [(17, "posts.1.microblog.thread.0")]
    assert report.errors[1].message == "expected text, got a mapping"


def test_the_preview_shows_a_parts_media(write: Write) -> None:
    path = write(
        "name: s\n"
        + MEDIA
        + """\
posts:
  - id: launch
    text_thread:
      text: "One"
      thread:
        - {text: "Two", media: [cover, photo]}
"""
    )
    [report] = validate_files([path])
    [block] = build(report).posts[0].blocks
    [reply] = [part for part in block.parts if part.kind is PartKind.REPLY]
    assert [m.media.name for m in reply.media] == ["cover", "photo"]


def test_a_bluesky_thread_part_takes_up_to_four_images(write: Write) -> None:
    """open_microblog's parts carry images as its posts do: sent as the part's fileIds;
    a video, or a fifth image, is reported at its line as the API would refuse it."""
    media = MEDIA + '  one: {path: media/small.png, alt: "A small square"}\n'
    media += "  two: {path: media/pin.png}\n"
    good = write(
        "name: s\n"
        + media
        + """\
posts:
  - id: launch
    open_microblog:
      text: "One"
      thread:
        - "Two"
        - {text: "Three", media: [cover, photo, one, two]}
"""
    )
    campaign = load(good)
    fan_out = plan(campaign, [{"id": "c-om", "platform": "open_microblog", "name": "bsky"}])
    [post] = fan_out.posts
    file_ids = {u.name: f"file-{u.name}" for u in fan_out.uploads}
    assert post.publish_body(file_ids)["thread"] == [
        {"text": "Two"},
        {"text": "Three", "fileIds": ["file-cover", "file-photo", "file-one", "file-two"]},
    ]
    assert post.publish_body(file_ids)["fileAlts"] == {"file-one": "A small square"}
    [block] = build(validate_files([good])[0]).posts[0].blocks
    replies = [part for part in block.parts if part.kind is PartKind.REPLY]
    assert [[m.media.name for m in reply.media] for reply in replies] == [
        [],
        ["cover", "photo", "one", "two"],
    ]
    bad = write(
        "name: s\n"
        + media
        + """\
posts:
  - id: launch
    open_microblog:
      text: "One"
      thread:
        - {text: "Two", media: [cover, clip]}
        - {text: "Three", media: [cover, photo, one, two, cover]}
"""
    )
    report = validate(bad)
    found = [(i.line, i.path) for i in report.errors]
    assert found == [
        (13, "posts.0.open_microblog.thread.0.media.1"),
        (14, "posts.0.open_microblog.thread.1.media"),
    ], report.errors
    assert "image" in report.errors[0].message
    assert report.errors[1].rule == "open_microblog.images_per_post"
