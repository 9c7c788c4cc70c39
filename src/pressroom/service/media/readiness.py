"""The one check every publish makes on a file: the caller's own, and ready."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.service.db.models import Account, File
from pressroom.service.errors import ServiceError

READY = "ready"
FAILED = "failed"


def require_ready_file(db: Session, account: Account, file_id: str, *, field: str) -> File:
    """404 for an unknown or foreign id, 409 while uploading or processing, 400 if failed."""
    file = db.scalar(select(File).where(File.id == file_id, File.account_id == account.id))
    if file is None:
        raise ServiceError(
            error_codes.FILE_NOT_FOUND, f"No file {file_id!r} in this account.", field=field
        )
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
