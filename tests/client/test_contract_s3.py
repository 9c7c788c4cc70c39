"""The client against the service on the S3 backend (SeaweedFS), over real sockets.

SeaweedFS checks a presigned PUT as S3 does: the signature, the signed Content-Type,
and no chunked transfer encoding. The client's own httpx.Client sends the bytes there
directly, with an explicit Content-Length and without the API key. Storage and database
do not meet, so this runs on SQLite only.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import httpx
import pytest

from pressroom.client import Client, FileProcessingFailed, NotFoundError, UploadProgress
from pressroom.settings import Settings, StorageSettings
from tests.client.conftest import Media
from tests.client.live import Live, live_service
from tests.support.seaweed import BUCKET, SeaweedS3, seaweed

__all__ = ["seaweed"]

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def on_s3(settings: Settings, seaweed: SeaweedS3) -> Iterator[Live]:
    store = StorageSettings(
        storage="s3",
        s3_bucket=BUCKET,
        s3_endpoint_url=seaweed.endpoint_url,
        s3_access_key_id=seaweed.access_key,
        s3_secret_access_key=seaweed.secret_key,
        s3_key_prefix=f"client-{secrets.token_hex(6)}/",
    )
    with live_service(settings, store=store) as live:
        yield live


def seaweed_url(live: Live) -> str:
    return live.service.settings.store.s3_endpoint_url or "(none)"


def test_upload_goes_straight_to_s3_and_the_file_comes_back(on_s3: Live, media: Media) -> None:
    account = on_s3.service.account()
    events: list[UploadProgress] = []
    sent: list[httpx.Request] = []
    http = httpx.Client(event_hooks={"request": [sent.append]})  # real connections
    with Client(
        base_url=on_s3.address, api_key=account.key, http_client=http, poll_interval=0.05
    ) as client:
        upload = client.presign(filename="launch.mp4", content_type="video/mp4")
        assert upload.upload_url.startswith(f"{seaweed_url(on_s3)}/{BUCKET}/")
        client.put_file(upload, media.video, on_progress=events.append)
        (put,) = [r for r in sent if r.method == "PUT"]
        # S3 refuses chunked presigned PUTs: the length is declared, and the key stays home.
        assert put.headers["content-length"] == str(media.video.stat().st_size)
        assert "transfer-encoding" not in put.headers and "x-api-key" not in put.headers
        assert put.headers["content-type"] == "video/mp4"
        video = client.wait_until_ready(upload.file_id, on_progress=events.append)
        assert (video.status, video.kind, video.size) == (
            "ready",
            "video",
            media.video.stat().st_size,
        )
        assert events[0].phase == "uploading" and events[-1].phase == "ready"

        image = client.upload(media.png.read_bytes(), filename="cover.png")
        assert image.is_ready and client.download(image.file_id) == media.png.read_bytes()
        assert client.download(video.file_id) == media.video.read_bytes()

        with pytest.raises(FileProcessingFailed) as failed:
            client.upload(media.fake_mp4)
        assert failed.value.reason

        client.delete_file(video.file_id)
        with pytest.raises(NotFoundError):
            client.download(video.file_id)
    http.close()
