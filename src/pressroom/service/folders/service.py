"""Folder rules: names, listing with file counts, and deletion with every file inside."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import Account, File, Folder
from pressroom.service.errors import ServiceError
from pressroom.service.folders.repository import FolderRepository
from pressroom.service.folders.schemas import MAX_NAME
from pressroom.service.media import service as media
from pressroom.service.media.library import MediaLibrary
from pressroom.service.media.pagination import Page, Position, decode_cursor, encode_cursor
from pressroom.service.media.repository import FileRepository
from pressroom.service.text_rules import CONTROL_CHARACTERS


@dataclass(frozen=True)
class FolderView:
    folder: Folder
    file_count: int


def clean_name(name: str) -> str:
    """The name without surrounding spaces; the rules apply to the name as sent."""
    if CONTROL_CHARACTERS.search(name):
        raise ServiceError(
            error_codes.VALIDATION_ERROR, "name contains control characters.", field="name"
        )
    if len(name) > MAX_NAME:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"name is {len(name)} characters; at most {MAX_NAME} are allowed.",
            field="name",
        )
    cleaned = name.strip()
    if not cleaned:
        raise ServiceError(error_codes.VALIDATION_ERROR, "name is empty.", field="name")
    return cleaned


def get_folder(db: Session, account: Account, folder_id: str, *, lock: bool = False) -> Folder:
    folder = FolderRepository(db).get_owned(account.id, folder_id, lock=lock)
    if folder is None:
        raise ServiceError(
            error_codes.FOLDER_NOT_FOUND, f"No folder {folder_id!r} in this account."
        )
    return folder


def create_folder(db: Session, account: Account, name: str) -> FolderView:
    folder = FolderRepository(db).add(
        Folder(id=new_id("fld"), account_id=account.id, name=clean_name(name), created_at=utcnow())
    )
    return FolderView(folder, 0)


def list_folders(
    db: Session, account: Account, *, limit: int, cursor: str | None
) -> Page[FolderView]:
    rows = FolderRepository(db).page(account.id, limit=limit, after=decode_cursor(cursor))
    items = [FolderView(folder, count) for folder, count in rows[:limit]]
    last = items[-1].folder if items else None
    more = len(rows) > limit and last is not None
    return Page(items, encode_cursor(Position(last.created_at, last.id)) if more and last else None)


def rename_folder(db: Session, account: Account, folder_id: str, name: str) -> FolderView:
    folder = get_folder(db, account, folder_id)
    folder.name = clean_name(name)
    db.flush()
    return FolderView(folder, FolderRepository(db).count_files(folder.id))


def files_in_folder(
    db: Session, account: Account, folder_id: str, *, limit: int, cursor: str | None
) -> Page[File]:
    get_folder(db, account, folder_id)
    return media.list_files(db, account, limit=limit, cursor=cursor, folder_id=folder_id)


def delete_folder(db: Session, library: MediaLibrary, account: Account, folder_id: str) -> int:
    """Delete the folder and every file in it; returns how many files went."""
    folder = get_folder(db, account, folder_id, lock=True)
    files = FileRepository(db).in_folder(folder.id)
    media.remove_files(db, library, files)
    FolderRepository(db).remove(folder)
    return len(files)
