"""Uploads against the hosted service's recorded answers: presign, PUT to S3, wait.

These show the client copes with the hosted service's shapes (numeric ids, ``completed``,
S3 errors in XML); ``test_contract_media.py`` and ``test_contract_s3.py`` run the same
methods against the real app.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import anyio
import httpx
import pytest

from pressroom.client import (
    AsyncClient,
    Client,
    FileProcessingFailed,
    NotFoundError,
    PermissionDeniedError,
    UploadProgress,
    UploadTimeout,
)
from pressroom.client.upload import CHUNK_BYTES
from tests.client.hosted import (
    API_KEY,
    BASE_URL,
    FILE_ID,
    SIGNATURE,
    STORAGE,
    Handler,
    Hosted,
)

API = re.escape(BASE_URL)
STATUS = API + f"/api/upload/status/{FILE_ID}"


def status(value: str, **fields: object) -> httpx.Response:
    return httpx.Response(200, json={"fileId": FILE_ID, "status": value, **fields})


def test_upload_streams_the_file_to_storage_without_the_key_and_waits_until_ready(
    hosted: Hosted, hosted_client: Client, tmp_path: Path
) -> None:
    video = tmp_path / "launch.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 10)
    seen: list[UploadProgress] = []

    ready = hosted_client.upload(video, on_progress=seen.append)

    assert ready.file_id == str(FILE_ID)  # the hosted service's number, as a string
    assert ready.status == "completed" and ready.is_ready
    assert ready.model_extra == {
        "url": f"{STORAGE}/uploads/{FILE_ID}/launch.mp4",
        "mimeType": "video/mp4",
    }

    (presign,) = hosted.sent("POST", "/api/upload/presigned-url")
    assert presign.headers["X-API-Key"] == API_KEY
    assert presign.headers["Content-Type"] == "application/json"
    assert presign.read() == b'{"filename":"launch.mp4","contentType":"video/mp4"}'

    (put,) = hosted.sent("PUT", "/uploads/")
    assert put.url.host == "media-bucket.s3.amazonaws.com"
    assert SIGNATURE in str(put.url)
    assert "X-API-Key" not in put.headers
    assert put.headers["Content-Type"] == "video/mp4"
    # S3 refuses chunked transfer encoding on presigned PUTs: the length is explicit.
    assert put.headers["Content-Length"] == str(video.stat().st_size)
    assert "Transfer-Encoding" not in put.headers
    assert hosted.stored[f"{FILE_ID}/launch.mp4"] == video.read_bytes()

    assert len(hosted.sent("GET", "/api/upload/status/")) == 2  # processing, then completed
    assert [p.phase for p in seen] == ["uploading", "waiting", "ready"]
    assert seen[0].bytes_sent == seen[0].total_bytes == video.stat().st_size
    assert seen[1].status is not None and seen[1].status.status == "processing"


def test_a_large_file_goes_in_chunks_and_progress_counts_every_byte(
    hosted: Hosted, hosted_client: Client, tmp_path: Path
) -> None:
    size = 2 * CHUNK_BYTES + 123
    video = tmp_path / "big.mov"
    video.write_bytes(b"m" * size)
    sent: list[int] = []

    hosted_client.upload(
        video,
        on_progress=lambda p: sent.append(p.bytes_sent) if p.phase == "uploading" else None,
    )

    assert sent == [CHUNK_BYTES, 2 * CHUNK_BYTES, size]
    (put,) = hosted.sent("PUT", "/uploads/")
    assert put.headers["Content-Type"] == "video/quicktime"
    assert put.headers["Content-Length"] == str(size)
    assert len(put.content) == size


@pytest.mark.parametrize("ready_word", ["ready", "completed", "uploaded", "READY"])
def test_every_word_for_ready_ends_the_wait(
    hosted: Hosted, hosted_client: Client, ready_word: str
) -> None:
    hosted.answer_in_turn("GET", STATUS, [status("pending_upload"), status(ready_word)])
    done = hosted_client.upload(b"\x89PNG...", filename="cover.png")
    assert done.is_ready
    (presign,) = hosted.sent("POST", "/api/upload/presigned-url")
    assert b'"contentType":"image/png"' in presign.read()


def test_a_failed_file_raises_with_the_reason(hosted: Hosted, hosted_client: Client) -> None:
    hosted.answer_in_turn(
        "GET",
        STATUS,
        [status("processing"), status("failed", failureReason="the file has no video stream")],
    )
    with pytest.raises(FileProcessingFailed) as caught:
        hosted_client.upload(b"not a video", filename="fake.mp4")
    assert caught.value.reason == "the file has no video stream"
    assert caught.value.file_id == str(FILE_ID)
    assert caught.value.transient is False
    assert "no video stream" in str(caught.value)


def test_the_wait_times_out_with_the_last_status_and_can_be_resumed(
    hosted: Hosted, hosted_client: Client
) -> None:
    hosted.answer_in_turn("GET", STATUS, [status("processing")])
    with pytest.raises(UploadTimeout) as caught:
        hosted_client.upload(b"...", filename="slow.mp4", timeout=0)
    assert caught.value.status == "processing"
    assert caught.value.transient is True
    assert len(hosted.sent("PUT", "/uploads/")) == 1

    hosted.answer_in_turn("GET", STATUS, [status("ready")])
    assert hosted_client.wait_until_ready(caught.value.file_id).is_ready
    assert len(hosted.sent("PUT", "/uploads/")) == 1  # resumed, not uploaded again


def test_transient_errors_while_polling_are_waited_out(
    hosted: Hosted, hosted_client: Client
) -> None:
    hosted.answer_in_turn(
        "GET",
        STATUS,
        [
            httpx.Response(503, json={"success": False, "error": {"code": "internal_error"}}),
            httpx.Response(429, headers={"Retry-After": "0"}, json={}),
            status("ready"),
        ],
    )
    assert hosted_client.upload(b"...", filename="clip.mp4").is_ready


class SleepClock:
    """Sleeps that take no time but move ``time.monotonic`` on by what they asked for.

    The clock is the real one plus the sum of the sleeps, so it never runs backwards
    and the event loop, which reads it too, keeps working.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.slept = 0.0
        self.polls: list[float] = []
        real = time.monotonic
        monkeypatch.setattr(time, "monotonic", lambda: real() + self.slept)

    def sleep(self, seconds: float) -> None:
        self.slept += seconds

    async def asleep(self, seconds: float) -> None:
        self.slept += seconds

    def status_answers(self, answers: list[httpx.Response]) -> Handler:
        """Answer status polls in turn, noting the clock at each."""
        queue = iter(answers)

        def handler(_r: httpx.Request, _m: re.Match[str]) -> httpx.Response:
            self.polls.append(time.monotonic())
            return next(queue)

        return handler


