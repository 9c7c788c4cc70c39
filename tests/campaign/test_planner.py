"""The fan-out: posts × platforms × connections, with the exact calls, and what is skipped."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pressroom.campaign import Campaign, Connection, SkipReason, load, plan
from pressroom.platforms import MediaKind, Platform
from tests.campaign.conftest import Write

CONNECTIONS = [
    {"id": "mb1", "platform": "microblog", "name": "@acme", "status": "active"},
    {"id": "mb2", "platform": "microblog", "name": "@acme_support"},  # no status: active
    {"id": "mb3", "platform": "microblog", "name": "@old", "status": "inactive"},
    {"id": "vs1", "platform": "video_sharing", "name": "Acme Channel"},
    {"id": "pb1", "platform": "pin_board", "name": "acme-pins"},
    {"id": "tt1", "platform": "text_thread", "name": "acme.photos", "status": "inactive"},
    {"id": "ph1", "platform": "photo_sharing", "name": "acme.photos"},
]


@pytest.fixture
def campaign(write: Write) -> Campaign:
    return load(
        write(
            """
            name: launch
            media:
              clip: {path: media/clip.mp4, folder: spring}
              cover: {path: media/cover.jpg}
              pin: {path: media/small.png}  # 1:1: Instagram refuses 2:3 (4:5 to 1.91:1)
              also-pin: {path: media/small.png}
            defaults:
              pin_board: {board: spring-ideas}
            posts:
              - id: hello
                microblog: {text: "Hello 👋"}
                text_thread: {text: Hello}
              - id: film
                media: clip
                video_sharing: {title: Film, privacy: unlisted, thumbnail: cover}
              - id: pin
                media: pin
                pin_board: {title: Pin}
                photo_sharing: {connections: [acme.photos, "@nobody"], caption: hi}
              - id: pin-again
                media: also-pin
                pin_board: {}
            """
        )
    )


def test_every_block_goes_to_every_active_connection_of_its_platform(campaign: Campaign) -> None:
    result = plan(campaign, CONNECTIONS)
    assert [(p.post_id, p.platform.value, p.connection.id) for p in result.posts] == [
        ("hello", "microblog", "mb1"),
        ("hello", "microblog", "mb2"),
        ("film", "video_sharing", "vs1"),
        ("pin", "pin_board", "pb1"),
        ("pin", "photo_sharing", "ph1"),
        ("pin-again", "pin_board", "pb1"),
    ]


def test_bodies_are_the_api_bodies_with_campaign_names_mapped(campaign: Campaign) -> None:
    posts = {(p.post_id, p.platform, p.connection.id): p for p in plan(campaign, CONNECTIONS).posts}
    hello = posts["hello", Platform.MICROBLOG, "mb1"]
    assert hello.endpoint == "/api/v2/microblog/publish"
    assert hello.media is None and hello.thumbnail is None
    assert hello.publish_body({}) == {"connectionId": "mb1", "text": "Hello 👋"}

    film = posts["film", Platform.VIDEO_SHARING, "vs1"]
    assert film.endpoint == "/api/v2/video_sharing/publish"
    assert film.publish_body({"clip": "file_1"}) == {
        "connectionId": "vs1",
        "fileId": "file_1",
        "title": "Film",
        "privacyStatus": "unlisted",
    }
    assert film.thumbnail is not None
    assert film.thumbnail.path("vid_9") == "/api/v2/video_sharing/thumbnail/vid_9"
    assert film.thumbnail.body({"cover": "file_2"}) == {"thumbnailFileId": "file_2"}

    pin = posts["pin", Platform.PIN_BOARD, "pb1"]
    assert pin.publish_body({"pin": "file_3"}) == {
        "connectionId": "pb1",
        "fileId": "file_3",
        "boardId": "spring-ideas",
        "title": "Pin",
    }


def test_short_video_names_its_platform_in_the_shared_endpoint(write: Write) -> None:
    campaign = load(
        write(
            "name: s\nmedia: {clip: {path: media/clip.mp4}}\n"
            "posts: [{id: a, media: clip, short_video: {caption: '#spring'}}]\n"
        )
    )
    [post] = plan(campaign, [{"id": "sv1", "platform": "short_video", "name": "@clips"}]).posts
    assert post.endpoint == "/api/social/post"
    assert post.publish_body({"clip": "f"}) == {
        "platform": "short_video",
        "connectionId": "sv1",
        "fileId": "f",
        "caption": "#spring",
    }


def test_short_videos_privacy_and_interactions_are_the_owners_choice_in_the_body(
    write: Write,
) -> None:
    """TikTok has the owner choose the privacy level and turn interactions on: the
    campaign carries the choices (pressroom's extension fields) into the body."""
    campaign = load(
        write(
            "name: s\nmedia: {clip: {path: media/clip.mp4}}\n"
            "defaults: {short_video: {privacy_level: ' SELF_ONLY ', allow_duet: false}}\n"
            "posts: [{id: a, media: clip, short_video: {caption: hi, allow_comments: true}}]\n"
        )
    )
    [post] = plan(campaign, [{"id": "sv1", "platform": "short_video", "name": "@clips"}]).posts
    assert post.publish_body({"clip": "f"}) == {
        "platform": "short_video",
        "connectionId": "sv1",
        "fileId": "f",
        "caption": "hi",
        "privacyLevel": "SELF_ONLY",
        "allowComments": True,
        "allowDuet": False,
    }


def test_the_made_for_kids_declaration_is_the_owners_in_the_body(write: Write) -> None:
    campaign = load(
        write(
            "name: s\nmedia: {clip: {path: media/clip.mp4}}\n"
            "posts: [{id: a, media: clip, video_sharing: {title: Film, made_for_kids: no}}]\n"
        )
    )
    [post] = plan(campaign, [{"id": "vs1", "platform": "video_sharing", "name": "Acme"}]).posts
    assert post.publish_body({"clip": "f"}) == {
        "connectionId": "vs1",
        "fileId": "f",
        "title": "Film",
        "madeForKids": False,
    }


def test_inactive_and_unknown_connections_are_skipped_and_reported(campaign: Campaign) -> None:
    result = plan(campaign, CONNECTIONS)
    skipped = [(s.post_id, s.platform.value, s.reason, s.connection) for s in result.skipped]
    old = Connection("mb3", "microblog", "@old", active=False)
    thread = Connection("tt1", "text_thread", "acme.photos", active=False)
    assert skipped == [
        ("hello", "microblog", SkipReason.INACTIVE, old),
        ("hello", "text_thread", SkipReason.INACTIVE, thread),
        ("pin", "photo_sharing", SkipReason.NOT_FOUND, None),
    ]
    [unresolved] = result.unresolved
    assert unresolved.message == (
        "no photo_sharing connection with name '@nobody'; expected one of: acme.photos"
    )
    assert unresolved.path == ("posts", 2, "photo_sharing", "connections", 1)


def test_selectors_by_name_handle_or_id(write: Write) -> None:
    campaign = load(
        write(
            """
            name: pick
            posts:
              - id: by-name
                microblog: {text: hi, connections: ["@ACME_support", acme]}
              - id: by-id
                microblog: {text: hi, connections: [{id: mb1}, {id: mb3}, {name: "@acme"}]}
              - id: wrong-platform
                microblog: {text: hi, connections: [Acme Channel]}
            """
        )
    )
    result = plan(campaign, CONNECTIONS)
    assert [(p.post_id, p.connection.id) for p in result.posts] == [
        ("by-name", "mb2"),  # names match ignoring case and a leading '@'
        ("by-name", "mb1"),
        ("by-id", "mb1"),  # the same connection twice is posted to once
    ]
    assert [(s.post_id, s.reason, s.message) for s in result.skipped] == [
        ("by-id", SkipReason.INACTIVE, "@old (mb3) is inactive: reconnect it in the dashboard"),
        (
            "wrong-platform",
            SkipReason.NOT_FOUND,
            "name 'Acme Channel' is a video_sharing connection, not microblog",
        ),
    ]


def test_uploads_list_the_used_media_once_each_with_their_hash(campaign: Campaign) -> None:
    result = plan(campaign, CONNECTIONS)
    assert [u.name for u in result.uploads] == ["clip", "cover", "pin", "also-pin"]
    clip, cover, pin, also = result.uploads
    assert clip.kind is MediaKind.VIDEO and clip.folder == "spring"
    assert clip.presign_body() == {"filename": "clip.mp4", "contentType": "video/mp4"}
    assert cover.content_type == "image/jpeg" and cover.kind is MediaKind.IMAGE
    assert clip.sha256 == hashlib.sha256(clip.path.read_bytes()).hexdigest()
    assert clip.size == clip.path.stat().st_size
    assert pin.sha256 == also.sha256  # two names, one content: the pipeline uploads once


def test_media_of_skipped_posts_is_not_uploaded(campaign: Campaign) -> None:
    result = plan(campaign, [c for c in CONNECTIONS if c["platform"] != "video_sharing"])
    assert [u.name for u in result.uploads] == ["pin", "also-pin"]


def test_idempotency_keys_are_stable_per_edition_and_distinct_per_target(
    campaign: Campaign,
) -> None:
    first = plan(campaign, CONNECTIONS).posts
    again = plan(campaign, CONNECTIONS).posts
    assert [p.idempotency_key("manual") for p in first] == [
        p.idempotency_key("manual") for p in again
    ]
    keys = {p.idempotency_key("2026-03-02T09:00") for p in first}
    assert len(keys) == len(first)
    assert not keys & {p.idempotency_key("manual") for p in first}
    assert first[0].key == "launch/hello/microblog/mb1"


def test_connections_may_be_objects_and_the_plan_serialises(campaign: Campaign) -> None:
    class Entry:
        def __init__(self, **values: str) -> None:
            self.__dict__.update(values)

    entries = [Entry(**entry) for entry in CONNECTIONS]
    result = plan(campaign, entries)
    assert len(result.posts) == 6
    data = result.to_dict()
    assert data["campaign"] == "launch" and data["schedule"] is None
    assert data["retries"] == {"attempts": 3, "backoffSeconds": 5.0, "maxDelaySeconds": 60.0}
    assert data["posts"][2]["thumbnail"] == "cover"
    assert data["skipped"][-1]["reason"] == "not_found"
    assert Path(data["uploads"][0]["path"]).is_absolute()


def test_a_platform_without_any_connection_is_reported_once(write: Write) -> None:
    campaign = load(write("name: p\nposts:\n  - id: a\n    professional_network: {text: hi}\n"))
    [skipped] = plan(campaign, CONNECTIONS).skipped
    assert (skipped.reason, skipped.path) == (
        SkipReason.NO_CONNECTION,
        ("posts", 0, "professional_network"),
    )
    assert skipped.message == (
        "the account has no professional_network connection: connect one in the dashboard"
    )
