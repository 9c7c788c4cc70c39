"""Validation as editors rely on it: every mistake in one run, warnings apart, a usable result."""

from __future__ import annotations

from pathlib import Path

import pytest

from pressroom.campaign import CampaignInvalid, Severity, load, validate, validate_files
from pressroom.campaign.validate import campaign_name
from pressroom.platforms import MediaKind, Platform
from pressroom.post_campaign import MAX_CHARS
from tests.campaign.conftest import Write, lines


def test_one_run_shows_every_common_mistake_with_a_fix_hint(write: Write) -> None:
    path = write(
        f"""
        name: spring
        schedule: {{cron: "0 25 * * *", timezone: UTC}}
        media:
          poster: {{path: media/pin.png}}
          film: {{path: media/film.mp4}}
        posts:
          - id: launch
            microblog:
              text: "{"a" * 300}"
          - id: poster
            media: poster
            short_video: {{caption: "look"}}
            pin_board: {{board: b, titel: Spring}}
        """
    )
    report = validate(path)
    assert [(i.line, i.column, i.path) for i in report.errors] == [
        (2, 18, "schedule.cron"),
        (5, 16, "media.film.path"),
        (9, 13, "posts.0.microblog.text"),
        (12, 5, "posts.1.short_video"),
        (13, 27, "posts.1.pin_board.titel"),
    ]
    hints = [issue.message for issue in report.errors]
    assert "hour must be 0–23" in hints[0]
    assert hints[1] == "file not found: 'media/film.mp4'"
    assert "(20 too many)" in hints[2]
    assert "takes a video, but media 'poster' is an image" in hints[3]
    assert hints[4] == "unknown key 'titel'; did you mean 'title'?"
    assert report.campaign is None and not report.ok


def test_short_videos_choices_are_checked_at_their_line(write: Write) -> None:
    path = write(
        """
        name: spring
        media: {film: {path: media/clip.mp4}}
        posts:
          - id: launch
            media: film
            short_video:
              privacy_level: PUBLIC
              allow_stitch: maybe
        """
    )
    report = validate(path)
    assert [(i.line, i.path) for i in report.errors] == [
        (7, "posts.0.short_video.privacy_level"),
        (8, "posts.0.short_video.allow_stitch"),
    ]
    assert report.errors[0].message == (
        "privacy_level 'PUBLIC' is not known; expected one of: FOLLOWER_OF_CREATOR, "
        "MUTUAL_FOLLOW_FRIENDS, PUBLIC_TO_EVERYONE, SELF_ONLY"
    )
    assert report.errors[1].message == "expected true or false, got text ('maybe')"


def test_issues_come_in_file_order_each_once(write: Write) -> None:
    path = write(
        """
        name: order
        defaults:
          microblog: {text: "", connections: []}
        posts:
          - {id: b, microblog: {}}
          - {id: a, microblog: {}}
        """
    )
    found = lines(path)
    # The defaults' empty selector is one mistake, though two posts use it.
    assert found == [
        "error: c.yaml:3:38: defaults.microblog.connections: an empty list selects nobody: leave 'connections' out to post to all",
        "error: c.yaml:5:13: posts.0.microblog.text: microblog needs 'text': add 'text: …' here or under defaults.microblog",
        "error: c.yaml:6:13: posts.1.microblog.text: microblog needs 'text': add 'text: …' here or under defaults.microblog",
    ]