def rate_limited_for_3s() -> httpx.Response:
    return httpx.Response(
        429,
        headers={"Retry-After": "3"},
        json={"success": False, "error": {"code": "rate_limited", "message": "slow down"}},
    )


def test_a_rate_limited_poll_waits_the_retry_after_seconds(
    hosted: Hosted, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = SleepClock(monkeypatch)
    monkeypatch.setattr(time, "sleep", clock.sleep)
    hosted.on("GET", STATUS, clock.status_answers([rate_limited_for_3s(), status("ready")]))
    http = httpx.Client(transport=hosted.transport())
    # The poll interval is far below Retry-After, so only the header can make the wait 3 s.
    with Client(
        base_url=BASE_URL, api_key=API_KEY, http_client=http, poll_interval=0.01, ready_timeout=60
    ) as client:
        assert client.wait_until_ready(str(FILE_ID)).is_ready
    first, second = clock.polls
    assert second - first >= 3


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_async_client_also_waits_the_retry_after_seconds(
    hosted: Hosted, monkeypatch: pytest.MonkeyPatch, anyio_backend: str
) -> None:
    clock = SleepClock(monkeypatch)
    monkeypatch.setattr(anyio, "sleep", clock.asleep)
    hosted.on("GET", STATUS, clock.status_answers([rate_limited_for_3s(), status("ready")]))
    http = httpx.AsyncClient(transport=hosted.transport())
    async with AsyncClient(
        base_url=BASE_URL, api_key=API_KEY, http_client=http, poll_interval=0.01, ready_timeout=60
    ) as client:
        assert (await client.wait_until_ready(str(FILE_ID))).is_ready
    await http.aclose()
    first, second = clock.polls
    assert second - first >= 3


def test_a_final_error_while_polling_ends_the_wait(hosted: Hosted, hosted_client: Client) -> None:
    hosted.answer(
        "GET",
        STATUS,
        404,
        {"success": False, "error": {"code": "file_not_found", "message": "gone"}},
    )
    with pytest.raises(NotFoundError) as caught:
        hosted_client.upload(b"...", filename="clip.mp4")
    assert caught.value.code == "file_not_found"


def test_without_wait_the_first_status_is_returned(hosted: Hosted, hosted_client: Client) -> None:
    first = hosted_client.upload(b"...", filename="clip.webm", wait=False)
    assert first.status == "processing" and not first.is_ready
    assert len(hosted.sent("GET", "/api/upload/status/")) == 1


def test_storage_refusing_the_put_is_an_error_naming_its_code_but_not_the_signature(
    hosted: Hosted, hosted_client: Client
) -> None:
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code>'
        "<Message>The request signature we calculated does not match</Message></Error>"
    )
    hosted.on(
        "PUT",
        re.escape(STORAGE) + "/uploads/.*",
        lambda _r, _m: httpx.Response(403, text=xml, headers={"Content-Type": "application/xml"}),
    )
    with pytest.raises(PermissionDeniedError) as caught:
        hosted_client.upload(b"...", filename="clip.mp4")
    assert caught.value.code == "SignatureDoesNotMatch"
    assert "does not match" in caught.value.message
    assert SIGNATURE not in str(caught.value)  # the query of a presigned URL is a credential
    assert not hosted.sent("GET", "/api/upload/status/")


