"""Broken campaigns, each with the exact lines an editor sees: position, field, message.

Every case is a mistake an editor makes; the expected output is what
``pressroom campaign validate c.yaml`` prints for it, in full.
"""

from __future__ import annotations

import pytest

from tests.campaign.conftest import Write, lines

LONG_280 = "x" * 280
LONG_281 = "x" * 281
LONG_501 = "y" * 501
ACCENTED_500 = "e\u0301" * 500
"""500 characters of two code points each; not emoji, which Threads counts in UTF-8 bytes."""

CASES: dict[str, tuple[str, list[str]]] = {
    "nested list items": (
        """
        name: nested
        posts:
          - id: first
            microblog:
              text: hi
              connections:
                - "@acme"
                - 42
                - {id: ""}
                - {handle: x}
                - "@acme"
          - id: second
            microblog:
              connections: []
              text: hello
        """,
        [
            "error: c.yaml:8:11: posts.0.microblog.connections.1: each connection is a name or handle (like '@acme') or {id: …}",
            "error: c.yaml:9:11: posts.0.microblog.connections.2: each connection is a name or handle (like '@acme') or {id: …}",
            "error: c.yaml:10:11: posts.0.microblog.connections.3: each connection is a name or handle (like '@acme') or {id: …}",
            "warning: c.yaml:11:11: posts.0.microblog.connections.4: name '@acme' is listed twice",
            "error: c.yaml:14:20: posts.1.microblog.connections: an empty list selects nobody: leave 'connections' out to post to all",
        ],
    ),
    "anchors and merge keys": (
        f"""
        name: merged
        x-shared: &shared
          text: short enough
          connetions: ["@acme"]
        defaults:
          microblog:
            text: &long "{LONG_281}"
        posts:
          - id: uses-defaults
            microblog: {{}}
          - id: merges
            microblog:
              <<: *shared
              text: fine
          - id: alias
            microblog:
              text: *long
            text_thread:
              <<: *shared
        """,
        [
            # The merged typo is reported where it was written, under the post that merged it.
            "error: c.yaml:4:3: posts.1.microblog.connetions: unknown key 'connetions'; did you mean 'connections'?",
            "error: c.yaml:4:3: posts.2.text_thread.connetions: unknown key 'connetions'; did you mean 'connections'?",
            "error: c.yaml:7:11: defaults.microblog.text: text is 281 characters; microblog allows at most 280 (1 too many)",
            # An alias is reported where its anchor's value was written.
            "error: c.yaml:7:11: posts.2.microblog.text: text is 281 characters; microblog allows at most 280 (1 too many)",
        ],
    ),
    "flow style": (
        """
        name: flow
        media: {clip: {path: media/clip.mp4}, img: {path: media/small.png, folder: ""}}
        posts: [{id: a, media: img, short_video: {caption: hi}, microblog: {text: x}}, {id: b, media: clip, pin_board: {board: b, title: 7}}]
        """,
        [
            "error: c.yaml:2:76: media.img.folder: the folder name is empty; leave it out",
            "error: c.yaml:3:29: posts.0.short_video: short_video takes a video, but media 'img' is an image",
            "error: c.yaml:3:57: posts.0.microblog: microblog posts text only, but this post has media 'img': move this block to a post without media",
            "error: c.yaml:3:101: posts.1.pin_board: pin_board takes an image, but media 'clip' is a video",
            "error: c.yaml:3:130: posts.1.pin_board.title: expected text, got a number (7); put it in quotes",
        ],
    ),
    "over-long texts, counted as people see them": (
        f"""
        name: lengths
        posts:
          - id: fits
            microblog:
              text: "{LONG_280}"
            text_thread:
              text: "{ACCENTED_500}"
          - id: too-long
            microblog:
              text: "{LONG_281}"
            text_thread:
              text: >-
                {LONG_501}
        """,
        [
            "error: c.yaml:10:13: posts.1.microblog.text: text is 281 characters; microblog allows at most 280 (1 too many)",
            "error: c.yaml:12:13: posts.1.text_thread.text: text is 501 characters; text_thread allows at most 500 (1 too many)",
        ],
    ),
    "required fields and empty blocks": (
        """
        name: required
        media:
          clip: {path: media/clip.mp4}
          pin: {path: media/pin.png}
        posts:
          - id: no-title
            media: clip
            video_sharing:
              description: a film
          - id: no-board
            media: pin
            pin_board: {title: Spring}
          - id: blank-text
            microblog:
              text: "   "
            text_thread:
          - id: nowhere
        """,
        [
            "error: c.yaml:8:5: posts.0.video_sharing.title: video_sharing needs 'title': add 'title: …' here or under defaults.video_sharing",
            "error: c.yaml:12:5: posts.1.pin_board.board: pin_board needs 'board': add 'board: …' here or under defaults.pin_board",
            "error: c.yaml:14:5: posts.2.microblog.text: microblog needs 'text': add 'text: …' here or under defaults.microblog",
            "error: c.yaml:16:5: posts.2.text_thread: the text_thread block is empty: give its fields, or write 'text_thread: {}' to take them all from defaults",
            "error: c.yaml:17:5: posts.3: post 'nowhere' goes nowhere: add a block for at least one platform (microblog, video_sharing, short_video, photo_sharing, page_social, pin_board, text_thread, professional_network, open_microblog)",
        ],
    ),
    "media kinds and the text-only platforms": (
        """
        name: kinds
        media:
          clip: {path: media/clip.mp4}
          pin: {path: media/pin.png}
        posts:
          - id: image-to-video-platforms
            media: pin
            short_video: {caption: hi}
            video_sharing: {title: hi}
          - id: video-to-pins
            media: clip
            pin_board: {board: b}
            professional_network: {text: hello}
          - id: no-media
            photo_sharing: {caption: hi}
            page_social: {message: hi}
        """,
        [
            "error: c.yaml:8:5: posts.0.short_video: short_video takes a video, but media 'pin' is an image",
            "error: c.yaml:9:5: posts.0.video_sharing: video_sharing takes a video, but media 'pin' is an image",
            "error: c.yaml:12:5: posts.1.pin_board: pin_board takes an image, but media 'clip' is a video",
            "error: c.yaml:13:5: posts.1.professional_network: professional_network posts text only, but this post has media 'clip': move this block to a post without media",
            "error: c.yaml:15:5: posts.2.photo_sharing: photo_sharing needs an image or a video: add 'media: <name>' to this post",
            "error: c.yaml:16:5: posts.2.page_social: page_social needs an image or a video: add 'media: <name>' to this post",
        ],
    ),
    "media files: missing, unreadable, unknown type, absolute, bad reference": (
        """
        name: files
        media:
          typo: {path: media/clp.mp4}
          fake: {path: media/fake.mp4}
          text: {path: media/notes.txt}
          absolute: {path: /etc/hosts}
          folder: {path: media}
          nowhere: {path: elsewhere/clip.mp4}
          short: {path: media/short.mp4}
        posts:
          - id: refs
            media: clip
            short_video: {caption: hi}
          - id: too-short
            media: short
            short_video: {caption: hi}
          - id: broken-refs
            media: fake
            photo_sharing: {caption: x}
        """,
        [
            "error: c.yaml:3:16: media.typo.path: file not found: 'media/clp.mp4'; did you mean 'media/clip.mp4'?",
            "warning: c.yaml:3:3: media.typo: media 'typo' is not used by any post",
            "error: c.yaml:4:16: media.fake.path: 'media/fake.mp4': the file is not a readable video: its bytes are not MP4, QuickTime or WebM with pictures that decode (Invalid data found when processing input)",
            "warning: c.yaml:5:3: media.text: media 'text' is not used by any post",
            "error: c.yaml:5:16: media.text.path: '.txt' files are not accepted; use .jpg, .jpeg, .png, .gif, .webp (images), .mp4, .m4v, .mov, .qt, .webm (videos) or .pdf (documents)",
            "warning: c.yaml:6:3: media.absolute: media 'absolute' is not used by any post",
            "error: c.yaml:6:20: media.absolute.path: '/etc/hosts' is an absolute path; write it relative to this campaign file (e.g. media/teaser.mp4) so it works on every checkout",
            "warning: c.yaml:7:3: media.folder: media 'folder' is not used by any post",
            "error: c.yaml:7:18: media.folder.path: 'media' is a folder; name a file inside it",
            "warning: c.yaml:8:3: media.nowhere: media 'nowhere' is not used by any post",
            "error: c.yaml:8:19: media.nowhere.path: file not found: 'elsewhere/clip.mp4' (there is no folder 'elsewhere' next to this file)",
            "error: c.yaml:12:12: posts.0.media: no media named 'clip'; expected one of: absolute, fake, folder, nowhere, short, text, typo",
            "warning: c.yaml:16:5: posts.1.short_video: media 'short' needs converting for TikTok (scale): TikTok takes videos 360 to 4096 px wide and 360 to 4096 px high; the file is 72x128 [short_video.video_dimensions: https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide]",
            "warning: c.yaml:16:5: posts.1.short_video: media 'short' needs converting for TikTok (transcode): TikTok takes video at 23 to 60 frames a second; the file has 10 [short_video.video_frame_rate: https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide]",
            "error: c.yaml:16:5: posts.1.short_video: short_video takes videos of 3 s to 10 min; media 'short' is 2 s long",
        ],
    ),
    "typos in keys": (
        """
        name: typos
        shedule: {cron: "0 9 * * 1"}
        post:
          - id: a
        posts:
          - idd: first
            microbog: {text: hi}
            text_thread: {txt: hi, text: hello}
          - id: second
            video_sharing: {titel: x}
            colour: blue
        """,
        [
            "error: c.yaml:2:1: shedule: unknown key 'shedule'; did you mean 'schedule'?",
            "error: c.yaml:3:1: post: unknown key 'post'; did you mean 'posts'?",
            "error: c.yaml:6:5: posts.0.idd: unknown key 'idd'; did you mean 'id'?",
            "error: c.yaml:7:5: posts.0.microbog: unknown key 'microbog'; did you mean 'microblog'?",
            "error: c.yaml:8:19: posts.0.text_thread.txt: unknown key 'txt'; did you mean 'text'?",
            "error: c.yaml:10:21: posts.1.video_sharing.titel: unknown key 'titel'; did you mean 'title'?",
            "error: c.yaml:10:5: posts.1.video_sharing: video_sharing needs a video: add 'media: <name>' to this post",
            "error: c.yaml:11:5: posts.1.colour: unknown key 'colour'; expected one of: id, media, microblog, open_microblog, page_social, photo_sharing, pin_board, professional_network, short_video, text_thread, video_sharing",
        ],
    ),
    "schedule, retries and names": (
        """
        name: Spring Launch
        schedule:
          cron: "0 9 * * 8"
          timezone: Europe/Berln
        retries: {attempts: 0, backoff_seconds: fast}
        posts:
          - id: Hello World
            microblog: {text: hi}
          - id: hello-world
            microblog: {text: hi}
          - id: hello-world
            video_sharing: {title: hi, privacy: publc}
        """,
        [
            "error: c.yaml:1:7: name: campaign names use lowercase letters, digits and dashes, got 'Spring Launch'; e.g. 'spring-launch'",
            "error: c.yaml:3:9: schedule.cron: day of week must be 0–7 in a cron expression; got 8",
            "error: c.yaml:4:13: schedule.timezone: unknown timezone 'Europe/Berln'; did you mean 'Europe/Berlin'?",
            "error: c.yaml:5:21: retries.attempts: must be at least 1; got 0",
            "error: c.yaml:5:41: retries.backoff_seconds: expected a number, got text ('fast')",
            "error: c.yaml:7:9: posts.0.id: post ids use lowercase letters, digits and dashes, got 'Hello World'; e.g. 'hello-world'",
            "error: c.yaml:11:9: posts.2.id: post id 'hello-world' is already used at line 9; ids must be unique",
            "error: c.yaml:12:5: posts.2.video_sharing: video_sharing needs a video: add 'media: <name>' to this post",
            "error: c.yaml:12:41: posts.2.video_sharing.privacy: privacy 'publc' is not known; did you mean 'public'?",
        ],
    ),
    "cron forms the scheduler refuses": (
        """
        name: cron
        schedule: {cron: "0 9 * *"}
        posts: [{id: a, microblog: {text: hi}}]
        """,
        [
            "error: c.yaml:2:18: schedule.cron: a cron expression has 5 fields (minute, hour, day of month, month, day of week), this one has 4; e.g. '0 9 * * 1' is Mondays at 09:00",
        ],
    ),
    "wrong shapes": (
        """
        name: shapes
        schedule: "0 9 * * 1"
        media: [clip.mp4]
        defaults:
          microblog: "hello"
        posts:
          - just text
          - id: ok
            microblog: {text: 1984}
        """,
        [
            "error: c.yaml:2:11: schedule: expected a mapping with keys like: cron, timezone, got text ('0 9 * * 1')",
            "error: c.yaml:3:8: media: expected a mapping of media names to files, got a list",
            "error: c.yaml:5:14: defaults.microblog: expected a mapping with keys like: connections, text, thread, got text ('hello')",
            "error: c.yaml:7:5: posts.0: expected a mapping with keys like: microblog, video_sharing, short_video, photo_sharing, page_social, pin_board, text_thread, professional_network, open_microblog, id, media, got text ('just text')",
            "error: c.yaml:9:23: posts.1.microblog.text: expected text, got a number (1984); put it in quotes",
        ],
    ),
    "numbers where names are expected": (
        """
        name: 2026
        posts:
          - id: 1
            microblog: {text: hi}
        """,
        [
            "error: c.yaml:1:7: name: expected text, got a number (2026); put it in quotes",
            "error: c.yaml:3:9: posts.0.id: expected text, got a number (1); put it in quotes",
        ],
    ),
    "missing top-level keys": (
        """
        description: no name, no posts
        """,
        [
            "error: c.yaml:1:1: name: 'name' is missing: add 'name: …'",
            "error: c.yaml:1:1: posts: 'posts' is missing: add 'posts: …'",
        ],
    ),
    "duplicate keys": (
        """
        name: dup
        posts:
          - id: a
            microblog:
              text: first
              text: second
        """,
        [
            "error: c.yaml:6:7: posts.0.microblog.text: 'text' is given twice (first at line 5); keep one",
        ],
    ),
    "thumbnails": (
        """
        name: thumbs
        media:
          clip: {path: media/clip.mp4}
        posts:
          - id: video-as-thumbnail
            media: clip
            video_sharing: {title: t, thumbnail: clip}
          - id: unknown-thumbnail
            media: clip
            video_sharing: {title: t, thumbnail: covr}
        """,
        [
            "error: c.yaml:7:42: posts.0.video_sharing.thumbnail: a thumbnail is an image, but media 'clip' is a video",
            "error: c.yaml:10:42: posts.1.video_sharing.thumbnail: no media named 'covr'; expected one of: clip",
        ],
    ),
    "a hashtag read as a comment, a wrong extension": (
        """
        name: hashtags
        media:
          cover: {path: media/cover.png}
        posts:
          - id: a
            microblog:
              text: Spring is here #spring #new
            text_thread:
              text: "Spring is here #spring"  # a real comment
              connections: all  # another one
        """,
        [
            "error: c.yaml:3:17: media.cover.path: file not found: 'media/cover.png'; did you mean 'media/cover.jpg'?",
            "warning: c.yaml:3:3: media.cover: media 'cover' is not used by any post",
            "warning: c.yaml:7:13: posts.0.microblog.text: the text stops before '#spring #new': after a space, '#' starts a YAML comment; put the whole text in quotes to send it",
        ],
    ),
    "a near miss of posts, with a mistake inside": (
        """
        name: typo
        post:
          - id: a
            microblog: {text: hi, colour: red}
        """,
        [
            "error: c.yaml:2:1: post: unknown key 'post'; did you mean 'posts'?",
            "error: c.yaml:4:27: posts.0.microblog.colour: unknown key 'colour'; expected one of: connections, text, thread",
        ],
    ),
    "an unknown platform is one error, not also a post that goes nowhere": (
        """
        name: elsewhere
        posts:
          - id: a
            twitter: {text: hi}
        """,
        [
            "error: c.yaml:4:5: posts.0.twitter: unknown key 'twitter'; expected one of: id, media, microblog, open_microblog, page_social, photo_sharing, pin_board, professional_network, short_video, text_thread, video_sharing",
        ],
    ),
    "a cron that never fires": (
        """
        name: never
        schedule: {cron: "0 0 31 2 *"}
        posts: [{id: a, microblog: {text: hi}}]
        """,
        [
            "error: c.yaml:2:18: schedule.cron: this schedule never fires: February never has a day 31",
        ],
    ),
    "a cron hour out of its range": (
        """
        name: late
        schedule: {cron: "0 25 * * *"}
        posts: [{id: a, microblog: {text: hi}}]
        """,
        ["error: c.yaml:2:18: schedule.cron: hour must be 0–23 in a cron expression; got 25"],
    ),
}

