"""Every real driver runs the rule table's check before its first request: a post its
network's rules refuse is ``PlatformRefused`` naming the field and the rule, and not one
request leaves (respx refuses any call nobody mocked).

Facebook and LinkedIn have no confirmed rule yet: a rule added to their tables here,
as data, is enforced the same way, which is the point of the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
import respx

from pressroom.platforms import RULES, MediaKind, Platform
from pressroom.rules import NETWORKS, TABLE, Unit
from pressroom.rules.model import Duration, TextLength
from pressroom.service.drivers import REAL_DRIVERS, NetworkApp
from pressroom.service.drivers.base import (
    Account,
    Delivery,
    Media,
    PlatformRefused,
    ThumbnailChange,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.settings import NetworkSettings

MEDIA = {
    Platform.VIDEO_SHARING: MediaKind.VIDEO,
    Platform.SHORT_VIDEO: MediaKind.VIDEO,
    Platform.PHOTO_SHARING: MediaKind.IMAGE,
    Platform.PAGE_SOCIAL: MediaKind.IMAGE,
    Platform.PIN_BOARD: MediaKind.IMAGE,
}


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "token"


class NoMedia:
    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        raise AssertionError("the driver reached for the media before checking the rules")

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        raise AssertionError("the driver reached for the media before checking the rules")


@pytest.fixture
def network() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_mocked=True, assert_all_called=False) as router:
        yield router


def driver_for(platform: Platform) -> object:
    http = NetworkClient(platform, timeout_seconds=5, backoff_seconds=0)
    app = NetworkApp("client", "secret", Tokens(), http, NoMedia(), NetworkSettings())
    return REAL_DRIVERS[platform].make(app)


def media_of(kind: MediaKind, **facts: object) -> Media:
    content_type = "video/mp4" if kind is MediaKind.VIDEO else "image/jpeg"
    media = Media("file_1", kind, content_type, "acct/file_1", 30.0, 1000, 320, 240, "h264")
    return replace(media, content_type=content_type, **facts)  # type: ignore[arg-type]


@pytest.mark.parametrize("platform", list(Platform))
def test_a_text_over_a_rule_is_refused_before_any_request(
    platform: Platform, network: respx.MockRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    field = RULES[platform].text_fields[0].name
    rule = TextLength(
        platform=platform,
        network=NETWORKS[platform],
        name="test_length",
        doc_url="https://example.com/rule",
        fields=(field,),
        limit=3,
        unit=Unit.GRAPHEMES,
    )
    monkeypatch.setitem(TABLE, platform, (*TABLE[platform], rule))
    kind = MEDIA.get(platform)
    delivery = Delivery(
        platform=platform,
        account=Account("conn_1", "@acme"),
        fields={field: "four", "boardId": "1"},
        media=media_of(kind) if kind else None,
        reference="post_1",
    )
    driver = driver_for(platform)
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(delivery)  # type: ignore[attr-defined]
    assert refused.value.rule == rule and refused.value.field == field
    assert network.calls.call_count == 0


def test_a_video_of_a_length_the_network_refuses_never_leaves(
    network: respx.MockRouter,
) -> None:
    """TikTok's own limit is 10 minutes, as the spec's; an Instagram reel is 3 s at least."""
    delivery = Delivery(
        platform=Platform.PHOTO_SHARING,
        account=Account("conn_1", "@acme"),
        fields={"caption": "hi"},
        media=media_of(MediaKind.VIDEO, duration_seconds=2.0),
        reference="post_1",
    )
    with pytest.raises(PlatformRefused) as refused:
        driver_for(Platform.PHOTO_SHARING).publish(delivery)  # type: ignore[attr-defined]
    assert refused.value.rule is not None
    assert refused.value.rule.id == "photo_sharing.video_duration"
    assert refused.value.field == "fileId" and network.calls.call_count == 0


def test_a_thumbnail_rule_is_checked_before_the_thumbnail_is_sent(
    network: respx.MockRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """YouTube's thumbnail rules can all be met by conversion today; a rule that cannot
    (added here as data) refuses before the upload."""
    rule = Duration(
        platform=Platform.VIDEO_SHARING,
        network="YouTube",
        name="test_thumbnail",
        doc_url="https://example.com/rule",
        kind=None,
        max_seconds=1,
    )
    rule = replace(rule, subject=rule.subject.THUMBNAIL)
    monkeypatch.setitem(TABLE, Platform.VIDEO_SHARING, (*TABLE[Platform.VIDEO_SHARING], rule))
    change = ThumbnailChange(
        Account("conn_1", "Acme"), "vid", media_of(MediaKind.IMAGE, duration_seconds=2.0)
    )
    with pytest.raises(PlatformRefused) as refused:
        driver_for(Platform.VIDEO_SHARING).set_thumbnail(change)  # type: ignore[attr-defined]
    assert refused.value.rule == rule and network.calls.call_count == 0


@pytest.mark.parametrize(
    ("platform", "facts", "rule"),
    [
        (Platform.PHOTO_SHARING, {"content_type": "image/png"}, "photo_sharing.image_format"),
        (Platform.SHORT_VIDEO, {"frame_rate": 15.0}, "short_video.video_frame_rate"),
        (Platform.SHORT_VIDEO, {"video_codec": "mpeg4"}, "short_video.video_codec"),
    ],
)
def test_media_the_network_takes_only_converted_is_refused_when_it_arrives_unconverted(
    platform: Platform, facts: dict[str, object], rule: str, network: respx.MockRouter
) -> None:
    """The API hands drivers the file fitted for the network (``media.fitting``); one
    that still breaks a rule conversion would meet never leaves, as the network would
    refuse it."""
    kind = MEDIA[platform]
    fitting = {"width": 720, "height": 1280, "frame_rate": 30.0} if kind is MediaKind.VIDEO else {}
    delivery = Delivery(
        platform=platform,
        account=Account("conn_1", "@acme"),
        fields={"caption": "hi"},
        media=replace(media_of(kind, **fitting), **facts),  # type: ignore[arg-type]
        reference="post_1",
    )
    with pytest.raises(PlatformRefused) as refused:
        driver_for(platform).publish(delivery)  # type: ignore[attr-defined]
    assert refused.value.rule is not None and refused.value.rule.id == rule
    assert refused.value.field == "fileId" and network.calls.call_count == 0


def test_a_gif_thumbnail_never_reaches_youtube_unconverted(network: respx.MockRouter) -> None:
    change = ThumbnailChange(
        Account("conn_1", "Acme"),
        "vid",
        replace(media_of(MediaKind.IMAGE), content_type="image/gif"),
    )
    with pytest.raises(PlatformRefused) as refused:
        driver_for(Platform.VIDEO_SHARING).set_thumbnail(change)  # type: ignore[attr-defined]
    assert refused.value.rule is not None
    assert refused.value.rule.id == "video_sharing.thumbnail_format"
    assert refused.value.field == "thumbnailFileId" and network.calls.call_count == 0
