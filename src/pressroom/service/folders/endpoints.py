"""Routes of spec 4.2."""

from __future__ import annotations

from fastapi import APIRouter

from pressroom import error_codes
from pressroom.service.deps import CurrentAccount, DbSession
from pressroom.service.errors import responses
from pressroom.service.folders import service
from pressroom.service.folders.schemas import (
    DeletedFolder,
    FolderList,
    FolderName,
    FolderOut,
    FolderResponse,
)
from pressroom.service.media import service as media
from pressroom.service.media.pagination import DEFAULT_LIMIT, Cursor, Limit
from pressroom.service.media.runtime import Library
from pressroom.service.media.schemas import FileList, FileStatus
from pressroom.service.routing import UnitOfWorkRoute

router = APIRouter(prefix="/api/upload/folders", tags=["folders"], route_class=UnitOfWorkRoute)


def _out(view: service.FolderView) -> FolderOut:
    folder = view.folder
    return FolderOut(
        id=folder.id, name=folder.name, created_at=folder.created_at, file_count=view.file_count
    )


def _response(view: service.FolderView) -> FolderResponse:
    return FolderResponse(**_out(view).model_dump())


@router.get("", response_model=FolderList, responses=responses(error_codes.VALIDATION_ERROR))
def list_folders(
    account: CurrentAccount, db: DbSession, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
) -> FolderList:
    """The account's folders, newest first, with their ids, names and file counts."""
    page = service.list_folders(db, account, limit=limit, cursor=cursor)
    return FolderList(folders=[_out(v) for v in page.items], next_cursor=page.next_cursor)


@router.post(
    "",
    status_code=201,
    response_model=FolderResponse,
    responses=responses(error_codes.VALIDATION_ERROR),
)
def create_folder(body: FolderName, account: CurrentAccount, db: DbSession) -> FolderResponse:
    """A new, empty folder (201)."""
    return _response(service.create_folder(db, account, body.name))


@router.get(
    "/{folder_id}/files",
    response_model=FileList,
    responses=responses(error_codes.FOLDER_NOT_FOUND, error_codes.VALIDATION_ERROR),
)
def list_folder_files(
    folder_id: str,
    account: CurrentAccount,
    db: DbSession,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> FileList:
    """The files in the folder, newest first."""
    page = service.files_in_folder(db, account, folder_id, limit=limit, cursor=cursor)
    derived = media.derivatives_of(db, page.items)
    return FileList(
        files=[FileStatus.of(f, derived[f.id]) for f in page.items], next_cursor=page.next_cursor
    )


@router.patch(
    "/{folder_id}",
    response_model=FolderResponse,
    responses=responses(error_codes.FOLDER_NOT_FOUND, error_codes.VALIDATION_ERROR),
)
def rename_folder(
    folder_id: str, body: FolderName, account: CurrentAccount, db: DbSession
) -> FolderResponse:
    """Only the name changes; the id and the files stay."""
    return _response(service.rename_folder(db, account, folder_id, body.name))


@router.delete(
    "/{folder_id}",
    response_model=DeletedFolder,
    responses=responses(error_codes.FOLDER_NOT_FOUND),
)
def delete_folder(
    folder_id: str, account: CurrentAccount, db: DbSession, library: Library
) -> DeletedFolder:
    """Permanent: the folder and every file in it, bytes included."""
    count = service.delete_folder(db, library, account, folder_id)
    return DeletedFolder(folder_id=folder_id, deleted_files=count)
