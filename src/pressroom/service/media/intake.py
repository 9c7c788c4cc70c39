"""Noticing uploaded bytes: the step from ``pending_upload`` to ``processing``.

On ``local`` the upload route does this itself once the PUT is complete. On ``s3`` the
store tells us nothing, so the service looks (HEAD) whenever it meets a pending file: a
status call, a publish that needs the file, the start-up pass and the periodic
housekeeping. Since S3 cannot refuse a second PUT or an oversized body, those rules are
applied here: an object over ``PRESSROOM_MAX_UPLOAD_BYTES`` is deleted and the file
marked failed, and an object PUT after the upload was accepted is deleted on sight.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy.orm import Session

from pressroom.service.db.base import utcnow
from pressroom.service.db.models import File
from pressroom.service.db.session import transaction
from pressroom.service.media import jobs, states
from pressroom.service.media.hooks import after_commit
from pressroom.service.media.library import MediaLibrary
from pressroom.service.media.repository import FileRepository
from pressroom.service.storage import StorageError, StoredObject
from pressroom.service.storage.base import poster_key

log = logging.getLogger(__name__)


def describe_size(size: int) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"


def too_large_reason(size: int | None, limit: int) -> str:
    got = f" ({describe_size(size)})" if size is not None else ""
    return (
        f"The upload{got} is over the {describe_size(limit)} limit "
        f"({limit} bytes) and was refused; nothing was kept."
    )


def upload_window_closed(library: MediaLibrary, file: File) -> bool:
    """True once no PUT to this file's URL can still be arriving."""
    grace = timedelta(seconds=library.settings.store.upload_grace_seconds)
    return utcnow() > file.upload_expires_at + grace


def notice(db: Session, library: MediaLibrary, file: File, found: StoredObject | None) -> None:
    """Move a pending file on, given what the store holds under its upload key
    (``found``, looked up before this transaction), in ``db``'s transaction.

    ``db`` must be able to write (on SQLite: a ``writing_session``).
    """
    if file.status != states.PENDING_UPLOAD:
        return
    limit = library.settings.store.max_upload_bytes
    repo = FileRepository(db)
    key = library.storage.upload_key(file.id)
    now = utcnow()
    if found is None:
        if upload_window_closed(library, file):
            repo.move(
                file.id,
                states.PENDING_UPLOAD,
                status=states.FAILED,
                failure_reason="No upload arrived before the upload URL expired; "
                "request a new URL and upload again.",
                processed_at=now,
            )
            db.refresh(file)
        return
    if found.size > limit:
        if repo.move(
            file.id,
            states.PENDING_UPLOAD,
            status=states.FAILED,
            failure_reason=too_large_reason(found.size, limit),
            processed_at=now,
        ):
            after_commit(db, lambda: delete_quietly(library, key))
        db.refresh(file)
        return
    if repo.move(
        file.id, states.PENDING_UPLOAD, status=states.PROCESSING, size=found.size, uploaded_at=now
    ):
        jobs.enqueue(db, file.id)
        after_commit(db, library.processor.wake)
    db.refresh(file)


def notice_in_own_transaction(library: MediaLibrary, file_id: str) -> File | None:
    """``notice`` for callers holding only a read session; returns the fresh record.

    The store is asked first, with no transaction open: an S3 HEAD may take a while,
    and a unit of work never waits on the network while it holds the database.
    """
    try:
        found = library.storage.stat(library.storage.upload_key(file_id))
    except StorageError:
        log.warning("cannot look for the upload of %s now", file_id, exc_info=True)
        with transaction(library.sessions, write=False) as db:
            return FileRepository(db).get(file_id)
    with transaction(library.sessions) as db:
        file = FileRepository(db).get(file_id)
        if file is not None:
            notice(db, library, file, found)
        return file


def refuse_late_put(library: MediaLibrary, file: File) -> None:
    """On s3, delete bytes PUT to a URL whose upload was already accepted."""
    storage = library.storage
    key = storage.upload_key(file.id)
    if key == file.storage_key or file.status not in (states.READY, states.FAILED):
        return
    if upload_window_closed(library, file):
        return  # no PUT can arrive any more; the sweep catches anything older
    try:
        if storage.stat(key) is not None:
            log.info("removing a second upload to the URL of %s", file.id)
            storage.delete(key)
    except StorageError:
        log.warning("cannot check for a second upload of %s now", file.id, exc_info=True)


def refresh(db: Session, library: MediaLibrary, file: File) -> File:
    """The file as it is now: uploads noticed, late PUTs removed. Safe in a read session."""
    if file.status == states.PENDING_UPLOAD:
        fresh = notice_in_own_transaction(library, file.id)
        return fresh if fresh is not None else file
    refuse_late_put(library, file)
    return file


def delete_quietly(library: MediaLibrary, key: str) -> None:
    try:
        library.storage.delete(key)
    except StorageError:
        log.warning("could not delete %s; the sweep will", key, exc_info=True)


def delete_bytes(library: MediaLibrary, file_id: str, storage_key: str) -> None:
    """Remove every object a file may have; failures are left to the sweep."""
    for key in {storage_key, library.storage.upload_key(file_id), poster_key(file_id)}:
        delete_quietly(library, key)
