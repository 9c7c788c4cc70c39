"""The local backend's upload endpoint: the presigned PUT, streamed to disk.

``PUT /storage/upload/{fileId}?expires=..&signature=..`` with the signed Content-Type
and no API key. The body goes to disk as it arrives, a MiB at a time (a block the
protocol read it into, ``pressroom.service.http_protocol.DirectBody``, or the pieces the
connection delivered), hashed and written on a thread of its own while the next ones
arrive (:mod:`~pressroom.service.media.upload_pipeline`), which gives each block back
for the next MiB once written, so memory stays flat whatever the size. Pieces are never
joined into one buffer first: that copy, and the fresh memory it takes for every MiB,
cost more CPU than hashing the bytes (``benchmarks/README.md``).
Database work happens in short transactions on a worker thread, never while the body is
streaming.
"""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from pressroom import error_codes
from pressroom.service import body_blocks
from pressroom.service.db.base import utcnow
from pressroom.service.db.session import transaction
from pressroom.service.errors import ServiceError, responses
from pressroom.service.media import jobs, states
from pressroom.service.media.hooks import after_commit
from pressroom.service.media.intake import too_large_reason
from pressroom.service.media.library import MediaLibrary
from pressroom.service.media.repository import FileRepository
from pressroom.service.media.runtime import Library
from pressroom.service.media.upload_pipeline import UploadPipeline
from pressroom.service.ops import metrics
from pressroom.service.storage.base import StorageError, final_key
from pressroom.service.storage.local import (
    UPLOAD_PATH,
    InvalidUploadUrl,
    LocalStorage,
    UploadSlot,
    UploadUnavailable,
)

WRITE_SIZE = body_blocks.BLOCK_SIZE
"""Pieces are gathered up to this size per write: a block the protocol read is one write."""
DISK_RETRY_AFTER_SECONDS = 30
"""A full disk or a missing media directory is not put right in a second; an operator
has to act."""

router = APIRouter(tags=["storage"])


@router.put(
    UPLOAD_PATH,
    status_code=200,
    response_class=Response,
    responses={
        200: {"description": "Stored; the file moves on to processing."},
        **responses(
            error_codes.VALIDATION_ERROR,
            error_codes.UPLOAD_SIGNATURE,
            error_codes.UPLOAD_ALREADY_USED,
            error_codes.UPLOAD_TOO_LARGE,
            error_codes.FILE_NOT_FOUND,
            error_codes.STORAGE_UNAVAILABLE,
            authenticated=False,
        ),
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "The file's raw bytes, sent with the Content-Type it was signed for.",
            "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
        }
    },
)
async def receive_upload(
    file_id: str,
    request: Request,
    library: Library,
    expires: Annotated[int, Query()],
    signature: Annotated[str, Query()],
) -> Response:
    """The `uploadUrl` of the local backend. No X-API-Key: the signature authorises it."""
    started = time.perf_counter()
    outcome = "refused"
    try:
        response = await _receive(file_id, request, library, expires, signature)
        outcome = "received" if response.status_code == 200 else "abandoned"
        return response
    finally:
        metrics.UPLOAD_SECONDS.labels(outcome).observe(time.perf_counter() - started)