def test_recommendations_are_warnings_and_the_file_stays_valid(write: Write) -> None:
    path = write(
        """
        name: advice
        media:
          wide: {path: media/wide.mp4}
          square: {path: media/small.png}
          webp: {path: media/photo.webp}
          pin: {path: media/pin.png}
          cover: {path: media/cover.jpg}
        posts:
          - id: wide-short
            media: wide
            short_video: {caption: hi}
            video_sharing: {title: t, thumbnail: square}
          - id: square-pin
            media: square
            pin_board: {board: b}
          - id: webp-thumb
            media: wide
            video_sharing: {title: t, thumbnail: webp}
          - id: good
            media: pin
            pin_board: {board: b}
          - id: good-thumb
            media: wide
            video_sharing: {title: t, thumbnail: cover}
        """
    )
    report = validate(path)
    assert report.ok and report.campaign is not None
    assert [str(issue) for issue in report.warnings] == [
        "warning: c.yaml:11:5: posts.0.short_video: media 'wide' needs converting for TikTok (scale): TikTok takes videos 360 to 4096 px wide and 360 to 4096 px high; the file is 64x48 [short_video.video_dimensions: https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide]",
        "warning: c.yaml:11:5: posts.0.short_video: media 'wide' needs converting for TikTok (transcode): TikTok takes video at 23 to 60 frames a second; the file has 10 [short_video.video_frame_rate: https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide]",
        "warning: c.yaml:11:5: posts.0.short_video: recommended for short_video: 9:16 vertical; media 'wide' is 64x48 (4:3)",
        "warning: c.yaml:12:42: posts.0.video_sharing.thumbnail: recommended for a thumbnail: 1280x720 (16:9), under 2 MB, JPG, GIF or PNG; media 'square' is 100x100",
        "warning: c.yaml:15:5: posts.1.pin_board: recommended for pin_board: 2:3 vertical; media 'square' is 100x100 (1:1)",
        "warning: c.yaml:18:42: posts.2.video_sharing.thumbnail: media 'webp' needs converting for YouTube (convert to JPEG): YouTube takes thumbnails in JPEG or PNG only; the file is WebP [video_sharing.thumbnail_format: https://developers.google.com/youtube/v3/docs/thumbnails/set]",
        "warning: c.yaml:18:42: posts.2.video_sharing.thumbnail: recommended for a thumbnail: 1280x720 (16:9), under 2 MB, JPG, GIF or PNG; media 'webp' is WEBP",
    ]
    assert all(issue.severity is Severity.WARNING for issue in report.issues)


def test_the_campaign_merges_defaults_and_remembers_where_values_came_from(write: Write) -> None:
    path = write(
        """
        name: merged
        schedule: {cron: "@daily"}
        retries: {attempts: 4, backoff_seconds: 2, max_delay_seconds: 5}
        media:
          clip: {path: media/clip.mp4, folder: spring}
          cover: {path: media/cover.jpg}
        defaults:
          video_sharing: {privacy: unlisted, description: "From defaults", connections: ["Acme Channel"]}
        posts:
          - id: film
            media: clip
            short_video:
              caption: |
                Two lines,
                and a trailing newline that is not sent.
            video_sharing: {title: Film, thumbnail: cover, privacy: private}
        """
    )
    campaign = load(path)
    assert campaign.name == "merged" and campaign.file == path.resolve()
    assert campaign.schedule is not None and campaign.schedule.timezone == "UTC"
    assert campaign.retries.delays() == [2, 4, 5]
    clip = campaign.media["clip"]
    assert clip.kind is MediaKind.VIDEO and clip.content_type == "video/mp4"
    assert clip.folder == "spring" and clip.path == (path.parent / "media/clip.mp4").resolve()
    assert clip.info.duration_seconds == pytest.approx(4.0)
    (post,) = campaign.posts
    # Blocks keep the order of the file.
    assert [c.platform for c in post.contents] == [Platform.SHORT_VIDEO, Platform.VIDEO_SHARING]
    short, video = post.contents
    assert short.fields == {"caption": "Two lines,\nand a trailing newline that is not sent."}
    assert short.selector.every_active
    assert video.fields == {
        "title": "Film",
        "description": "From defaults",
        "privacy": "private",
        "thumbnail": "cover",
    }
    assert video.origins["description"] == ("defaults", "video_sharing", "description")
    assert video.origins["privacy"] == ("posts", 0, "video_sharing", "privacy")
    assert [ref.value for ref in video.selector.refs] == ["Acme Channel"]


