"""``AsyncClient`` on the hosted service's recordings: upload, wait, publish, errors."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from pressroom.client import (
    AsyncClient,
    FileProcessingFailed,
    NotFoundError,
    ReadTimeout,
    UploadProgress,
)
from tests.client.hosted import API_KEY, BASE_URL, FILE_ID, Hosted, body_of

pytestmark = pytest.mark.anyio
API = re.escape(BASE_URL)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(hosted: Hosted) -> AsyncIterator[AsyncClient]:
    http = httpx.AsyncClient(transport=hosted.transport())
    async with AsyncClient(
        base_url=BASE_URL, api_key=API_KEY, http_client=http, poll_interval=0
    ) as client:
        yield client
    await http.aclose()


async def test_upload_streams_waits_and_reports_progress(
    hosted: Hosted, client: AsyncClient, tmp_path: Path
) -> None:
    video = tmp_path / "launch.mp4"
    video.write_bytes(b"v" * 5000)
    seen: list[UploadProgress] = []
    ready = await client.upload(video, on_progress=seen.append)
    assert (ready.file_id, ready.status) == (str(FILE_ID), "completed")
    (put,) = hosted.sent("PUT", "/uploads/")
    assert put.headers["Content-Length"] == "5000" and "X-API-Key" not in put.headers
    assert hosted.stored[f"{FILE_ID}/launch.mp4"] == video.read_bytes()
    assert [p.phase for p in seen] == ["uploading", "waiting", "ready"]


async def test_a_failed_file_raises(hosted: Hosted, client: AsyncClient) -> None:
    hosted.answer(
        "GET",
        API + f"/api/upload/status/{FILE_ID}",
        200,
        {"fileId": FILE_ID, "status": "failed", "failureReason": "too short"},
    )
    with pytest.raises(FileProcessingFailed, match="too short"):
        await client.upload(b"...", filename="clip.mp4")


async def test_publish_with_idempotency_and_a_read_timeout(
    hosted: Hosted, client: AsyncClient
) -> None:
    result = await client.publish(
        "page_social", connection_id="p1", file_id="5", message="hi", idempotency_key="k"
    )
    assert body_of(hosted.requests[0]) == {"connectionId": "p1", "fileId": "5", "message": "hi"}
    assert hosted.requests[0].headers["Idempotency-Key"] == "k"
    assert result.item_id is not None and result.idempotency_honoured is False

    def stall(_r: httpx.Request, _m: re.Match[str]) -> httpx.Response:
        raise httpx.ReadTimeout("no answer")

    hosted.on("POST", API + "/api/v2/microblog/publish", stall)
    with pytest.raises(ReadTimeout) as caught:
        await client.publish_microblog(connection_id="m", text="x", idempotency_key="k2")
    assert caught.value.outcome_unknown


async def test_pages_iterate_and_downloads_stream(
    hosted: Hosted, client: AsyncClient, tmp_path: Path
) -> None:
    hosted.answer("GET", API + "/api/upload/folders", 200, {"folders": [{"id": 1, "name": "a"}]})
    assert [f.id async for f in client.iter_folders()] == ["1"]
    hosted.on(
        "GET", API + "/api/upload/direct/1", lambda _r, _m: httpx.Response(200, content=b"x" * 9)
    )
    assert (await client.download_to("1", tmp_path / "f")).read_bytes() == b"x" * 9
    assert await client.download("1") == b"x" * 9
    with pytest.raises(NotFoundError):
        await client.get_post("1")
