"""The one check every publish makes on a file: the caller's own, and ready."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.service.db.models import Account, File
from pressroom.service.errors import ServiceError
from pressroom.service.media.states import FAILED, PENDING_UPLOAD, READY

__all__ = ["FAILED", "READY", "require_ready_file"]


def require_ready_file(db: Session, account: Account, file_id: str, *, field: str) -> File:
    """404 for an unknown or foreign id, 409 while uploading or processing, 400 if failed.

    For a file still ``pending_upload`` the service also looks in storage (on s3 the
    store does not tell us about uploads) once ``db``'s transaction has ended, so the
    409 this raises does not roll the noticed upload back. Sessions not made by the app
    (no media library attached) skip that look.
    """
    file = db.scalar(select(File).where(File.id == file_id, File.account_id == account.id))
    if file is None:
        raise ServiceError(
            error_codes.FILE_NOT_FOUND, f"No file {file_id!r} in this account.", field=field
        )
    if file.status == PENDING_UPLOAD:
        _notice_when_done(db, file_id)
    if file.status == FAILED:
        raise ServiceError(
            error_codes.FILE_FAILED,
            f"File {file_id!r} failed processing: {file.failure_reason}",
            field=field,
        )
    if file.status != READY:
        raise ServiceError(
            error_codes.FILE_NOT_READY,
            f"File {file_id!r} is {file.status.replace('_', ' ')}; poll "
            f"/api/upload/status/{file_id} until it is ready.",
            field=field,
        )
    return file


def _notice_when_done(db: Session, file_id: str) -> None:
    from pressroom.service.media.hooks import after_transaction
    from pressroom.service.media.intake import notice_in_own_transaction
    from pressroom.service.media.library import library_of

    library = library_of(db)
    if library is None:
        return

    def look() -> None:
        notice_in_own_transaction(library, file_id)

    after_transaction(db, look)
