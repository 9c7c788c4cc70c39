"""``AsyncClient`` against the real app over HTTP (httpx.ASGITransport, no mocks)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from pressroom.client import (
    AsyncClient,
    AuthenticationError,
    FileProcessingFailed,
    NotFoundError,
    UploadProgress,
    ValidationError,
)
from tests.client.conftest import Media
from tests.conftest import Service

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def http(service: Service) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=service.client.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def test_async_client_reads_connections_and_rotates_its_key(
    service: Service, http: httpx.AsyncClient
) -> None:
    account = service.account()
    micro = account.connect("microblog", "@acme")
    async with AsyncClient(api_key=account.key, http_client=http) as client:
        assert [c.id for c in await client.list_connections()] == [micro]
        assert [c.id for c in await client.connections_for("microblog")] == [micro]
        listed = await client.microblog_connections()
        assert [c.connection_id for c in listed.connections] == [micro]

        issued = await client.rotate_api_key()
        new_key = issued.api_key.get_secret_value()
        assert (await client.get_api_key()).api_key.get_secret_value() == new_key

    stale = AsyncClient(api_key=account.key, http_client=http)
    with pytest.raises(AuthenticationError):
        await stale.get_api_key()


async def test_async_connection_cache_fetches_once(
    service: Service, http: httpx.AsyncClient
) -> None:
    account = service.account()
    account.connect("microblog", "@acme")
    sent: list[str] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request.url.path)

    http.event_hooks["request"].append(record)
    client = AsyncClient(api_key=account.key, http_client=http)
    await client.list_connections()
    await client.list_connections()
    await client.list_connections(refresh=True)
    assert sent == ["/api/connections/unified"] * 2


async def test_async_client_uploads_publishes_and_reads_back(
    service: Service, http: httpx.AsyncClient, media: Media, tmp_path: Path
) -> None:
    account = service.account()
    channel = account.connect("video_sharing", "Chan", verified=True)
    micro = account.connect("microblog", "@acme")
    events: list[UploadProgress] = []
    async with AsyncClient(api_key=account.key, http_client=http, poll_interval=0.02) as client:
        folder = await client.create_folder(name="Launch")
        video = await client.upload(media.video, folder_id=folder.id, on_progress=events.append)
        image = await client.upload(media.png.read_bytes(), filename="cover.png")
        assert (video.status, video.kind, video.folder_id) == ("ready", "video", folder.id)
        assert events[0].phase == "uploading" and events[-1].phase == "ready"
        assert await client.download(image.file_id) == media.png.read_bytes()
        copy = await client.download_to(video.file_id, tmp_path / "copy.mp4")
        assert copy.read_bytes() == media.video.read_bytes()
        assert [f.file_id async for f in client.iter_folder_files(folder.id)] == [video.file_id]
        assert (await client.latest_file()).file_id == image.file_id

        upload = await client.presign(filename="later.png", content_type="image/png")
        await client.put_file(upload, media.png)
        assert (await client.wait_until_ready(upload.file_id)).is_ready
        with pytest.raises(FileProcessingFailed):
            await client.upload(media.fake_mp4)

        published = await client.publish_video_sharing(
            connection_id=channel, file_id=video.file_id, title="Launch", idempotency_key="v1"
        )
        replayed = await client.publish_video_sharing(
            connection_id=channel, file_id=video.file_id, title="Launch", idempotency_key="v1"
        )
        assert (published.replayed, replayed.replayed) == (False, True)
        assert replayed.video_id == published.video_id and published.idempotency_honoured
        thumb = await client.set_video_thumbnail(
            published.video_id or "", thumbnail_file_id=image.file_id
        )
        assert thumb.status == "thumbnail_set"
        with pytest.raises(ValidationError) as too_long:
            await client.publish_microblog(connection_id=micro, text="x" * 281)
        assert (too_long.value.code, too_long.value.field) == ("text_too_long", "text")

        found = await client.find_post(idempotency_key="v1")
        assert found is not None and found.record_id == published.record_id
        assert (await client.get_post(found.record_id)).status == "published"
        assert [p.record_id async for p in client.iter_posts(page_size=1)] == [published.record_id]

        moved = await client.move_file(video.file_id, folder_id=None)
        assert moved.folder_id is None
        renamed = await client.rename_folder(folder.id, name="Launched")
        assert [f.name async for f in client.iter_folders()] == [renamed.name]
        await client.delete_folder(folder.id)
        assert (await client.list_folders()).folders == []
        await client.delete_file(video.file_id)
        with pytest.raises(NotFoundError):
            await client.download(video.file_id)
        remaining = [f.filename for f in (await client.list_files(limit=10)).files]
        assert remaining == ["fake.mp4", "later.png", "cover.png"]
