"""Routes of spec 4.1 (the presigned PUT itself is in ``receive``)."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Header, Query
from fastapi.responses import StreamingResponse

from pressroom import error_codes
from pressroom.service.deps import CurrentAccount, DbSession
from pressroom.service.errors import ServiceError, responses
from pressroom.service.media import service
from pressroom.service.media.download import open_download
from pressroom.service.media.pagination import DEFAULT_LIMIT, Cursor, Limit
from pressroom.service.media.runtime import Library
from pressroom.service.media.schemas import (
    ACCEPTED_TYPES,
    DeletedFile,
    FileList,
    FileStatus,
    FileStatusResponse,
    MoveFileRequest,
    PresignRequest,
    PresignResponse,
)
from pressroom.service.routing import UnitOfWorkRoute
from pressroom.service.text_rules import SHA256_HEX

_BYTES = {kind: {"schema": {"type": "string", "format": "binary"}} for kind in ACCEPTED_TYPES}

router = APIRouter(prefix="/api/upload", tags=["media"], route_class=UnitOfWorkRoute)


@router.post(
    "/presigned-url",
    response_model=PresignResponse,
    responses=responses(
        error_codes.VALIDATION_ERROR,
        error_codes.UNSUPPORTED_MEDIA,
        error_codes.FOLDER_NOT_FOUND,
        error_codes.UPLOAD_QUOTA,
    ),
)
def create_presigned_url(
    body: PresignRequest, account: CurrentAccount, db: DbSession, library: Library
) -> PresignResponse:
    """Step one of an upload: a file id and a short-lived URL to PUT the bytes to.

    Counts toward the plan's monthly uploads (Business 250, Agency 550, per calendar
    month in UTC); past it, 429 `upload_quota_exceeded` with `X-Upload-Quota-Reset`.
    """
    issued = service.request_upload(
        db,
        library,
        account,
        filename=body.filename,
        content_type=body.content_type,
        folder_id=body.folder_id,
    )
    return PresignResponse(
        file_id=issued.file.id,
        upload_url=issued.upload_url,
        expires_at=issued.file.upload_expires_at,
    )


@router.get(
    "/status/{file_id}",
    response_model=FileStatusResponse,
    responses=responses(error_codes.FILE_NOT_FOUND),
)
def get_upload_status(
    file_id: str, account: CurrentAccount, db: DbSession, library: Library
) -> FileStatusResponse:
    """pending_upload, processing, ready or failed (with failureReason), media facts, and
    the files made from it for networks that would refuse it as it is (`derivatives`)."""
    file = service.file_status(db, library, account, file_id)
    return FileStatusResponse.of(file, service.derivatives_of(db, [file])[file.id])


@router.get("/files", response_model=FileList, responses=responses(error_codes.VALIDATION_ERROR))
def list_files(
    account: CurrentAccount,
    db: DbSession,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    sha256: Annotated[
        str | None,
        Query(
            description="Our extension: only ready files whose bytes have this SHA-256 (hex). "
            "A service without the extension ignores it and lists every file, so check each "
            "entry's `sha256`.",
            json_schema_extra={"pattern": SHA256_HEX},
        ),
    ] = None,
) -> FileList:
    """Every file of the account, newest first (or the ready ones with given bytes)."""
    if sha256 is not None and not re.fullmatch(SHA256_HEX, sha256):
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "sha256 must be 64 hexadecimal characters.",
            field="sha256",
        )
    page = service.list_files(db, account, limit=limit, cursor=cursor, sha256=sha256)
    derived = service.derivatives_of(db, page.items)
    return FileList(
        files=[FileStatus.of(f, derived[f.id]) for f in page.items], next_cursor=page.next_cursor
    )


@router.get("/latest", response_model=FileStatusResponse, responses=responses(error_codes.NO_FILES))
def get_latest_file(account: CurrentAccount, db: DbSession) -> FileStatusResponse:
    """The newest file (the first entry of the list); 404 `no_files` when there is none."""
    file = service.latest_file(db, account)
    return FileStatusResponse.of(file, service.derivatives_of(db, [file])[file.id])


@router.get(
    "/direct/{file_id}",
    response_class=StreamingResponse,
    responses={
        200: {"content": _BYTES, "description": "The bytes, with the file's Content-Type."},
        206: {"content": _BYTES, "description": "The requested byte range."},
        **responses(
            error_codes.FILE_NOT_FOUND,
            error_codes.FILE_NOT_READY,
            error_codes.FILE_FAILED,
            error_codes.RANGE_NOT_SATISFIABLE,
            error_codes.STORAGE_UNAVAILABLE,
        ),
    },
)
def download_file(
    file_id: str,
    account: CurrentAccount,
    db: DbSession,
    library: Library,
    range_: Annotated[str | None, Header(alias="Range")] = None,
) -> StreamingResponse:
    """The file's bytes, streamed, with Content-Length; one `Range: bytes=...` is honoured."""
    file = service.get_file(db, account, file_id)
    found = open_download(library, file, range_)
    return StreamingResponse(
        found.body, status_code=found.status, headers=found.headers, media_type=found.content_type
    )


@router.patch(
    "/file/{file_id}",
    response_model=FileStatusResponse,
    responses=responses(
        error_codes.FILE_NOT_FOUND, error_codes.FOLDER_NOT_FOUND, error_codes.VALIDATION_ERROR
    ),
)
def move_file(
    file_id: str, body: MoveFileRequest, account: CurrentAccount, db: DbSession
) -> FileStatusResponse:
    """Put the file in a folder (`folderId`), or take it out (`null`)."""
    file = service.move_file(db, account, file_id, body.folder_id)
    return FileStatusResponse.of(file, service.derivatives_of(db, [file])[file.id])


@router.delete(
    "/file/{file_id}", response_model=DeletedFile, responses=responses(error_codes.FILE_NOT_FOUND)
)
def delete_file(
    file_id: str, account: CurrentAccount, db: DbSession, library: Library
) -> DeletedFile:
    """Permanent: the record and its bytes are gone, with every file made from it for a
    network; the download then 404s."""
    service.delete_file(db, library, account, file_id)
    return DeletedFile(file_id=file_id)
