"""From bytes to ``ready`` or ``failed``: real probing of real media, off the request path."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import update

from pressroom.service.db.base import utcnow
from pressroom.service.db.models import MediaJob
from pressroom.service.db.session import transaction
from tests.support.files import make_file
from tests.support.waiting import wait_until

if TYPE_CHECKING:
    from tests.support.library import Library, MediaFiles

pytest_plugins = ("tests.support.library",)

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

MINUTE = timedelta(minutes=1)


def test_videos_report_their_real_duration_and_size(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    short = library.upload(account, media_files.video2)
    long = library.upload(account, media_files.long_video, filename="keynote.mp4")
    short_status, long_status = library.wait(account, short), library.wait(account, long)
    assert short_status["status"] == long_status["status"] == "ready"
    assert abs(short_status["durationSeconds"] - 2.0) < 0.2
    assert (short_status["width"], short_status["height"]) == (48, 64)
    assert long_status["durationSeconds"] == pytest.approx(720, abs=1)
    assert (long_status["width"], long_status["height"]) == (16, 16)


def test_jpeg_is_probed_as_an_image(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    status = library.wait(account, library.upload(account, media_files.jpeg))
    assert status["status"] == "ready"
    assert (status["kind"], status["mediaFormat"], status["width"], status["height"]) == (
        "image",
        "JPEG",
        40,
        30,
    )


def test_text_named_mp4_fails_with_a_reason_a_person_understands(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    status = library.wait(account, library.upload(account, media_files.fake_mp4))
    assert status["status"] == "failed"
    assert status["failureReason"].startswith("The file is not a readable video")
    assert status["durationSeconds"] is None and status["width"] is None
    assert library.stored() == set()  # a refused file keeps no bytes


@pytest.mark.parametrize(
    ("source", "filename", "says"),
    [
        ("png", "photo.jpg", "is a PNG image, but its content type says image/jpeg"),
        ("jpeg", "clip.mp4", "content type says video/mp4"),
        ("video4", "still.png", "not a readable image"),
    ],
)
def test_bytes_that_are_not_what_the_content_type_says_fail(
    library: Library, media_files: MediaFiles, source: str, filename: str, says: str
) -> None:
    account = library.account()
    path: Path = getattr(media_files, source)
    status = library.wait(account, library.upload(account, path, filename=filename))
    assert status["status"] == "failed"
    assert says in status["failureReason"]


def test_a_failure_reason_names_the_rule_and_never_a_server_path(library: Library) -> None:
    """Pillow's own words name the file it opened (``cannot identify image file
    '<data dir>/media/files/file_…'``); clients, the dashboard and webhook receivers get
    the rule instead, and the decoder's words stay in the log."""
    account = library.account()
    file_id = library.upload(account, b"these bytes are no picture" * 40, filename="photo.png")
    status = library.wait(account, file_id)
    assert status["status"] == "failed"
    assert status["failureReason"] == (
        "The file is not a readable image: its bytes are not a whole JPEG, PNG, GIF or WebP image."
    )
    shown = str(status)
    assert str(library.settings.data_dir.resolve()) not in shown
    assert "cannot identify" not in shown and "/media/" not in shown


