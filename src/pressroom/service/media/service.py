"""Media library rules: what may be uploaded, the monthly quota, reading and deleting files."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.probe import file_kind_of
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import Account, Derivative, File
from pressroom.service.errors import ServiceError
from pressroom.service.folders.repository import FolderRepository
from pressroom.service.media import states
from pressroom.service.media.hooks import after_commit
from pressroom.service.media.intake import delete_bytes, delete_quietly, refresh
from pressroom.service.media.library import MediaLibrary
from pressroom.service.media.pagination import Page, Position, decode_cursor, encode_cursor
from pressroom.service.media.repository import (
    DerivativeRepository,
    FileRepository,
    UsageRepository,
    month_of,
)
from pressroom.service.media.schemas import ACCEPTED_TYPES, MAX_FILENAME
from pressroom.service.schemas import iso_utc
from pressroom.service.storage.base import derived_key, final_key


@dataclass(frozen=True)
class IssuedUpload:
    file: File
    upload_url: str


def request_upload(
    db: Session,
    library: MediaLibrary,
    account: Account,
    *,
    filename: str,
    content_type: str,
    folder_id: str | None,
) -> IssuedUpload:
    """A file record and a URL to PUT its bytes to; counts toward the monthly quota."""
    kind = check_upload_request(filename, content_type)
    if folder_id is not None:
        require_folder(db, account, folder_id)
    now = utcnow()
    take_upload_quota(db, account, now)
    file_id = new_id("file")
    expires_at = now + timedelta(seconds=library.settings.store.upload_url_ttl_seconds)
    file = FileRepository(db).add(
        File(
            id=file_id,
            account_id=account.id,
            folder_id=folder_id,
            filename=filename,
            content_type=content_type,
            kind=kind,
            status=states.PENDING_UPLOAD,
            storage_key=final_key(file_id),
            created_at=now,
            upload_expires_at=expires_at,
        )
    )
    url = library.storage.presign_upload(file_id, content_type, expires_at)
    return IssuedUpload(file, url)


def check_upload_request(filename: str, content_type: str) -> str:
    """The file's kind, or the 400 naming the field and the rule that was broken."""
    kind = file_kind_of(content_type)
    if kind is None:
        raise ServiceError(
            error_codes.UNSUPPORTED_MEDIA,
            f"contentType {content_type!r} is not accepted; use one of "
            f"{', '.join(ACCEPTED_TYPES)}.",
            field="contentType",
        )
    if not filename.strip():
        raise ServiceError(error_codes.VALIDATION_ERROR, "filename is empty.", field="filename")
    if len(filename) > MAX_FILENAME:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"filename is {len(filename)} characters; at most {MAX_FILENAME} are allowed.",
            field="filename",
        )
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in filename):
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "filename contains control characters.",
            field="filename",
        )
    extensions = ACCEPTED_TYPES[content_type][1]
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, suffix = base.rpartition(".")
    if not dot or not stem.strip(".") or not suffix:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"filename {filename!r} has no extension; for {content_type} end it with "
            f"{' or '.join(extensions)}.",
            field="filename",
        )
    if f".{suffix.lower()}" not in extensions:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"filename's extension .{suffix} does not match contentType {content_type}; "
            f"use {' or '.join(extensions)}.",
            field="filename",
        )
    return kind.value


def take_upload_quota(db: Session, account: Account, now: datetime) -> None:
    limit = PLAN_LIMITS[Plan(account.plan)].monthly_uploads
    month = month_of(now)
    if UsageRepository(db).take(account.id, month, limit):
        return
    resets = next_month(now)
    seconds = max(1, math.ceil((resets - now).total_seconds()))
    raise ServiceError(
        error_codes.UPLOAD_QUOTA,
        f"The {account.plan} plan's {limit} uploads for {month} are used up; "
        f"the count resets at {iso_utc(resets)}.",
        headers={"Retry-After": str(seconds), "X-Upload-Quota-Reset": iso_utc(resets)},
    )


def next_month(now: datetime) -> datetime:
    now = now.astimezone(UTC)
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return datetime(year, month, 1, tzinfo=UTC)


def require_folder(db: Session, account: Account, folder_id: str) -> None:
    """404 unless the folder is the caller's; locks it so a folder deletion waits for us."""
    if FolderRepository(db).get_owned(account.id, folder_id, lock=True) is None:
        raise ServiceError(
            error_codes.FOLDER_NOT_FOUND,
            f"No folder {folder_id!r} in this account.",
            field="folderId",
        )


def get_file(db: Session, account: Account, file_id: str) -> File:
    file = FileRepository(db).get_owned(account.id, file_id)
    if file is None:
        raise ServiceError(error_codes.FILE_NOT_FOUND, f"No file {file_id!r} in this account.")
    return file


def file_status(db: Session, library: MediaLibrary, account: Account, file_id: str) -> File:
    """The file, with an upload that arrived in the store noticed first."""
    return refresh(db, library, get_file(db, account, file_id))


def list_files(
    db: Session,
    account: Account,
    *,
    limit: int,
    cursor: str | None,
    folder_id: str | None = None,
    sha256: str | None = None,
) -> Page[File]:
    rows = FileRepository(db).page(
        account.id,
        limit=limit,
        after=decode_cursor(cursor),
        folder_id=folder_id,
        ready_with_sha256=sha256.lower() if sha256 is not None else None,
    )
    items = rows[:limit]
    more = len(rows) > limit
    next_cursor = encode_cursor(Position(items[-1].created_at, items[-1].id)) if more else None
    return Page(items, next_cursor)


def derivatives_of(db: Session, files: list[File]) -> dict[str, list[Derivative]]:
    """Each file's derived files (those made for a network, or being made)."""
    return DerivativeRepository(db).of_files([f.id for f in files])


def latest_file(db: Session, account: Account) -> File:
    file = FileRepository(db).latest(account.id)
    if file is None:
        raise ServiceError(error_codes.NO_FILES, "This account has no files yet.")
    return file


def move_file(db: Session, account: Account, file_id: str, folder_id: str | None) -> File:
    file = get_file(db, account, file_id)
    if folder_id is not None:
        require_folder(db, account, folder_id)
    file.folder_id = folder_id
    db.flush()
    return file


def delete_file(db: Session, library: MediaLibrary, account: Account, file_id: str) -> None:
    """The record goes now; the bytes once that is committed (or, failing that, at the sweep)."""
    file = get_file(db, account, file_id)
    remove_files(db, library, [file])


def remove_files(db: Session, library: MediaLibrary, files: list[File]) -> None:
    """The files' records go now (their derived files' with them); the bytes of both
    once that is committed (or, failing that, at the sweep)."""
    doomed = [(f.id, f.storage_key) for f in files]
    derived = [
        derived_key(d.id)
        for found in DerivativeRepository(db).of_files([f.id for f in files]).values()
        for d in found
    ]
    FileRepository(db).remove(files)

    def delete_all() -> None:
        for file_id, key in doomed:
            delete_bytes(library, file_id, key)
        for key in derived:
            delete_quietly(library, key)

    if doomed:
        after_commit(db, delete_all)
