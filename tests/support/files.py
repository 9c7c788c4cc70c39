"""``files`` rows made straight in the database, for tests of what consumes them.

Publishing reads a file's owner, status, kind and probed facts; uploads and processing
are the media library's, tested there. The facts meet every network's media rules (a
JPEG image, an H.264 video at 30 frames a second, sizes every network takes), so a
post of such a file goes as it is: fitting a file for a network is tested on real
uploads (``tests/service/test_media_fitting.py``).
"""

from __future__ import annotations

from datetime import timedelta

from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import File
from pressroom.service.db.session import transaction
from tests.conftest import AccountHandle

CONTENT_TYPES = {"image": "image/jpeg", "video": "video/mp4"}
SIZES = {"image": (1080, 1080), "video": (1280, 720)}


def make_file(
    account: AccountHandle,
    kind: str = "image",
    *,
    status: str = "ready",
    duration: float | None = None,
    failure_reason: str | None = None,
) -> str:
    """A file of the account; a video defaults to 30 s. Returns its id."""
    if kind == "video" and duration is None:
        duration = 30.0
    now = utcnow()
    file_id = new_id("file")
    extension = "jpg" if kind == "image" else "mp4"
    width, height = SIZES[kind]
    with transaction(account.service.sessions) as db:
        db.add(
            File(
                id=file_id,
                account_id=account.id,
                filename=f"{file_id}.{extension}",
                content_type=CONTENT_TYPES[kind],
                kind=kind,
                status=status,
                storage_key=f"{account.id}/{file_id}",
                size=1024 if status != "pending_upload" else None,
                created_at=now,
                upload_expires_at=now + timedelta(hours=1),
                uploaded_at=now if status != "pending_upload" else None,
                processed_at=now if status in ("ready", "failed") else None,
                duration_seconds=duration if kind == "video" else None,
                width=width,
                height=height,
                video_codec="h264" if kind == "video" else None,
                frame_rate=30.0 if kind == "video" else None,
                failure_reason=failure_reason
                or ("the video stream could not be decoded" if status == "failed" else None),
            )
        )
    return file_id


def make_document(
    account: AccountHandle, *, pages: int = 12, size: int = 200_000, status: str = "ready"
) -> str:
    """A PDF of the account, as the media library records one it has read: kind
    ``document``, its page count, no picture. Returns its id."""
    now = utcnow()
    file_id = new_id("file")
    with transaction(account.service.sessions) as db:
        db.add(
            File(
                id=file_id,
                account_id=account.id,
                filename=f"{file_id}.pdf",
                content_type="application/pdf",
                kind="document",
                status=status,
                storage_key=f"{account.id}/{file_id}",
                size=size,
                created_at=now,
                upload_expires_at=now + timedelta(hours=1),
                uploaded_at=now,
                processed_at=now if status in ("ready", "failed") else None,
                media_format="PDF 1.7",
                pages=pages,
            )
        )
    return file_id
