"""`media:` as a list in a short_video block with `format: photo`: a TikTok photo post of
several images, checked at its lines as the API checks `fileIds` on short_video (the
format's rule: 1 to 35 images, JPEG or WebP), sent as `fileIds` in order; without the
format, the list is refused at its key, since a TikTok video post is one video."""

from __future__ import annotations

from pathlib import Path

from pressroom.campaign import load, plan, validate
from tests.campaign.conftest import Write

MEDIA = """\
media:
  cover: {path: media/cover.jpg}
  photo: {path: media/photo.webp}
  pin: {path: media/pin.png}
  clip: {path: media/clip.mp4}
"""


def test_a_photo_post_is_sent_as_file_ids_in_order(write: Write) -> None:
    campaign = load(
        write(
            "name: looks\n"
            + MEDIA
            + """\
posts:
  - id: looks
    media: clip
    short_video:
      caption: "Two looks"
      privacy_level: SELF_ONLY
      format: photo
      media: [photo, cover]
"""
        )
    )
    fan_out = plan(campaign, [{"id": "c-tt", "platform": "short_video", "name": "tt"}])
    [post] = fan_out.posts
    assert [u.name for u in fan_out.uploads] == ["photo", "cover"]  # the clip is not sent
    body = post.publish_body({"photo": "file-photo", "cover": "file-cover"})
    assert body["fileIds"] == ["file-photo", "file-cover"] and "fileId" not in body
    assert body["format"] == "photo" and body["platform"] == "short_video"
    assert post.parts == 1  # TikTok gives a photo post's images no ids of their own


def test_a_photo_list_is_checked_at_its_lines(write: Write, campaign_dir: Path) -> None:
    """No format, a count over TikTok's 35, an unknown name, a PNG TikTok's photo posts
    do not take and a video: each at the line at fault, naming the format's rule."""
    path = write(
        "name: looks\n"
        + MEDIA
        + """\
posts:
  - id: no-format
    short_video:
      caption: hi
      media: [cover, photo]
  - id: many
    short_video:
      caption: hi
      format: photo
      media: [cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover, cover]
  - id: items
    short_video:
      caption: hi
      format: photo
      media:
        - cover
        - cuver
        - pin
        - clip
"""
    )
    report = validate(path)
    found = [(i.line, i.path, i.rule) for i in report.errors]
    assert found == [
        (11, "posts.0.short_video.media", "short_video.photo"),
        (16, "posts.1.short_video.media", "short_video.photo"),
        (23, "posts.2.short_video.media.1", None),
        (24, "posts.2.short_video.media.2", "short_video.photo"),
        (25, "posts.2.short_video.media.3", "short_video.photo"),
    ]
    no_format, many, unknown, png, clip = (i.message for i in report.errors)
    assert no_format.startswith(
        "a list of media on short_video is a TikTok photo post: add 'format: photo'"
    )
    assert many == (
        "TikTok would refuse it: TikTok's photo post takes 1 to 35 files; the post has 36"
    )
    assert unknown == "no media named 'cuver'; did you mean 'cover'?"
    assert png == (
        "TikTok would refuse media 'pin': TikTok's photo takes image/jpeg or image/webp "
        "only; the file is image/png"
    )
    assert clip.startswith("TikTok would refuse media 'clip': TikTok's photo takes an image")


def test_a_list_on_a_block_that_takes_none_names_the_photo_post(write: Write) -> None:
    report = validate(
        write(
            "name: s\n"
            + MEDIA
            + """\
posts:
  - id: words
    microblog:
      text: hi
      media: [cover, photo]
"""
        )
    )
    [error] = report.errors
    assert "short_video (a photo post)" in error.message
