"""``POST /api/v2/video_sharing/thumbnail/{videoId}``: verified channels, own videos."""

from __future__ import annotations

import re

import httpx
from sqlalchemy import select

from pressroom.platforms import Platform
from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from tests.conftest import AccountHandle, Service
from tests.support.files import make_file
from tests.support.publish import deliveries, error_of, publish


def published_video(account: AccountHandle, *, verified: bool = True) -> str:
    channel = account.connect("video_sharing", "Acme TV", verified=verified)
    body = {"connectionId": channel, "fileId": make_file(account, "video"), "title": "Launch"}
    response = publish(account, Platform.VIDEO_SHARING, body)
    assert response.status_code == 200, response.text
    video_id: str = response.json()["videoId"]
    return video_id


def set_thumbnail(account: AccountHandle, video_id: str, file_id: str) -> httpx.Response:
    return account.service.client.post(
        f"/api/v2/video_sharing/thumbnail/{video_id}",
        json={"thumbnailFileId": file_id},
        headers=account.headers,
    )


def test_a_verified_channel_sets_a_thumbnail(service: Service) -> None:
    account = service.account()
    video = published_video(account)
    image = make_file(account, "image")
    response = set_thumbnail(account, video, image)
    assert response.status_code == 200
    result = response.json()
    assert set(result) == {"success", "videoId", "thumbnailUrl", "status", "updatedAt"}
    assert result["success"] is True and result["status"] == "thumbnail_set"
    assert result["videoId"] == video
    assert re.fullmatch(
        rf"https://i\.video-sharing\.example/vi/{re.escape(video)}/\S+\.jpg\S*",
        result["thumbnailUrl"],
    )
    assert result["updatedAt"].endswith("Z")
    [delivered] = deliveries(service, kind="thumbnail")
    assert delivered.platform_post_id == video
    assert delivered.payload["imageFileId"] == image


def test_an_unverified_channel_gets_the_platforms_own_thumbnail(service: Service) -> None:
    account = service.account()
    video = published_video(account, verified=False)
    response = set_thumbnail(account, video, make_file(account, "image"))
    assert response.status_code == 403
    error = error_of(response)
    assert error["code"] == "channel_not_verified"
    assert "generates a thumbnail for the video itself" in error["message"]
    assert deliveries(service, kind="thumbnail") == []


def test_only_videos_this_account_published(service: Service) -> None:
    account, other = service.account(), service.account()
    theirs = published_video(other)
    for video_id in (theirs, "dQw4w9WgXcQ"):
        response = set_thumbnail(account, video_id, make_file(account, "image"))
        assert response.status_code == 404
        assert error_of(response)["code"] == "video_not_found"


def test_the_thumbnail_must_be_a_ready_image(service: Service) -> None:
    account = service.account()
    video = published_video(account)
    as_video = set_thumbnail(account, video, make_file(account, "video"))
    error = error_of(as_video)
    assert as_video.status_code == 400
    assert error["code"] == "media_kind_not_allowed" and error["field"] == "thumbnailFileId"
    processing = set_thumbnail(account, video, make_file(account, "image", status="processing"))
    assert processing.status_code == 409
    assert error_of(processing)["field"] == "thumbnailFileId"
    missing = service.client.post(
        f"/api/v2/video_sharing/thumbnail/{video}", json={}, headers=account.headers
    )
    assert missing.status_code == 400
    assert error_of(missing)["field"] == "thumbnailFileId"


def test_a_channel_gone_inactive_cannot_change_thumbnails(service: Service) -> None:
    account = service.account()
    video = published_video(account)
    with transaction(service.sessions, write=False) as db:
        channel = db.scalar(select(Connection.id).where(Connection.platform == "video_sharing"))
    assert channel is not None
    account.move("expire_token", channel)
    response = set_thumbnail(account, video, make_file(account, "image"))
    assert response.status_code == 409
    assert error_of(response)["code"] == "connection_inactive"
