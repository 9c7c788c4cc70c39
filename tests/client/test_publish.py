"""Publishing against recorded answers shaped like the hosted service's: exact bodies.

``test_contract_publishing.py`` runs the same helpers against the real app.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from pressroom.client import Client, PublishResult, build_publish_request
from pressroom.platforms import RULES, Platform
from tests.client.hosted import BASE_URL, Hosted, body_of

API = re.escape(BASE_URL)

CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # helper, its keyword arguments, the JSON body it must send
    ("publish_microblog", {"text": "hi"}, {"text": "hi"}),
    (
        "publish_video_sharing",
        {"file_id": "f1", "title": "T", "privacy_status": "unlisted"},
        {"fileId": "f1", "title": "T", "privacyStatus": "unlisted"},
    ),
    (
        "publish_short_video",
        {"file_id": "f1", "caption": "#new"},
        {"platform": "short_video", "fileId": "f1", "caption": "#new"},
    ),
    (  # pressroom's extension: the TikTok owner's own choices
        "publish_short_video",
        {"file_id": "f1", "privacy_level": "SELF_ONLY", "allow_comments": True},
        {
            "platform": "short_video",
            "fileId": "f1",
            "privacyLevel": "SELF_ONLY",
            "allowComments": True,
        },
    ),
    (
        "publish_video_sharing",
        {"file_id": "f1", "title": "T", "made_for_kids": False},
        {"fileId": "f1", "title": "T", "madeForKids": False},
    ),
    ("publish_photo_sharing", {"file_id": "f1"}, {"fileId": "f1"}),
    ("publish_page_social", {"file_id": "f1", "message": "m"}, {"fileId": "f1", "message": "m"}),
    (
        "publish_pin_board",
        {"file_id": "f1", "board_id": "b9", "title": "Pin"},
        {"fileId": "f1", "boardId": "b9", "title": "Pin"},
    ),
    ("publish_text_thread", {"text": "thread"}, {"text": "thread"}),
    ("publish_professional_network", {"text": "news"}, {"text": "news"}),
]


@pytest.mark.parametrize(("helper", "kwargs", "body"), CASES, ids=[c[0] for c in CASES])
def test_each_helper_posts_its_body_to_its_path_and_reads_the_platform_id(
    hosted: Hosted, hosted_client: Client, helper: str, kwargs: dict[str, Any], body: dict[str, Any]
) -> None:
    platform = Platform(helper.removeprefix("publish_"))
    result: PublishResult = getattr(hosted_client, helper)(connection_id="c1", **kwargs)

    (request,) = hosted.requests
    assert request.url.path == RULES[platform].publish_path
    assert body_of(request) == {"connectionId": "c1", **body}  # no nulls for unset fields
    assert "Idempotency-Key" not in request.headers
    assert result.platform == platform.value
    assert result.status == "published" and result.connection_id == "c1"
    raw_id = result.model_dump(by_alias=True)[RULES[platform].id_field]
    assert result.item_id == str(raw_id) and result.item_id.isdigit()  # a number, as a string
    assert result.model_extra == {"scheduled": False}
    assert result.idempotency_honoured is None and result.replayed is False


def test_the_generic_publish_takes_snake_case_fields_and_refuses_foreign_ones(
    hosted: Hosted, hosted_client: Client
) -> None:
    result = hosted_client.publish(
        "video_sharing", connection_id="c2", file_id="9", title="Launch", description=None
    )
    assert body_of(hosted.requests[0]) == {"connectionId": "c2", "fileId": "9", "title": "Launch"}
    assert result.video_id == result.item_id

    with pytest.raises(ValueError, match="caption"):
        hosted_client.publish("microblog", connection_id="c2", text="x", caption="no")
    with pytest.raises(ValueError, match="title"):
        hosted_client.publish("video_sharing", connection_id="c2", file_id="9")
    with pytest.raises(ValueError, match="privacy_level"):  # TikTok's own values only
        hosted_client.publish("short_video", connection_id="c2", file_id="9", privacy_level="ALL")
    with pytest.raises(ValueError, match="unknown platform 'fax'"):
        hosted_client.publish("fax", connection_id="c2", text="x")
    assert len(hosted.requests) == 1


def test_publish_requests_can_be_built_ahead_and_sent_later(
    hosted: Hosted, hosted_client: Client
) -> None:
    request = build_publish_request("pin_board", connection_id="c3", file_id="4", board_id="b")
    assert request.path == "/api/v2/pin_board/publish"
    result = hosted_client.publish_request(request, idempotency_key="k-1")
    assert result.pin_id is not None and result.item_id == result.pin_id


def echo_key(replayed: bool) -> httpx.Response:
    headers = {"Idempotency-Key": "post-42"}
    if replayed:
        headers["Idempotent-Replayed"] = "true"
    return httpx.Response(
        200,
        json={"success": True, "platform": "microblog", "microblogPostId": "m1"},
        headers=headers,
    )


def test_the_idempotency_key_is_sent_and_its_echo_and_replay_are_exposed(
    hosted: Hosted, hosted_client: Client
) -> None:
    path = API + "/api/v2/microblog/publish"
    hosted.answer_in_turn("POST", path, [echo_key(replayed=False), echo_key(replayed=True)])

    first = hosted_client.publish_microblog(connection_id="c", text="x", idempotency_key="post-42")
    again = hosted_client.publish_microblog(connection_id="c", text="x", idempotency_key="post-42")

    assert [r.headers["Idempotency-Key"] for r in hosted.requests] == ["post-42", "post-42"]
    assert first.idempotency_key == "post-42"
    assert first.idempotency_honoured is True and first.replayed is False
    assert again.idempotency_honoured is True and again.replayed is True
    assert again.response_headers["idempotent-replayed"] == "true"


def test_a_service_that_ignores_the_key_is_visible(hosted: Hosted, hosted_client: Client) -> None:
    result = hosted_client.publish_text_thread(
        connection_id="c", text="x", idempotency_key="post-43"
    )
    assert hosted.requests[0].headers["Idempotency-Key"] == "post-43"
    assert result.idempotency_honoured is False  # no echo: look posts up before resending
    assert result.replayed is False


def test_a_result_missing_most_fields_still_reads(hosted: Hosted, hosted_client: Client) -> None:
    hosted.answer("POST", API + "/api/social/post", 200, {"postId": 7001})
    result = hosted_client.publish_short_video(connection_id="c9", file_id="f")
    assert result.success is True
    assert (result.platform, result.connection_id, result.item_id) == ("short_video", "c9", "7001")
    assert result.url is None and result.published_at is None and result.record_id is None


def test_pressroom_extras_are_read_when_present(hosted: Hosted, hosted_client: Client) -> None:
    hosted.answer(
        "POST",
        API + "/api/v2/video_sharing/publish",
        200,
        {
            "success": True,
            "platform": "video_sharing",
            "connectionId": "c",
            "status": "published",
            "publishedAt": "2026-11-02T10:00:00Z",
            "url": "https://video.example/v/abc",
            "videoId": "abc",
            "privacyStatus": "unlisted",
            "recordId": 17,
        },
    )
    result = hosted_client.publish_video_sharing(connection_id="c", file_id="f", title="t")
    assert (result.item_id, result.privacy_status, result.record_id) == ("abc", "unlisted", "17")
    assert result.published_at is not None and result.published_at.tzinfo is not None


def test_set_video_thumbnail(hosted: Hosted, hosted_client: Client) -> None:
    done = hosted_client.set_video_thumbnail(
        "vid 1", thumbnail_file_id="55", idempotency_key="thumb-1"
    )
    (request,) = hosted.requests
    assert request.url.raw_path == b"/api/v2/video_sharing/thumbnail/vid%201"
    assert body_of(request) == {"thumbnailFileId": "55"}
    assert request.headers["Idempotency-Key"] == "thumb-1"
    assert (done.video_id, done.status) == ("vid 1", "thumbnail_set")
    assert done.updated_at is not None and done.idempotency_honoured is False


def test_an_unreadable_timestamp_does_not_sink_the_result(
    hosted: Hosted, hosted_client: Client
) -> None:
    hosted.answer(
        "POST",
        API + "/api/v2/microblog/publish",
        200,
        {"success": True, "microblogPostId": 5, "publishedAt": "just now"},
    )
    result = hosted_client.publish_microblog(connection_id="c", text="x")
    assert result.published_at is None and result.item_id == "5"


def test_a_text_thread_part_carries_its_files(hosted: Hosted, hosted_client: Client) -> None:
    """A later part given as ``TextThreadPart`` goes out with its ``fileIds``; a plain text
    part beside it stays text."""
    from pressroom.client import TextThreadPart

    hosted_client.publish_text_thread(
        connection_id="c",
        text="one",
        thread=["two", TextThreadPart(text="three", file_ids=["f1", "f2"])],
    )
    sent = body_of(hosted.requests[0])
    assert sent["thread"] == [{"text": "two"}, {"text": "three", "fileIds": ["f1", "f2"]}]


def test_an_open_microblog_part_carries_its_images(hosted: Hosted, hosted_client: Client) -> None:
    """A Bluesky thread's part given as ``TextThreadPart`` goes out with its images."""
    from pressroom.client import TextThreadPart

    hosted_client.publish_open_microblog(
        connection_id="c",
        text="one",
        thread=["two", TextThreadPart(text="three", file_ids=["f1", "f2"])],
        file_alts={"f1": "A red square"},
    )
    sent = body_of(hosted.requests[0])
    assert sent["thread"] == [{"text": "two"}, {"text": "three", "fileIds": ["f1", "f2"]}]
    assert sent["fileAlts"] == {"f1": "A red square"}
