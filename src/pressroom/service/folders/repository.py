"""SQL for folders."""

from __future__ import annotations

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from pressroom.service.db.models import File, Folder
from pressroom.service.media.pagination import Position


class FolderRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def get_owned(self, account_id: str, folder_id: str, *, lock: bool = False) -> Folder | None:
        query = select(Folder).where(Folder.id == folder_id, Folder.account_id == account_id)
        if lock:
            query = query.with_for_update()
        return self.db.scalar(query)

    def add(self, folder: Folder) -> Folder:
        self.db.add(folder)
        self.db.flush()
        return folder

    def page(
        self, account_id: str, *, limit: int, after: Position | None
    ) -> list[tuple[Folder, int]]:
        """Up to ``limit + 1`` folders, newest first, each with its number of files."""
        file_count = (
            select(func.count(File.id)).where(File.folder_id == Folder.id).scalar_subquery()
        )
        query = select(Folder, file_count).where(Folder.account_id == account_id)
        if after is not None:
            query = query.where(
                or_(
                    Folder.created_at < after.created_at,
                    and_(Folder.created_at == after.created_at, Folder.id < after.id),
                )
            )
        query = query.order_by(Folder.created_at.desc(), Folder.id.desc()).limit(limit + 1)
        return [(folder, int(count)) for folder, count in self.db.execute(query).tuples()]

    def count_files(self, folder_id: str) -> int:
        return int(
            self.db.scalar(select(func.count(File.id)).where(File.folder_id == folder_id)) or 0
        )

    def remove(self, folder: Folder) -> None:
        self.db.delete(folder)
        self.db.flush()