def test_load_raises_with_every_error_listed(write: Write) -> None:
    path = write(
        "name: x\nposts:\n  - {id: a, microblog: {}}\n  - {id: a, microblog: {text: hi}}\n"
    )
    with pytest.raises(CampaignInvalid) as raised:
        load(path)
    assert str(raised.value).splitlines()[1:] == [
        "error: c.yaml:3:13: posts.0.microblog.text: microblog needs 'text': add 'text: …' here or under defaults.microblog",
        "error: c.yaml:4:10: posts.1.id: post id 'a' is already used at line 3; ids must be unique",
    ]


def test_two_files_cannot_share_a_campaign_name(campaign_dir: Path) -> None:
    for name in ("one.yaml", "two.yaml"):
        (campaign_dir / name).write_text("name: same\nposts: [{id: a, microblog: {text: hi}}]\n")
    first, second = validate_files(["one.yaml", "two.yaml"])
    assert first.ok and first.campaign is not None
    assert [str(issue) for issue in second.issues] == [
        "error: two.yaml:1:7: name: campaign name 'same' is also used by one.yaml; names must be unique"
    ]
    assert second.campaign is None


def test_a_file_named_twice_is_checked_once(campaign_dir: Path) -> None:
    (campaign_dir / "one.yaml").write_text("name: same\nposts: [{id: a, microblog: {text: hi}}]\n")
    reports = validate_files(["one.yaml", str(campaign_dir / "one.yaml"), "./one.yaml"])
    assert [(str(r.file), r.ok) for r in reports] == [("one.yaml", True)]


def test_unreadable_files_are_reported_not_raised(campaign_dir: Path) -> None:
    (campaign_dir / "latin1.yaml").write_bytes("name: caf\xe9\n".encode("latin-1"))
    assert [str(i) for i in validate("missing.yaml").issues] == [
        "error: missing.yaml:1:1: campaign: cannot read the file: No such file or directory"
    ]
    assert [str(i) for i in validate("latin1.yaml").issues] == [
        "error: latin1.yaml:1:1: campaign: the file is not UTF-8 text (invalid continuation byte)"
    ]