SYNTAX: dict[str, tuple[str, str]] = {
    "a tab in the indentation": (
        "name: tabs\nposts:\n  - id: a\n\tmicroblog: {text: hi}\n",
        "error: c.yaml:4:1: campaign: invalid YAML: a tab character here; indent with spaces, not tabs",
    ),
    "a colon inside plain text": (
        "name: colon\nposts:\n  - id: a\n    microblog:\n      text: Launch: today\n",
        "error: c.yaml:5:19: campaign: invalid YAML: mapping values are not allowed in this context; text containing ': ' must be put in quotes",
    ),
    "an unclosed quote": (
        'name: quote\nposts:\n  - id: a\n    microblog: {text: "hi}\n',
        'error: c.yaml:4:23: campaign: invalid YAML: the quote " opened here is not closed on its line; close it (or, for a quote inside the text, use the other kind of quotes around it)',
    ),
    "an alias without its anchor": (
        "name: alias\nposts:\n  - id: a\n    microblog: *missing\n",
        "error: c.yaml:4:16: campaign: invalid YAML: found undefined alias; an *alias needs an &anchor of the same name above it",
    ),
    "a hashtag inside braces": (
        "name: flow\nposts:\n  - {id: a, microblog: {text: Hi #spring}}\n",
        "error: c.yaml:4:1: campaign: invalid YAML: did not find expected ',' or '}' (while parsing a flow mapping at line 3); inside { } or [ ], text with ',', '#' or ': ' must be put in quotes",
    ),
    "an unclosed quote, noticed lines later at the next quote": (
        'name: quotes\nposts:\n  - id: a\n    microblog:\n      text: "fine"\n'
        "  - id: b\n    microblog:\n      text: ok\n  - id: c\n    microblog:\n"
        '      text: ok\n      connections: ["@acme\n  - id: d\n    microblog:\n'
        '      text: "hello"\n',
        'error: c.yaml:12:21: campaign: invalid YAML: the quote " opened here is not closed on its line; close it (or, for a quote inside the text, use the other kind of quotes around it)',
    ),
    "an unclosed single quote in a block": (
        "name: q\nposts:\n  - id: a\n    microblog:\n      text: 'it is\n"
        "  - id: b\n    microblog: {text: 'x'}\n",
        "error: c.yaml:5:13: campaign: invalid YAML: the quote ' opened here is not closed on its line; close it (or, for a quote inside the text, use the other kind of quotes around it)",
    ),
    "a tab indenting a key": (
        "name: tabs\nposts:\n  - id: a\n    microblog:\n\ttext: hi\n",
        "error: c.yaml:5:1: campaign: invalid YAML: a tab character here; indent with spaces, not tabs",
    ),
    "a tab indenting a list item": (
        "name: tabs\nposts:\n\t- id: a\n",
        "error: c.yaml:3:1: campaign: invalid YAML: a tab character here; indent with spaces, not tabs",
    ),
    "a misaligned list item": (
        "name: indent\nposts:\n  - id: a\n    microblog: {text: hi}\n - id: b\n",
        "error: c.yaml:5:2: campaign: invalid YAML: did not find expected key (while parsing a block mapping at line 1); check the indentation of this line and the one above",
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_each_mistake_is_reported_at_its_place(case: str, write: Write) -> None:
    text, expected = CASES[case]
    assert sorted(lines(write(text)), key=_position) == sorted(expected, key=_position)


@pytest.mark.parametrize("case", list(SYNTAX), ids=list(SYNTAX))
def test_broken_yaml_is_reported_at_its_place(case: str, write: Write) -> None:
    text, expected = SYNTAX[case]
    assert lines(write(text)) == [expected]


def test_the_empty_file_and_a_list_say_what_a_campaign_looks_like(write: Write) -> None:
    assert lines(write("")) == [
        "error: c.yaml:1:1: campaign: the file is empty; a campaign starts with 'name:' and has 'posts:'"
    ]
    assert lines(write("- id: a\n")) == [
        "error: c.yaml:1:1: campaign: the file is a list, not a mapping; a campaign starts with 'name:' and has 'posts:'"
    ]


def _position(line: str) -> tuple[int, int, str]:
    location = line.split(": ", 2)[1]
    _, row, column = location.split(":")
    return int(row), int(column), line