def test_truncated_image_fails(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    whole = media_files.jpeg.read_bytes()
    status = library.wait(
        account, library.upload(account, whole[: len(whole) // 2], filename="cut.jpg")
    )
    assert status["status"] == "failed"
    assert "not a readable image" in status["failureReason"]


def test_processing_is_picked_up_again_after_a_restart(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    """The first app stops while the file is held in ``processing``; the next finishes it."""
    first = library_factory(processing_delay_ms=60_000)
    account = first.account()
    file_id = first.upload(account, media_files.video4)
    assert first.wait(account, file_id, until=("processing",))["status"] == "processing"
    first.close()

    second = library_factory()
    status = second.wait(account, file_id)
    assert status["status"] == "ready"
    assert abs(status["durationSeconds"] - 4.0) < 0.2


def test_a_job_held_by_a_live_worker_is_not_taken_until_its_lease_runs_out(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's worker claimed the file (and keeps its lease): this one's workers
    look for it and are refused, seen in their claims and the job row, not in how long the
    test waited. Once that lease runs out (the worker died), this one takes the job and
    finishes."""
    from pressroom.service.media import jobs

    worker, claim = library.media.processor.owner, jobs.claim
    armed = threading.Event()
    answers: list[jobs.Job | None] = []
    lock = threading.Lock()

    def watched(sessions: Any, owner: str, lease: timedelta) -> jobs.Job | None:
        """The real claim; this worker's answers recorded once the held job is committed."""
        counted = armed.is_set() and owner == worker
        taken = claim(sessions, owner, lease)
        if counted:
            with lock:
                answers.append(taken)
        return taken

    monkeypatch.setattr(jobs, "claim", watched)
    account = library.account()
    file_id = make_file(account, "video", status="processing")
    with transaction(library.service.sessions) as db:
        jobs.enqueue(db, file_id)
        db.execute(
            update(MediaJob)
            .where(MediaJob.file_id == file_id)
            .values(claimed_by="another-host:1:dead", lease_expires_at=utcnow() + MINUTE)
        )
    armed.set()  # every claim counted from here began after the held job was committed
    library.media.processor.wake()

    def tries() -> list[jobs.Job | None]:
        with lock:
            return list(answers)

    wait_until(lambda: len(tries()) >= 2, "two claims by this process's workers")
    seen = tries()
    assert seen == [None] * len(seen), "a worker took a job held under a live lease"
    [(job, owner, _, attempts)] = jobs.waiting(library.service.sessions)
    assert (job, owner, attempts) == (file_id, "another-host:1:dead", 0)
    assert library.status(account, file_id)["status"] == "processing"  # still theirs

    with transaction(library.service.sessions) as db:  # their minute passes: the worker died
        db.execute(
            update(MediaJob)
            .where(MediaJob.file_id == file_id)
            .values(lease_expires_at=utcnow() - timedelta(seconds=1))
        )
    library.media.processor.wake()
    settled = library.wait(account, file_id)  # their lease ran out: taken and finished here
    assert settled["status"] == "failed"  # the record had no bytes behind it
    assert jobs.Job(file_id) in tries()
    # the worker deletes its job just after recording the file's outcome
    wait_until(lambda: jobs.waiting(library.service.sessions) == [], "no job left")


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_a_job_longer_than_its_lease_stays_with_the_worker_that_renews_it(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    """Processing takes three leases' time; the worker renews its lease while it works, so
    another worker that keeps trying to claim the job never gets it."""
    from pressroom.service.media import jobs

    lease = timedelta(seconds=2)
    library = library_factory(
        job_lease_seconds=int(lease.total_seconds()),
        processing_delay_ms=int(3 * lease.total_seconds() * 1000),
    )
    sessions, worker = library.service.sessions, library.media.processor.owner
    account = library.account()
    started = time.monotonic()
    file_id = library.upload(account, media_files.jpeg)
    deadline = started + 30
    while [(f, owner) for f, owner, _, _ in jobs.waiting(sessions)] != [(file_id, worker)]:
        assert time.monotonic() < deadline, jobs.waiting(sessions)
        time.sleep(0.02)
    taken_by_rival: list[jobs.Job] = []
    while library.status(account, file_id)["status"] == "processing":
        assert time.monotonic() < deadline, "the file never left processing"
        taken = jobs.claim(sessions, "rival-worker", lease)
        if taken is not None:
            taken_by_rival.append(taken)
            jobs.put_back(sessions, "rival-worker")
        time.sleep(0.1)
    assert time.monotonic() - started > 3 * lease.total_seconds()
    assert taken_by_rival == []
    assert library.status(account, file_id)["status"] == "ready"


def test_download_waits_for_ready(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    library = library_factory(processing_delay_ms=60_000)
    account = library.account()
    issued = library.presign(account, "clip.mp4")
    pending = library.client.get(f"/api/upload/direct/{issued['fileId']}", headers=account.headers)
    assert pending.status_code == 409
    assert pending.json()["error"]["code"] == "file_not_ready"
    library.put(issued["uploadUrl"], media_files.video4.read_bytes(), "video/mp4")
    assert library.wait(account, issued["fileId"], until=("processing",))["status"] == "processing"
    held = library.client.get(f"/api/upload/direct/{issued['fileId']}", headers=account.headers)
    assert held.status_code == 409 and "processing" in held.json()["error"]["message"]


def test_failed_file_cannot_be_downloaded(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    file_id = library.upload(account, media_files.fake_mp4)
    library.wait(account, file_id)
    response = library.client.get(f"/api/upload/direct/{file_id}", headers=account.headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "file_failed"
    assert "not a readable video" in response.json()["error"]["message"]


def check_for_publish(library: Library, account_id: str, file_id: str) -> str:
    """What a publish request sees: ``require_ready_file`` in a write transaction."""
    from pressroom.service.db.models import Account
    from pressroom.service.db.session import transaction
    from pressroom.service.errors import ServiceError
    from pressroom.service.media.readiness import require_ready_file

    try:
        with transaction(library.service.sessions) as db:
            account = db.get(Account, account_id)
            assert account is not None
            return require_ready_file(db, account, file_id, field="fileId").status
    except ServiceError as exc:
        assert exc.field == "fileId"
        return exc.error.code


def test_the_publish_check_notices_an_upload_nobody_asked_about(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    # Processing holds each file a moment, so on local storage (where the PUT itself
    # notices the upload) the first check cannot race a probe that already finished.
    library = library_factory(processing_delay_ms=1500)
    account = library.account()
    issued = library.presign(account, "clip.mp4")
    put = library.put(issued["uploadUrl"], media_files.video2.read_bytes(), "video/mp4")
    assert put.status_code == 200
    # No status call: on s3 only the publish check can notice the upload here.
    assert check_for_publish(library, account.id, issued["fileId"]) == "file_not_ready"
    deadline = time.monotonic() + 30
    while check_for_publish(library, account.id, issued["fileId"]) != "ready":
        assert time.monotonic() < deadline, "the upload was never noticed"
        time.sleep(0.05)
    other = library.account()
    assert check_for_publish(library, other.id, issued["fileId"]) == "file_not_found"
    failed = library.upload(account, media_files.fake_mp4)
    library.wait(account, failed)
    assert check_for_publish(library, account.id, failed) == "file_failed"