def test_media_paths_are_relative_to_the_campaign_file_not_the_working_directory(
    campaign_dir: Path, media_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nested = campaign_dir / "campaigns"
    nested.mkdir()
    (nested / "media").symlink_to(media_dir, target_is_directory=True)
    (nested / "c.yaml").write_text(
        "name: nested\nmedia: {clip: {path: media/clip.mp4}}\n"
        "posts: [{id: a, media: clip, short_video: {caption: hi}}]\n"
    )
    monkeypatch.chdir(media_dir)  # somewhere with no campaigns/ below it
    report = validate(nested / "c.yaml")
    assert report.ok, [str(i) for i in report.issues]


def test_open_microblog_posts_text_alone_or_with_media_and_alt_text_needs_media(
    write: Write,
) -> None:
    path = write(
        f"""
        name: spring
        media:
          poster: {{path: media/pin.png}}
        posts:
          - id: words
            open_microblog:
              text: "Spring is here #spring"
          - id: picture
            media: poster
            open_microblog:
              text: "Our poster"
              alt_text: "Stripes of green and pink"
          - id: mistakes
            open_microblog:
              text: "{"é" * 301}"
              alt_text: "Describes nothing"
        """
    )
    report = validate(path)
    assert [(i.line, i.path) for i in report.errors] == [
        (15, "posts.2.open_microblog.text"),
        (16, "posts.2.open_microblog.alt_text"),
    ]
    assert report.errors[0].message.startswith("Bluesky would refuse it: text is 301 characters")
    assert report.errors[0].doc_url.endswith("/lexicons/app/bsky/feed/post.json")
    assert "has none: add 'media: <name>'" in report.errors[1].message


def test_fit_pad_or_crop_turns_a_refused_shape_into_a_conversion(write: Write) -> None:
    """pin.png is 2:3, a shape Instagram refuses: an error without ``fit``, a warning
    (the file will be converted) with ``fit: pad`` or ``fit: crop``, and a misspelt fit
    is an error at its own line. The body sends it as ``fit``."""
    path = write(
        """
        name: shapes
        media:
          pin: {path: media/pin.png}
        posts:
          - id: as-is
            media: pin
            photo_sharing: {caption: tall}
          - id: padded
            media: pin
            photo_sharing: {caption: tall, fit: pad}
          - id: cropped
            media: pin
            photo_sharing: {caption: tall, fit: crop}
          - id: typo
            media: pin
            photo_sharing: {caption: tall, fit: zoom}
        """
    )
    report = validate(path)
    errors = [str(issue) for issue in report.issues if issue.is_error]
    refused = "Instagram would refuse media 'pin': Instagram takes images with a width:height"
    assert [line.split(": ", 3)[1:3] for line in errors] == [
        ["c.yaml:7:5", "posts.0.photo_sharing"],
        ["c.yaml:16:5", "posts.3.photo_sharing"],
        ["c.yaml:16:41", "posts.3.photo_sharing.fit"],
    ]
    assert refused in errors[0] and "[photo_sharing.image_aspect_ratio:" in errors[0]
    assert errors[2].endswith("fit 'zoom' is not known; expected one of: crop, pad, refuse")
    shaped = [str(i) for i in report.warnings if "image_aspect_ratio" in str(i)]
    assert [line.split(": ")[1] for line in shaped] == ["c.yaml:10:5", "c.yaml:13:5"]
    assert all("needs converting for Instagram (pad or crop)" in line for line in shaped)

    fine = write(
        """
        name: shapes
        media:
          pin: {path: media/pin.png}
        posts:
          - id: padded
            media: pin
            photo_sharing: {caption: tall, fit: pad}
        """
    )
    campaign = load(fine)
    [post] = campaign.posts
    assert post.contents[0].fields["fit"] == "pad"
    from pressroom.campaign.fields import publish_body

    body = publish_body(Platform.PHOTO_SHARING, post.contents[0].fields, "conn_1", "file_1")
    assert body == {"connectionId": "conn_1", "fileId": "file_1", "caption": "tall", "fit": "pad"}


def test_a_threads_parts_are_checked_each_at_its_line(write: Write) -> None:
    """A blank part, one over the spec's limit, one the network would refuse, one not
    text, a thread that is not a list, and ``thread:`` on a block whose network takes
    none: each at the line of the item (or the key) at fault."""
    path = write(
        f"""
        name: spring
        posts:
          - id: launch
            microblog:
              text: hello
              thread:
                - fine
                - "   "
                - "{"x" * 281}"
                - "{"字" * 141}"
          - id: words
            text_thread:
              text: hi
              thread: just text
          - id: typed
            text_thread:
              text: hi
              thread:
                - fine
                - 42
          - id: pro
            professional_network:
              text: hi
              thread: [more]
        """
    )
    report = validate(path)
    assert [(i.line, i.column, i.path) for i in report.errors] == [
        (8, 11, "posts.0.microblog.thread.1"),
        (9, 11, "posts.0.microblog.thread.2"),
        (10, 11, "posts.0.microblog.thread.3"),
        (14, 15, "posts.1.text_thread.thread"),
        (20, 11, "posts.2.text_thread.thread.1"),
        (24, 7, "posts.3.professional_network.thread"),
    ]
    messages = [issue.message for issue in report.errors]
    assert messages[0] == "part 3 of the thread is blank: write its text or remove the line"
    assert messages[1] == (
        "part 4 of the thread: its text is 281 characters; microblog allows at most 280 "
        "(1 too many)"
    )
    assert messages[2].startswith("part 5 of the thread: X would refuse it: text is 282 weighted")
    assert report.errors[2].rule == "microblog.weighted_length"
    assert report.errors[1].rule is None  # the spec's limit first, alone
    assert messages[3].startswith("expected a list")
    assert messages[4] == "expected text, got a number (42); put it in quotes"
    assert messages[5] == (
        "unknown key 'thread'; professional_network takes no thread; only microblog, "
        "text_thread and open_microblog post one, as a chain of replies"
    )


def test_a_thread_longer_than_the_networks_rule_is_refused_at_its_key(write: Write) -> None:
    from pressroom.rules.x import POSTS_PER_WINDOW

    parts = "\n".join(f"        - part {n}" for n in range(2, POSTS_PER_WINDOW + 2))
    fits = "\n".join(f"        - part {n}" for n in range(2, POSTS_PER_WINDOW + 1))
    path = write(
        f"""
name: spring
posts:
  - id: long
    microblog:
      text: part 1
      thread:
{parts}
  - id: just
    microblog:
      text: part 1
      thread:
{fits}
  - id: empty
    text_thread:
      text: part 1
      thread: []
"""
    )
    report = validate(path)
    assert [(i.line, i.path, i.rule) for i in report.errors] == [
        (6, "posts.0.microblog.thread", "microblog.thread_parts"),
        (2 * POSTS_PER_WINDOW + 13, "posts.2.text_thread.thread", None),
    ]
    assert f"the thread has {POSTS_PER_WINDOW + 1:,} parts" in report.errors[0].message


def test_a_valid_thread_is_sent_as_thread_parts(write: Write) -> None:
    path = write(
        """
        name: spring
        defaults:
          text_thread: {text: "from defaults"}
        posts:
          - id: launch
            text_thread:
              thread:
                - |
                  two, with a trailing newline that is not sent
                - three
        """
    )
    campaign = load(path)
    [content] = campaign.posts[0].contents
    assert content.thread == ("two, with a trailing newline that is not sent", "three")
    assert content.parts == 3
    from pressroom.campaign.planner import offline_body

    assert offline_body(content, None)["thread"] == [
        {"text": "two, with a trailing newline that is not sent"},
        {"text": "three"},
    ]


def test_a_name_or_post_id_the_service_would_refuse_is_an_error_at_its_line(
    write: Write,
) -> None:
    """Each publish carries the campaign's name and the post's id, which the API bounds
    (``campaign.name``, ``campaign.postId``): a longer one would fail the whole run."""
    longest = "a" * MAX_CHARS
    too_long = "b" * (MAX_CHARS + 1)
    path = write(
        f"""
        name: {too_long}
        posts:
          - id: {longest}
            microblog: {{text: fits}}
          - id: {too_long}
            microblog: {{text: does not}}
        """
    )
    report = validate(path)
    assert [(i.line, i.path) for i in report.errors] == [(1, "name"), (5, "posts.1.id")]
    assert report.errors[0].message == (
        f"campaign names are at most {MAX_CHARS} characters (the service keeps no longer "
        f"one), got {MAX_CHARS + 1}"
    )
    assert report.errors[1].message.startswith(f"post ids are at most {MAX_CHARS} characters")

    fits = write(f"name: {longest}\nposts:\n  - {{id: {longest}, microblog: {{text: hi}}}}\n")
    assert validate(fits).errors == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name: spring-launch\nposts: []\n", "spring-launch"),
        ("name: '  '\nposts: []\n", "draft"),  # blank: the file's name
        ("posts: [\n", "draft"),  # not YAML: the file's name
        ("- a list\n", "draft"),
        ("name: on\n", "draft"),  # YAML 1.1 reads it as a boolean: not a name
    ],
)
def test_a_runs_name_comes_from_the_files_name_key_or_its_stem(
    tmp_path: Path, text: str, expected: str
) -> None:
    file = tmp_path / "draft.yaml"
    file.write_text(text, encoding="utf-8")
    assert campaign_name(file) == expected
