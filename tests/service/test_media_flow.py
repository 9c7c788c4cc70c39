"""The media library end to end over HTTP, on local storage and on S3 (SeaweedFS)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.support.uploads import upload_file

if TYPE_CHECKING:
    from tests.conftest import Service
    from tests.support.library import Library, MediaFiles

from tests.support.backends import ON_BOTH_BACKENDS

pytest_plugins = ("tests.support.library",)


@ON_BOTH_BACKENDS
def test_video_and_image_upload_turn_ready_and_download_back(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    video_id = library.upload(account, media_files.video4)
    image_id = library.upload(account, media_files.png)

    video = library.wait(account, video_id)
    assert video["status"] == "ready", video
    assert video["kind"] == "video" and video["contentType"] == "video/mp4"
    assert video["size"] == media_files.video4.stat().st_size
    assert abs(video["durationSeconds"] - 4.0) < 0.2
    assert (video["width"], video["height"]) == (64, 48)
    assert "h264" in video["mediaFormat"]
    assert video["failureReason"] is None and video["filename"] == "clip4.mp4"

    image = library.wait(account, image_id)
    assert image["status"] == "ready", image
    assert (image["kind"], image["width"], image["height"]) == ("image", 32, 24)
    assert image["durationSeconds"] is None

    download = library.client.get(f"/api/upload/direct/{video_id}", headers=account.headers)
    assert download.status_code == 200
    assert download.content == media_files.video4.read_bytes()
    assert download.headers["content-type"] == "video/mp4"
    assert download.headers["content-length"] == str(media_files.video4.stat().st_size)

    deleted = library.client.delete(f"/api/upload/file/{video_id}", headers=account.headers)
    assert deleted.status_code == 200
    assert deleted.json() == {"success": True, "fileId": video_id, "deleted": True}
    gone = library.client.get(f"/api/upload/direct/{video_id}", headers=account.headers)
    assert gone.status_code == 404
    assert gone.json()["error"]["code"] == "file_not_found"
    assert library.stored() == {f"files/{image_id}"}


def test_upload_helper_for_other_domains_works_with_the_plain_service(
    service: Service, media_files: MediaFiles
) -> None:
    account = service.account()
    ready = upload_file(service.client, account.headers, media_files.video2)
    assert ready["status"] == "ready" and ready["kind"] == "video"
    failed = upload_file(service.client, account.headers, media_files.fake_mp4)
    assert failed["status"] == "failed"