def test_a_relative_upload_url_is_taken_from_the_service_address(
    hosted: Hosted, hosted_client: Client
) -> None:
    hosted.answer(
        "POST",
        API + "/api/upload/presigned-url",
        200,
        {"fileId": str(FILE_ID), "uploadUrl": "/storage/put/48213?sig=1"},
    )
    hosted.answer("PUT", API + "/storage/put/48213", 200, {})
    hosted_client.upload(b"...", filename="clip.mp4")
    (put,) = hosted.sent("PUT", "/storage/put/")
    assert str(put.url).startswith(BASE_URL) and "X-API-Key" not in put.headers


def test_presign_and_put_can_be_driven_step_by_step(hosted: Hosted, hosted_client: Client) -> None:
    upload = hosted_client.presign(filename="a.jpg", content_type="image/jpeg", folder_id="7")
    assert upload.file_id == str(FILE_ID) and upload.upload_url.startswith(STORAGE)
    hosted_client.put_file(upload, b"jpeg bytes", content_type="image/jpeg", filename="a.jpg")
    (presign,) = hosted.sent("POST", "/api/upload/presigned-url")
    assert b'"folderId":"7"' in presign.read()
    assert hosted.stored[f"{FILE_ID}/a.jpg"] == b"jpeg bytes"


def test_bad_sources_are_refused_before_anything_is_sent(
    hosted: Hosted, hosted_client: Client, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="filename="):
        hosted_client.upload(b"...")
    with pytest.raises(ValueError, match="content_type="):
        hosted_client.upload(b"...", filename="notes.unknownext")
    with pytest.raises(FileNotFoundError):
        hosted_client.upload(tmp_path / "missing.mp4")
    assert hosted.requests == []


def test_polls_start_quick_and_settle_at_the_poll_interval(
    hosted: Hosted, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small file is seen ready within a second; a long video is polled every 5 s."""
    pauses: list[float] = []
    monkeypatch.setattr("pressroom.client._sync.time.sleep", pauses.append)
    hosted.answer_in_turn("GET", STATUS, [status("processing")] * 7 + [status("ready")])
    http = httpx.Client(transport=hosted.transport())
    with Client(base_url=BASE_URL, api_key=API_KEY, http_client=http) as client:
        assert client.wait_until_ready(str(FILE_ID)).is_ready
    assert pauses == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0, 5.0]
