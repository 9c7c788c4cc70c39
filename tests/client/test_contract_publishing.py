"""The client's publishing and read-back methods against the real app, on SQLite and
PostgreSQL, with media uploaded through the client itself.

The platforms are the service's sandbox drivers; everything between the client and them
is real: HTTP, the rules, idempotency in the database, and the error bodies.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pressroom.client import (
    Campaign,
    Client,
    ConflictError,
    FileProcessingFailed,
    FileStatus,
    NotFoundError,
    PermissionDeniedError,
    PostCampaign,
    PublishResult,
    ServerError,
    ValidationError,
    build_publish_request,
)
from pressroom.platforms import RULES, Platform, PostFormat
from pressroom.rules import CAROUSELS
from tests.client.conftest import Media
from tests.conftest import AccountHandle, Service
from tests.support.files import make_file
from tests.support.media import make_video
from tests.support.publish import connect, deliveries, refuse_part

MakeClient = Callable[..., Client]


@dataclass
class Studio:
    """An account with a connection on every platform, a ready video and a ready image."""

    account: AccountHandle
    client: Client
    connections: dict[Platform, str]
    video: FileStatus
    image: FileStatus


def open_studio(service: Service, client: Client, account: AccountHandle, media: Media) -> Studio:
    connections: dict[Platform, str] = {
        platform: account.connect(platform.value, f"acme {platform.value}", verified=True)
        for platform in Platform
        if platform != Platform.TEXT_THREAD
    }
    # text_thread comes with the photo_sharing account; the client finds it in the list.
    (thread,) = client.connections_for(Platform.TEXT_THREAD)
    connections[Platform.TEXT_THREAD] = thread.id
    return Studio(
        account, client, connections, client.upload(media.video), client.upload(media.png)
    )


RIDE_OUT = 30
"""Retries of the studio's client: its small video is converted for short_video and its
PNG for photo_sharing on their first post (409 ``file_not_ready``, transient, with
``Retry-After``), which the client waits out as any caller with ``max_retries`` does."""


@pytest.fixture
def studio(service: Service, client_for: MakeClient, media: Media) -> Studio:
    account = service.account()
    return open_studio(service, client_for(account, max_retries=RIDE_OUT), account, media)


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def publish_every_platform(studio: Studio) -> dict[Platform, PublishResult]:
    client, conn, video, image = studio.client, studio.connections, studio.video, studio.image
    return {
        Platform.MICROBLOG: client.publish_microblog(
            connection_id=conn[Platform.MICROBLOG], text="We launched 🚀"
        ),
        Platform.VIDEO_SHARING: client.publish_video_sharing(
            connection_id=conn[Platform.VIDEO_SHARING],
            file_id=video.file_id,
            title="Launch day",
            description="All of it.",
            privacy_status="unlisted",
        ),
        Platform.SHORT_VIDEO: client.publish_short_video(
            connection_id=conn[Platform.SHORT_VIDEO],
            file_id=video.file_id,
            caption="#launch",
            privacy_level="SELF_ONLY",
        ),
        Platform.PHOTO_SHARING: client.publish_photo_sharing(
            connection_id=conn[Platform.PHOTO_SHARING], file_id=image.file_id, caption="New!"
        ),
        Platform.PAGE_SOCIAL: client.publish_page_social(
            connection_id=conn[Platform.PAGE_SOCIAL], file_id=video.file_id, message="Live now"
        ),
        Platform.PIN_BOARD: client.publish_pin_board(
            connection_id=conn[Platform.PIN_BOARD],
            file_id=image.file_id,
            board_id="launches",
            title="Launch",
            description="Pin it",
        ),
        Platform.TEXT_THREAD: client.publish_text_thread(
            connection_id=conn[Platform.TEXT_THREAD], text="Launched, in a thread"
        ),
        Platform.PROFESSIONAL_NETWORK: client.publish_professional_network(
            connection_id=conn[Platform.PROFESSIONAL_NETWORK], text="We are hiring"
        ),
        Platform.OPEN_MICROBLOG: client.publish_open_microblog(
            connection_id=conn[Platform.OPEN_MICROBLOG],
            text="Launched, on the open network",
            file_id=image.file_id,
            alt_text="The launch poster",
        ),
    }


def test_every_publish_helper_posts_to_its_platform_with_real_media(studio: Studio) -> None:
    client = studio.client
    results = publish_every_platform(studio)

    assert set(results) == set(Platform)
    for platform, result in results.items():
        assert result.success is True and result.status == "published"
        assert result.platform == platform.value
        assert result.connection_id == studio.connections[platform]
        assert result.url and result.url.startswith("https://")
        assert result.published_at is not None and result.published_at.tzinfo is not None
        # The platform's own id, under its per-platform name, and nothing else.
        id_field = _snake(RULES[platform].id_field)
        assert result.item_id and result.item_id == getattr(result, id_field)
        assert result.idempotency_key is None and result.idempotency_honoured is None
        assert result.replayed is False
        # pressroom's record of it reads back the same.
        post = client.get_post(result.record_id or "")
        assert (post.record_id, post.platform, post.connection_id) == (
            result.record_id,
            platform.value,
            result.connection_id,
        )
        assert (post.status, post.url, post.platform_post_id) == (
            "published",
            result.url,
            result.item_id,
        )
    assert results[Platform.VIDEO_SHARING].privacy_status == "unlisted"
    assert results[Platform.PIN_BOARD].board_id == "launches"
    assert (results[Platform.PROFESSIONAL_NETWORK].post_id or "").startswith("urn:")
    assert client.get_post(results[Platform.SHORT_VIDEO].record_id or "").file_id == (
        studio.video.file_id
    )
    assert client.get_post(results[Platform.MICROBLOG].record_id or "").request == {
        "connectionId": studio.connections[Platform.MICROBLOG],
        "text": "We launched 🚀",
    }


def test_publish_by_label_and_a_prebuilt_request_reach_the_same_routes(studio: Studio) -> None:
    from pressroom.client import build_publish_request

    client = studio.client
    by_label = client.publish(
        "pin_board",
        connection_id=studio.connections[Platform.PIN_BOARD],
        file_id=studio.image.file_id,
        board_id="b1",
    )
    assert (by_label.platform, by_label.board_id) == ("pin_board", "b1")
    request = build_publish_request(
        Platform.SHORT_VIDEO,
        connection_id=studio.connections[Platform.SHORT_VIDEO],
        file_id=studio.video.file_id,
        privacy_level="SELF_ONLY",
    )
    assert client.publish_request(request).platform == "short_video"


def test_a_thumbnail_is_set_on_a_verified_channels_video(
    studio: Studio, service: Service, client_for: MakeClient
) -> None:
    client = studio.client
    video = client.publish_video_sharing(
        connection_id=studio.connections[Platform.VIDEO_SHARING],
        file_id=studio.video.file_id,
        title="Launch day",
    )
    assert video.video_id is not None
    thumb = client.set_video_thumbnail(
        video.video_id, thumbnail_file_id=studio.image.file_id, idempotency_key="thumb-1"
    )
    assert (thumb.success, thumb.status, thumb.video_id) == (True, "thumbnail_set", video.video_id)
    assert thumb.thumbnail_url and thumb.thumbnail_url.startswith("https://")
    assert thumb.updated_at is not None
    assert (thumb.idempotency_honoured, thumb.replayed) == (True, False)
    again = client.set_video_thumbnail(
        video.video_id, thumbnail_file_id=studio.image.file_id, idempotency_key="thumb-1"
    )
    assert again.replayed is True and again.thumbnail_url == thumb.thumbnail_url

    with pytest.raises(ValidationError) as not_an_image:
        client.set_video_thumbnail(video.video_id, thumbnail_file_id=studio.video.file_id)
    assert not_an_image.value.code == "media_kind_not_allowed"
    with pytest.raises(NotFoundError) as unknown:
        client.set_video_thumbnail("no-such-video", thumbnail_file_id=studio.image.file_id)
    assert unknown.value.code == "video_not_found"


def test_an_unverified_channel_cannot_set_a_thumbnail(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    account = service.account()
    client = client_for(account)
    channel = account.connect("video_sharing", "Chan")  # not verified
    video = client.upload(media.video)
    image = client.upload(media.png)
    published = client.publish_video_sharing(
        connection_id=channel, file_id=video.file_id, title="T"
    )
    with pytest.raises(PermissionDeniedError) as caught:
        client.set_video_thumbnail(published.video_id or "", thumbnail_file_id=image.file_id)
    assert (caught.value.code, caught.value.transient) == ("channel_not_verified", False)


# --- idempotency ---------------------------------------------------------------------


def test_the_same_key_replays_the_first_result_and_posts_nothing_new(studio: Studio) -> None:
    client = studio.client
    connection = studio.connections[Platform.SHORT_VIDEO]

    def send(caption: str) -> PublishResult:
        return client.publish_short_video(
            connection_id=connection,
            file_id=studio.video.file_id,
            caption=caption,
            privacy_level="SELF_ONLY",
            idempotency_key="launch-short",
        )

    first = send("#launch")
    again = send("#launch")
    assert (first.idempotency_honoured, first.replayed) == (True, False)
    assert (again.idempotency_honoured, again.replayed) == (True, True)
    assert again.idempotency_key == "launch-short"
    assert (again.record_id, again.post_id, again.url) == (
        first.record_id,
        first.post_id,
        first.url,
    )
    assert [p.record_id for p in client.iter_posts(connection_id=connection)] == [first.record_id]

    with pytest.raises(ConflictError) as caught:
        send("another caption")
    assert (caught.value.code, caught.value.transient) == ("idempotency_key_reused", False)


@pytest.mark.parametrize("mode", ["before", "after"])
def test_a_platform_outage_is_transient_and_the_attempt_can_be_looked_up(
    service: Service, client_for: MakeClient, mode: str
) -> None:
    account = service.account()
    client = client_for(account)
    connection = account.connect("microblog", "@acme")
    knobs = service.settings.sandbox
    knobs.sandbox_failure_rate, knobs.sandbox_failure_mode = 1.0, mode  # type: ignore[assignment]
    knobs.sandbox_dedupe = False  # a second send would show as a second delivery

    with pytest.raises(ServerError) as caught:
        client.publish_microblog(connection_id=connection, text="hi", idempotency_key="k")
    outage = caught.value
    assert (outage.status, outage.code, outage.transient) == (503, "platform_unavailable", True)
    assert outage.retry_after is not None and outage.retry_after > 0
    attempt = client.find_post(idempotency_key="k")
    assert attempt is not None
    # "failed": it never reached the platform; "unknown": it did, and may be live.
    assert attempt.status == {"before": "failed", "after": "unknown"}[mode]

    knobs.sandbox_failure_rate = 0.0
    retried = client.publish_microblog(connection_id=connection, text="hi", idempotency_key="k")
    # "after": the service looked the post up under the held key and answers with it.
    assert (retried.status, retried.replayed) == ("published", mode == "after")
    latest = client.find_post(idempotency_key="k")
    assert latest is not None and (latest.record_id, latest.status) == (
        retried.record_id,
        "published",
    )
    assert len(deliveries(service)) == 1  # the same key never posts twice


# --- read-back -----------------------------------------------------------------------


def test_posts_are_read_back_newest_first_filtered_and_found_by_key(studio: Studio) -> None:
    client = studio.client
    micro = studio.connections[Platform.MICROBLOG]
    pro = studio.connections[Platform.PROFESSIONAL_NETWORK]
    sent = [
        client.publish_microblog(connection_id=micro, text=f"post {n}", idempotency_key=f"m{n}")
        for n in range(3)
    ]
    other = client.publish_professional_network(connection_id=pro, text="hello")
    newest_first = [other.record_id] + [r.record_id for r in sent[::-1]]

    page = client.list_posts(limit=2)
    assert [p.record_id for p in page.posts] == newest_first[:2]
    assert page.next_cursor is not None
    assert [p.record_id for p in client.list_posts(cursor=page.next_cursor).posts] == (
        newest_first[2:]
    )
    assert [p.record_id for p in client.iter_posts(page_size=2)] == newest_first
    assert [p.record_id for p in client.iter_posts(platform="microblog")] == newest_first[1:]
    assert [p.record_id for p in client.iter_posts(connection_id=pro)] == [other.record_id]
    assert [p.record_id for p in client.list_posts(idempotency_key="m1").posts] == [
        sent[1].record_id
    ]

    found = client.find_post(idempotency_key="m0", connection_id=micro, platform="microblog")
    assert found is not None
    assert (found.record_id, found.status, found.url) == (
        sent[0].record_id,
        "published",
        sent[0].url,
    )
    assert found.idempotency_key == "m0" and found.published_at is not None
    assert client.find_post(idempotency_key="never-sent") is None
    assert client.find_post(idempotency_key="m0", connection_id=pro) is None

    with pytest.raises(NotFoundError) as caught:
        client.get_post("post_unknown")
    assert caught.value.code == "post_not_found"


def test_a_campaign_is_sent_read_back_and_found_by_its_filters(studio: Studio) -> None:
    client = studio.client
    micro = studio.connections[Platform.MICROBLOG]
    tag = Campaign(name="spring-launch", edition="2026-w48", post_id="hello", flow_run_id="run-1")
    request = build_publish_request(
        Platform.MICROBLOG, connection_id=micro, text="hi", campaign=tag
    )
    sent = client.publish_request(request, idempotency_key="spring-hello")
    client.publish_microblog(connection_id=micro, text="no campaign")
    # A re-run: the same key, its own flow run id; the first answer comes back.
    again = client.publish(
        "microblog",
        connection_id=micro,
        text="hi",
        campaign=tag.model_copy(update={"flow_run_id": "run-2"}),
        idempotency_key="spring-hello",
    )
    assert again.record_id == sent.record_id and again.replayed

    (post,) = client.list_posts(campaign="spring-launch").posts
    assert post.record_id == sent.record_id
    assert post.campaign == PostCampaign(
        name="spring-launch", edition="2026-w48", post_id="hello", flow_run_id="run-1"
    )
    assert [p.record_id for p in client.iter_posts(edition="2026-w48", flow_run_id="run-1")] == [
        sent.record_id
    ]
    assert client.list_posts(flow_run_id="run-2").posts == []
    assert client.get_post(sent.record_id).campaign == post.campaign


# --- errors from the service's own answers -------------------------------------------


def expect(error: type[Exception], call: Callable[[], Any]) -> Any:
    with pytest.raises(error) as caught:
        call()
    return caught.value


def test_rule_breaks_are_validation_errors_naming_the_field(studio: Studio) -> None:
    client, conn = studio.client, studio.connections
    rule = RULES[Platform.MICROBLOG].text_rule("text")
    assert rule is not None and rule.max_chars == 280
    too_long = "x" * (rule.max_chars + 1)

    long_text = expect(
        ValidationError,
        lambda: client.publish_microblog(connection_id=conn[Platform.MICROBLOG], text=too_long),
    )
    assert (long_text.status, long_text.code, long_text.field) == (400, "text_too_long", "text")
    assert long_text.transient is False and "280" in long_text.message

    long_title = expect(
        ValidationError,
        lambda: client.publish_video_sharing(
            connection_id=conn[Platform.VIDEO_SHARING],
            file_id=studio.video.file_id,
            title="t" * 101,
        ),
    )
    assert (long_title.code, long_title.field) == ("text_too_long", "title")

    image_as_video = expect(
        ValidationError,
        lambda: client.publish_short_video(
            connection_id=conn[Platform.SHORT_VIDEO], file_id=studio.image.file_id
        ),
    )
    assert (image_as_video.code, image_as_video.field) == ("media_kind_not_allowed", "fileId")

    wrong_platform = expect(
        ValidationError,
        lambda: client.publish_microblog(connection_id=conn[Platform.TEXT_THREAD], text="hi"),
    )
    assert (wrong_platform.code, wrong_platform.field) == (
        "connection_platform_mismatch",
        "connectionId",
    )
    unknown = expect(
        NotFoundError, lambda: client.publish_microblog(connection_id="conn_unknown", text="hi")
    )
    assert unknown.code == "connection_not_found"


def test_video_length_and_page_rules_are_refused_by_kind(studio: Studio, tmp_path: Path) -> None:
    client, account = studio.client, studio.account
    short = client.upload(make_video(tmp_path / "short.mp4", 2))
    too_short = expect(
        ValidationError,
        lambda: client.publish_short_video(
            connection_id=studio.connections[Platform.SHORT_VIDEO], file_id=short.file_id
        ),
    )
    assert (too_short.code, too_short.field) == ("video_duration_out_of_range", "fileId")

    profile = account.connect("page_social", "me", page_kind="profile")
    no_permission = account.connect("page_social", "Acme page", pages_permission=False)
    for connection, code in [(profile, "not_a_page"), (no_permission, "pages_permission_missing")]:
        with pytest.raises(PermissionDeniedError) as denied:
            client.publish_page_social(connection_id=connection, file_id=studio.video.file_id)
        assert (denied.value.status, denied.value.code, denied.value.transient) == (
            403,
            code,
            False,
        )


def test_a_file_still_processing_or_failed_cannot_be_published(
    studio: Studio, media: Media, client_for: MakeClient
) -> None:
    # Without retries, so the 409 of a file whose bytes never come reaches the caller.
    client, conn = client_for(studio.account), studio.connections
    pending = client.presign(filename="later.mp4", content_type="video/mp4")
    not_ready = expect(
        ConflictError,
        lambda: client.publish_video_sharing(
            connection_id=conn[Platform.VIDEO_SHARING], file_id=pending.file_id, title="Soon"
        ),
    )
    assert (not_ready.status, not_ready.code, not_ready.field) == (409, "file_not_ready", "fileId")
    assert not_ready.transient is True  # the same request succeeds once the file is ready

    failed = client.upload(media.fake_mp4, wait=False)
    with pytest.raises(FileProcessingFailed):  # the media contract tests this in full
        client.wait_until_ready(failed.file_id)
    refused = expect(
        ValidationError,
        lambda: client.publish_short_video(
            connection_id=conn[Platform.SHORT_VIDEO], file_id=failed.file_id
        ),
    )
    assert (refused.code, refused.field) == ("file_failed", "fileId")


def test_a_client_with_retries_waits_while_the_file_is_converted_for_the_network(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    """A PNG to photo_sharing (Instagram takes JPEG only): the service answers 409
    file_not_ready with Retry-After while it makes the JPEG. Without retries the caller
    sees it, transient; with them the client waits it out, even without a key (the
    answer says nothing was done), and the post goes out as a JPEG."""
    account = service.account()
    patient, impatient = client_for(account, max_retries=RIDE_OUT), client_for(account)
    connection = account.connect("photo_sharing", "@acme", account_type="business")
    image = patient.upload(media.png)

    with pytest.raises(ConflictError) as caught:
        impatient.publish_photo_sharing(connection_id=connection, file_id=image.file_id)
    waiting = caught.value
    assert (waiting.code, waiting.field, waiting.transient) == ("file_not_ready", "fileId", True)
    assert waiting.retry_after is not None and waiting.retry_after >= 1

    result = patient.publish_photo_sharing(connection_id=connection, file_id=image.file_id)
    assert result.status == "published"
    assert deliveries(service)[-1].payload["media"]["contentType"] == "image/jpeg"
    status = patient.file_status(image.file_id)
    assert status.content_type == "image/png"
    assert [(d.network, d.status, d.content_type) for d in status.derivatives] == [
        ("photo_sharing", "ready", "image/jpeg")
    ]


def test_an_inactive_connection_is_a_conflict(studio: Studio) -> None:
    client, conn = studio.client, studio.connections
    studio.account.move("expire_token", conn[Platform.PROFESSIONAL_NETWORK])
    inactive = expect(
        ConflictError,
        lambda: client.publish_professional_network(
            connection_id=conn[Platform.PROFESSIONAL_NETWORK], text="hello"
        ),
    )
    assert (inactive.status, inactive.code, inactive.field) == (
        409,
        "connection_inactive",
        "connectionId",
    )
    # The text_thread twin goes inactive with its photo_sharing account.
    studio.account.move("disconnect", conn[Platform.PHOTO_SHARING])
    twin = expect(
        ConflictError,
        lambda: client.publish_text_thread(connection_id=conn[Platform.TEXT_THREAD], text="hi"),
    )
    assert twin.code == "connection_inactive"
    statuses = {c.id: c.is_active for c in client.list_connections(refresh=True)}
    assert statuses[conn[Platform.TEXT_THREAD]] is False


def test_a_personal_photo_sharing_account_is_refused_with_a_permission_error(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    account = service.account()
    client = client_for(account)
    personal = account.connect("photo_sharing", "me", account_type="personal")
    image = client.upload(media.png)
    denied = expect(
        PermissionDeniedError,
        lambda: client.publish_photo_sharing(connection_id=personal, file_id=image.file_id),
    )
    assert (denied.status, denied.code, denied.field) == (
        403,
        "account_type_not_allowed",
        "connectionId",
    )
    assert denied.transient is False


# --- threads -----------------------------------------------------------------------


@pytest.mark.parametrize("platform", [Platform.MICROBLOG, Platform.TEXT_THREAD])
def test_a_thread_is_published_through_the_typed_method_and_read_back(
    service: Service, client_for: MakeClient, platform: Platform
) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    client = client_for(account)
    connection = connect(account, platform)
    method = {
        Platform.MICROBLOG: client.publish_microblog,
        Platform.TEXT_THREAD: client.publish_text_thread,
    }[platform]

    result = method(
        connection_id=connection, text="one", thread=["two", "three"], idempotency_key="t"
    )
    sent = deliveries(service)
    assert [d.payload["fields"]["text"] for d in sent] == ["one", "two", "three"]
    assert [d.payload["replyTo"] for d in sent] == [None, *(d.platform_post_id for d in sent[:2])]
    assert result.parts is not None
    assert [(p.index, p.kind, p.platform_post_id, p.status) for p in result.parts] == [
        (i, "post" if i == 0 else "reply", d.platform_post_id, "published")
        for i, d in enumerate(sent)
    ]
    record = client.get_post(str(result.record_id))
    assert record.parts == result.parts and not record.partial
    # The generic form takes the texts too.
    request = build_publish_request(platform, connection_id="c", text="a", thread=["b"])
    assert request.body()["thread"] == [{"text": "b"}]


def test_a_refused_later_part_raises_with_the_parts_and_the_record_is_partial(
    service: Service, client_for: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    client = client_for(account)
    connection = connect(account, Platform.MICROBLOG)
    refuse_part(service.client.app, monkeypatch, Platform.MICROBLOG, "three")

    with pytest.raises(ValidationError) as caught:
        client.publish_microblog(
            connection_id=connection, text="one", thread=["two", "three"], idempotency_key="p"
        )
    refused = caught.value
    assert refused.partial and refused.field == "thread[1].text"
    assert [p.status for p in refused.parts] == ["published", "published", "failed"]
    found = client.find_post(idempotency_key="p")
    assert found is not None and found.partial
    assert [p.stands for p in found.parts] == [True, True, False]
    assert not client.get_post(found.record_id).parts[2].platform_post_id


# --- carousels ---------------------------------------------------------------------


@pytest.mark.parametrize("platform", list(CAROUSELS))
def test_a_carousel_is_published_through_the_typed_method_and_read_back(
    service: Service, client_for: MakeClient, platform: Platform
) -> None:
    account = service.account()
    client = client_for(account)
    connection = connect(account, platform)
    files = [make_file(account, "image") for _ in range(3)]
    methods: dict[Platform, Callable[..., Any]] = {
        Platform.PHOTO_SHARING: client.publish_photo_sharing,
        Platform.PAGE_SOCIAL: client.publish_page_social,
        Platform.PIN_BOARD: functools.partial(client.publish_pin_board, board_id="board-1"),
        Platform.TEXT_THREAD: functools.partial(client.publish_text_thread, text="three"),
        Platform.PROFESSIONAL_NETWORK: functools.partial(
            client.publish_professional_network, text="three"
        ),
        Platform.OPEN_MICROBLOG: functools.partial(client.publish_open_microblog, text="three"),
    }
    result = methods[platform](connection_id=connection, file_ids=files, idempotency_key="c")

    [post] = deliveries(service)
    assert [item["fileId"] for item in post.payload["items"]] == files
    assert result.item_id == post.platform_post_id
    if CAROUSELS[platform].item_ids:
        assert result.parts is not None
        assert [(p.index, p.kind, p.platform_post_id) for p in result.parts] == [
            (0, "post", post.platform_post_id),
            *(
                (i, "item", item["platformPostId"])
                for i, item in enumerate(post.payload["items"], 1)
            ),
        ]
        record = client.get_post(str(result.record_id))
        assert record.parts == result.parts and not record.partial
    else:
        assert result.parts is None


def test_file_id_with_file_ids_is_refused_by_the_client_before_sending(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    client = client_for(account)
    with pytest.raises(ValueError, match="not both"):
        client.publish_photo_sharing(connection_id="c", file_id="f", file_ids=["a", "b"])
    with pytest.raises(ValueError, match="file_id is required"):
        client.publish_page_social(connection_id="c")
    request = build_publish_request(
        Platform.PIN_BOARD, connection_id="c", board_id="b", file_ids=["a", "b"]
    )
    assert request.body()["fileIds"] == ["a", "b"] and "fileId" not in request.body()
    # Bluesky's media is optional: a text post is built without a file.
    text_only = build_publish_request(Platform.OPEN_MICROBLOG, connection_id="c", text="hi")
    assert text_only.body() == {"connectionId": "c", "text": "hi"}
    assert deliveries(service) == []


# --- post formats ------------------------------------------------------------------


def test_a_reel_story_and_photo_post_are_published_through_the_typed_methods(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    client = client_for(account)
    reel = client.publish_photo_sharing(
        connection_id=connect(account, Platform.PHOTO_SHARING),
        file_id=make_file(account, "video"),
        caption="Behind the scenes",
        format=PostFormat.REEL,
    )
    story = client.publish_page_social(
        connection_id=connect(account, Platform.PAGE_SOCIAL),
        file_id=make_file(account, "image"),
        format=PostFormat.STORY,
    )
    photos = client.publish_short_video(
        connection_id=connect(account, Platform.SHORT_VIDEO),
        file_ids=[make_file(account, "image") for _ in range(2)],
        privacy_level="SELF_ONLY",
        format=PostFormat.PHOTO,
    )
    assert (reel.format, story.format, photos.format) == ("reel", "story", "photo")
    assert "/reel/" in str(reel.url) and "/stories/" in str(story.url)
    assert "/photo/" in str(photos.url)
    formats = {post.record_id: post.format for post in client.list_posts().posts}
    assert sorted(formats.values()) == ["photo", "reel", "story"]
    assert [d.payload["fields"]["format"] for d in deliveries(service)] == [
        "reel",
        "story",
        "photo",
    ]


def test_a_format_the_label_does_not_offer_is_a_validation_error_naming_format(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    client = client_for(account)
    error = expect(
        ValidationError,
        lambda: client.publish_professional_network(
            connection_id=connect(account, Platform.PROFESSIONAL_NETWORK),
            text="hi",
            format=PostFormat.REEL,
        ),
    )
    assert error.field == "format"
    assert deliveries(service) == []
    request = build_publish_request(
        Platform.PROFESSIONAL_NETWORK,
        connection_id="c",
        text="t",
        format=PostFormat.DOCUMENT,
        file_id="f",
        document_title="Q3 report",
    )
    assert request.body() == {
        "connectionId": "c",
        "text": "t",
        "format": "document",
        "fileId": "f",
        "documentTitle": "Q3 report",
    }


def test_a_pdf_is_uploaded_and_posted_as_a_document_through_the_typed_method(
    service: Service, client_for: MakeClient, tmp_path: Path
) -> None:
    from tests.support.documents import make_pdf

    account = service.account()
    client = client_for(account)
    path = tmp_path / "q3-report.pdf"
    path.write_bytes(make_pdf(4))
    pdf = client.upload(path)  # the content type follows from the extension
    assert pdf.is_ready and pdf.is_document
    assert (pdf.kind, pdf.content_type, pdf.pages) == ("document", "application/pdf", 4)
    post = client.publish_professional_network(
        connection_id=connect(account, Platform.PROFESSIONAL_NETWORK),
        text="Our quarter",
        file_id=pdf.file_id,
        format=PostFormat.DOCUMENT,
        document_title="Q3 report",
    )
    assert post.format == "document"
    [delivery] = deliveries(service)
    assert delivery.payload["media"]["fileId"] == pdf.file_id
    with pytest.raises(ValidationError) as refused:
        client.publish_photo_sharing(
            connection_id=connect(account, Platform.PHOTO_SHARING), file_id=pdf.file_id
        )
    assert refused.value.field == "fileId"
    assert len(deliveries(service)) == 1
