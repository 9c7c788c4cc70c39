"""The client's media and folder methods against the real app, on SQLite and PostgreSQL.

No mocks: ``service.client`` is starlette's TestClient (an httpx.Client) over the real
app, its local storage backend and its background processing. The local backend's
``uploadUrl`` points at the service itself (``http://testserver`` in tests).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from pressroom.client import (
    Client,
    ConflictError,
    FileProcessingFailed,
    NotFoundError,
    RateLimitError,
    UploadProgress,
    ValidationError,
)
from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.service.db.models import UploadUsage
from pressroom.service.db.session import transaction
from tests.client.conftest import Media
from tests.conftest import AccountHandle, Service

MakeClient = Callable[..., Client]


def record_requests(http: httpx.Client) -> list[httpx.Request]:
    """Every request sent through ``http`` from now on."""
    seen: list[httpx.Request] = []
    http.event_hooks["request"].append(seen.append)
    return seen


def phases(events: list[UploadProgress]) -> list[str]:
    """The phases in order, runs of the same phase folded into one."""
    folded: list[str] = []
    for event in events:
        if not folded or folded[-1] != event.phase:
            folded.append(event.phase)
    return folded


# --- uploads -------------------------------------------------------------------------


def test_upload_of_a_path_streams_it_without_the_key_and_waits_until_ready(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    account = service.account()
    sent = record_requests(service.client)
    events: list[UploadProgress] = []

    video = client_for(account).upload(media.video, on_progress=events.append)

    assert (video.status, video.is_ready, video.kind) == ("ready", True, "video")
    assert (video.filename, video.content_type) == ("launch.mp4", "video/mp4")
    assert video.size == media.video.stat().st_size
    assert video.duration_seconds == pytest.approx(4, abs=0.2)
    assert (video.width, video.height) == (64, 48)
    assert video.failure_reason is None and video.media_format
    puts = [r for r in sent if r.method == "PUT"]
    assert len(puts) == 1
    assert str(puts[0].url).startswith("http://testserver/")
    assert "x-api-key" not in puts[0].headers
    assert puts[0].headers["content-type"] == "video/mp4"
    # Progress: the bytes, then polls while processing, then ready once, last.
    assert phases(events)[0] == "uploading" and phases(events)[-1] == "ready"
    assert set(phases(events)) <= {"uploading", "waiting", "ready"}
    uploading = [e for e in events if e.phase == "uploading"]
    assert uploading[-1].bytes_sent == uploading[-1].total_bytes == video.size
    assert [e.phase for e in events].count("ready") == 1
    assert events[-1].status is not None and events[-1].status.file_id == video.file_id


def test_upload_of_bytes_needs_a_name_and_reports_progress_to_readiness(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    client = client_for(service.account())
    data = media.png.read_bytes()
    events: list[UploadProgress] = []

    image = client.upload(data, filename="cover.png", on_progress=events.append)

    assert (image.status, image.kind, image.content_type) == ("ready", "image", "image/png")
    assert (image.size, image.width, image.height) == (len(data), 64, 36)
    assert phases(events)[0] == "uploading" and events[-1].phase == "ready"
    assert events[0].total_bytes == len(data)
    assert client.download(image.file_id) == data


def test_presign_put_file_and_wait_until_ready_are_the_upload_in_steps(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    client = client_for(service.account())
    folder = client.create_folder(name="Launch")
    upload = client.presign(filename="photo.jpg", content_type="image/jpeg", folder_id=folder.id)

    assert upload.upload_url.startswith("http://testserver/")
    assert upload.expires_at is not None and upload.expires_at > datetime.now(UTC)
    pending = client.file_status(upload.file_id)
    assert (pending.status, pending.is_ready, pending.size) == ("pending_upload", False, None)
    assert pending.folder_id == folder.id

    client.put_file(upload, media.jpeg)
    ready = client.wait_until_ready(upload.file_id)
    assert (ready.status, ready.kind, ready.folder_id) == ("ready", "image", folder.id)
    assert client.file_status(upload.file_id).size == media.jpeg.stat().st_size

    # An upload URL is good for one PUT.
    with pytest.raises(ConflictError) as again:
        client.put_file(upload, media.jpeg)
    assert (again.value.status, again.value.code) == (409, "upload_url_used")
    signature = httpx.URL(upload.upload_url).params["signature"]
    assert signature not in str(again.value)  # the URL's query is its credential


def test_upload_without_waiting_returns_the_status_after_the_put(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    client = client_for(service.account())
    started = client.upload(media.video, wait=False)
    assert started.status in ("processing", "ready")
    assert client.wait_until_ready(started.file_id).is_ready


def test_a_file_that_fails_processing_raises_with_the_services_reason(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    client = client_for(service.account())
    with pytest.raises(FileProcessingFailed) as caught:
        client.upload(media.fake_mp4)
    failed = caught.value
    assert failed.status == "failed" and failed.transient is False
    status = client.file_status(failed.file_id)
    assert status.is_failed and status.failure_reason
    assert failed.reason == status.failure_reason
    assert status.failure_reason in str(failed)
    # Waiting again on a failed file says the same at once.
    with pytest.raises(FileProcessingFailed):
        client.wait_until_ready(failed.file_id)


def test_an_unsupported_content_type_is_refused_before_any_upload(
    service: Service, client_for: MakeClient
) -> None:
    client = client_for(service.account())
    with pytest.raises(ValidationError) as caught:
        client.presign(filename="notes.txt", content_type="text/plain")
    assert caught.value.code == "unsupported_media_type"
    assert caught.value.field == "contentType"


def set_monthly_uploads(service: Service, account: AccountHandle, uploads: int) -> None:
    month = datetime.now(UTC).strftime("%Y-%m")
    with transaction(service.sessions) as db:
        db.merge(UploadUsage(account_id=account.id, month=month, uploads=uploads))


def test_the_monthly_upload_quota_is_a_final_rate_limit_error(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account(Plan.BUSINESS)
    set_monthly_uploads(service, account, PLAN_LIMITS[Plan.BUSINESS].monthly_uploads)
    with pytest.raises(RateLimitError) as caught:
        client_for(account).upload(b"\x89PNG", filename="a.png")
    error = caught.value
    assert (error.status, error.code) == (429, "upload_quota_exceeded")
    assert error.transient is False
    assert error.retry_after is not None and error.retry_after > 0


# --- the library ---------------------------------------------------------------------


def test_files_are_listed_newest_first_page_by_page(
    service: Service, client_for: MakeClient
) -> None:
    client = client_for(service.account())
    with pytest.raises(NotFoundError) as caught:
        client.latest_file()
    assert caught.value.code == "no_files"

    ids = [client.presign(filename=f"{n}.png", content_type="image/png").file_id for n in range(3)]
    newest_first = ids[::-1]

    first = client.list_files(limit=2)
    assert [f.file_id for f in first.files] == newest_first[:2]
    assert first.next_cursor is not None
    rest = client.list_files(limit=2, cursor=first.next_cursor)
    assert [f.file_id for f in rest.files] == newest_first[2:]
    assert rest.next_cursor is None
    assert [f.file_id for f in client.iter_files(page_size=2)] == newest_first
    assert [f.filename for f in client.iter_files()] == ["2.png", "1.png", "0.png"]
    assert client.latest_file().file_id == newest_first[0]


def test_download_returns_the_bytes_and_download_to_writes_them(
    service: Service, client_for: MakeClient, media: Media, tmp_path: Path
) -> None:
    client = client_for(service.account())
    video = client.upload(media.video)
    assert client.download(video.file_id) == media.video.read_bytes()

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    target = client.download_to(video.file_id, downloads / "copy.mp4")
    assert target == downloads / "copy.mp4"
    assert target.read_bytes() == media.video.read_bytes()
    assert [p.name for p in downloads.iterdir()] == ["copy.mp4"]  # no .part left behind


def test_a_file_still_uploading_cannot_be_downloaded_yet(
    service: Service, client_for: MakeClient
) -> None:
    client = client_for(service.account())
    upload = client.presign(filename="a.png", content_type="image/png")
    with pytest.raises(ConflictError) as caught:
        client.download(upload.file_id)
    assert caught.value.code == "file_not_ready"


def test_a_deleted_file_is_gone_for_good(
    service: Service, client_for: MakeClient, media: Media, tmp_path: Path
) -> None:
    client = client_for(service.account())
    image = client.upload(media.png)
    downloads = tmp_path / "downloads"
    downloads.mkdir()

    deleted = client.delete_file(image.file_id)
    assert (deleted.success, deleted.file_id) == (True, image.file_id)

    for attempt in (
        lambda: client.download(image.file_id),
        lambda: client.download_to(image.file_id, downloads / "gone.png"),
        lambda: client.file_status(image.file_id),
        lambda: client.delete_file(image.file_id),
    ):
        with pytest.raises(NotFoundError) as caught:
            attempt()
        assert caught.value.code == "file_not_found"
    assert list(downloads.iterdir()) == []
    assert list(client.iter_files()) == []
    # Another account's file is as unknown as a deleted one.
    other = client_for(service.account()).upload(media.png)
    with pytest.raises(NotFoundError):
        client.download(other.file_id)


def test_a_file_moves_into_a_folder_and_out_again(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    client = client_for(service.account())
    image = client.upload(media.png)
    folder = client.create_folder(name="Covers")

    moved = client.move_file(image.file_id, folder_id=folder.id)
    assert (moved.file_id, moved.folder_id, moved.status) == (image.file_id, folder.id, "ready")
    assert [f.file_id for f in client.list_folder_files(folder.id).files] == [image.file_id]

    out = client.move_file(image.file_id, folder_id=None)
    assert out.folder_id is None
    assert client.file_status(image.file_id).folder_id is None
    assert client.list_folder_files(folder.id).files == []

    with pytest.raises(NotFoundError) as caught:
        client.move_file(image.file_id, folder_id="fld_unknown")
    assert caught.value.code == "folder_not_found"


# --- folders -------------------------------------------------------------------------


def test_folders_are_created_listed_and_renamed(service: Service, client_for: MakeClient) -> None:
    client = client_for(service.account())
    made = [client.create_folder(name=name) for name in ("Spring", "Summer", "Autumn")]
    assert [(f.name, f.file_count) for f in made] == [("Spring", 0), ("Summer", 0), ("Autumn", 0)]
    assert all(f.id and f.created_at is not None for f in made)

    first = client.list_folders(limit=2)
    assert [f.name for f in first.folders] == ["Autumn", "Summer"]
    assert first.next_cursor is not None
    assert [f.name for f in client.list_folders(cursor=first.next_cursor).folders] == ["Spring"]
    assert [f.id for f in client.iter_folders(page_size=1)] == [f.id for f in made[::-1]]

    renamed = client.rename_folder(made[0].id, name="Early spring")
    assert (renamed.id, renamed.name) == (made[0].id, "Early spring")
    assert {f.id: f.name for f in client.iter_folders()}[made[0].id] == "Early spring"

    with pytest.raises(ValidationError) as caught:
        client.create_folder(name="")
    assert caught.value.field == "name"
    with pytest.raises(NotFoundError) as missing:
        client.rename_folder("fld_unknown", name="x")
    assert missing.value.code == "folder_not_found"


def test_folder_files_are_listed_and_deleted_with_the_folder(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    client = client_for(service.account())
    folder = client.create_folder(name="Launch")
    inside = [
        client.upload(media.png.read_bytes(), filename=f"{n}.png", folder_id=folder.id)
        for n in range(3)
    ]
    outside = client.upload(media.png)

    page = client.list_folder_files(folder.id, limit=2)
    assert [f.file_id for f in page.files] == [inside[2].file_id, inside[1].file_id]
    assert [f.file_id for f in client.iter_folder_files(folder.id, page_size=2)] == [
        f.file_id for f in inside[::-1]
    ]
    renamed = client.rename_folder(folder.id, name="Launch day")
    assert renamed.file_count == 3
    assert len(client.list_folder_files(folder.id).files) == 3  # the files stay

    deleted = client.delete_folder(folder.id)
    assert (deleted.success, deleted.folder_id, deleted.deleted_files) == (True, folder.id, 3)
    for file in inside:
        with pytest.raises(NotFoundError):
            client.download(file.file_id)
    assert [f.file_id for f in client.iter_files()] == [outside.file_id]
    assert list(client.iter_folders()) == []
    with pytest.raises(NotFoundError) as caught:
        client.list_folder_files(folder.id)
    assert caught.value.code == "folder_not_found"


def test_files_are_found_by_content_and_only_ready_ones_match(
    service: Service, client_for: MakeClient, media: Media
) -> None:
    account = service.account()
    client = client_for(account)
    digest = hashlib.sha256(media.png.read_bytes()).hexdigest()
    assert client.find_files(sha256=digest) == []
    uploaded = client.upload(media.png)
    assert uploaded.sha256 == digest
    client.upload(media.jpeg)
    found = client.find_files(sha256=digest.upper())
    assert [f.file_id for f in found] == [uploaded.file_id]
    assert client.find_files(sha256="0" * 64) == []
    # Another account's identical bytes are not this account's.
    assert client_for(service.account()).find_files(sha256=digest) == []