async def _receive(
    file_id: str, request: Request, library: MediaLibrary, expires: int, signature: str
) -> Response:
    storage = library.storage
    if not isinstance(storage, LocalStorage):
        raise ServiceError(error_codes.NOT_FOUND, "Uploads go to the configured S3 store.")
    content_type = request.headers.get("content-type", "")
    try:
        storage.verify_upload(file_id, content_type, expires, signature, utcnow())
    except InvalidUploadUrl as exc:
        raise ServiceError(error_codes.UPLOAD_SIGNATURE, str(exc)) from None

    limit = library.settings.store.max_upload_bytes
    declared = request.headers.get("content-length")
    size = int(declared) if declared is not None and declared.isdigit() else None
    slot = await run_in_threadpool(_claim, library, storage, file_id)
    if size is not None and size > limit:
        slot.discard()
        raise await run_in_threadpool(_refuse_too_large, library, file_id, size)
    pipeline = UploadPipeline(slot, size)  # from here on its thread owns the file
    try:
        received = 0
        pending: list[bytes] = []  # or blocks, which are bytes-like
        pending_size = 0
        async for chunk in request.stream():
            received += len(chunk)
            if received > limit:
                raise await run_in_threadpool(_refuse_too_large, library, file_id, None)
            pending.append(chunk)
            pending_size += len(chunk)
            if pending_size >= WRITE_SIZE:
                await pipeline.put(pending)
                pending, pending_size = [], 0
        if pending:
            await pipeline.put(pending)
        size, sha256 = await pipeline.finish()
    except ClientDisconnect:
        return Response(status_code=400)  # nobody is listening; the URL stays usable
    except OSError as exc:  # the disk refused the bytes (full, quota, file size limit)
        raise ServiceError(
            error_codes.STORAGE_UNAVAILABLE,
            f"The upload could not be written to disk ({exc.strerror or exc}); nothing was "
            "kept and this URL still works: retry after Retry-After seconds.",
            headers={"Retry-After": str(DISK_RETRY_AFTER_SECONDS)},
        ) from None
    finally:
        await pipeline.abort()  # no-op once finished; otherwise nothing half-written stays
    await run_in_threadpool(_accept, library, storage, file_id, size, sha256)
    return Response(status_code=200)


def _claim(library: MediaLibrary, storage: LocalStorage, file_id: str) -> UploadSlot:
    try:
        slot = storage.claim(file_id)
    except UploadUnavailable as exc:
        raise ServiceError(error_codes.UPLOAD_ALREADY_USED, str(exc)) from None
    except StorageError as exc:  # e.g. the media directory is gone (see LocalStorage.check)
        raise ServiceError(
            error_codes.STORAGE_UNAVAILABLE,
            f"The file store cannot take uploads now ({exc}); nothing was kept and this URL "
            "still works: retry after Retry-After seconds.",
            headers={"Retry-After": str(DISK_RETRY_AFTER_SECONDS)},
        ) from None
    with transaction(library.sessions, write=False) as db:
        file = FileRepository(db).get(file_id)
        status = file.status if file is not None else None
    if status != states.PENDING_UPLOAD:
        slot.discard()
        if status is None:
            raise ServiceError(
                error_codes.FILE_NOT_FOUND, f"File {file_id!r} was deleted; nothing to upload."
            )
        raise ServiceError(
            error_codes.UPLOAD_ALREADY_USED,
            f"This upload URL was already used (file {file_id!r} is {status.replace('_', ' ')}).",
        )
    return slot


def _refuse_too_large(library: MediaLibrary, file_id: str, size: int | None) -> ServiceError:
    limit = library.settings.store.max_upload_bytes
    reason = too_large_reason(size, limit)
    with transaction(library.sessions) as db:
        FileRepository(db).move(
            file_id,
            states.PENDING_UPLOAD,
            status=states.FAILED,
            failure_reason=reason,
            processed_at=utcnow(),
        )
    return ServiceError(error_codes.UPLOAD_TOO_LARGE, reason)


def _accept(
    library: MediaLibrary, storage: LocalStorage, file_id: str, size: int, sha256: str
) -> None:
    with transaction(library.sessions) as db:
        repo = FileRepository(db)
        if repo.move(
            file_id,
            states.PENDING_UPLOAD,
            status=states.PROCESSING,
            size=size,
            sha256=sha256,
            uploaded_at=utcnow(),
        ):
            jobs.enqueue(db, file_id)
            after_commit(db, library.processor.wake)
            return
        file = repo.get(file_id)
        status = file.status if file is not None else None
    if status in (states.PROCESSING, states.READY):
        return  # a status call noticed these very bytes first
    storage.delete(final_key(file_id))
    if status is None:
        raise ServiceError(
            error_codes.FILE_NOT_FOUND, f"File {file_id!r} was deleted during its upload."
        )
    raise ServiceError(
        error_codes.UPLOAD_ALREADY_USED,
        f"File {file_id!r} is {status.replace('_', ' ')}; the upload was not kept.",
    )
