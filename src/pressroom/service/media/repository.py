"""SQL for files, their derived files and the monthly upload count."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import and_, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pressroom.service.db.models import Derivative, File, UploadUsage
from pressroom.service.events import outbox
from pressroom.service.events.catalog import EventType
from pressroom.service.media import states
from pressroom.service.media.pagination import Position
from pressroom.service.media.schemas import FileStatus

SETTLED_EVENTS = {states.READY: EventType.FILE_READY, states.FAILED: EventType.FILE_FAILED}


class FileRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def get(self, file_id: str) -> File | None:
        return self.db.get(File, file_id)

    def get_owned(self, account_id: str, file_id: str) -> File | None:
        return self.db.scalar(select(File).where(File.id == file_id, File.account_id == account_id))

    def add(self, file: File) -> File:
        self.db.add(file)
        self.db.flush()
        return file

    def page(
        self,
        account_id: str,
        *,
        limit: int,
        after: Position | None,
        folder_id: str | None = None,
        ready_with_sha256: str | None = None,
    ) -> list[File]:
        """Up to ``limit + 1`` files, newest first, after ``after``; only one folder's if
        given; only ready files with these bytes if ``ready_with_sha256`` is given."""
        query = select(File).where(File.account_id == account_id)
        if folder_id is not None:
            query = query.where(File.folder_id == folder_id)
        if ready_with_sha256 is not None:
            query = query.where(File.sha256 == ready_with_sha256, File.status == "ready")
        if after is not None:
            query = query.where(
                or_(
                    File.created_at < after.created_at,
                    and_(File.created_at == after.created_at, File.id < after.id),
                )
            )
        query = query.order_by(File.created_at.desc(), File.id.desc()).limit(limit + 1)
        return list(self.db.scalars(query))

    def latest(self, account_id: str) -> File | None:
        return self.db.scalar(
            select(File)
            .where(File.account_id == account_id)
            .order_by(File.created_at.desc(), File.id.desc())
            .limit(1)
        )

    def in_folder(self, folder_id: str) -> list[File]:
        return list(self.db.scalars(select(File).where(File.folder_id == folder_id)))

    def remove(self, files: Iterable[File]) -> None:
        for file in files:
            self.db.delete(file)
        self.db.flush()

    def move(self, file_id: str, expected_status: str, **values: Any) -> bool:
        """Change a file only if it is still in ``expected_status``: the state machine's
        compare-and-swap, so a deleted or already-moved file is left alone."""
        result = self.db.execute(
            update(File)
            .where(File.id == file_id, File.status == expected_status)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        moved = bool(getattr(result, "rowcount", 0) == 1)
        if moved and values.get("status") in SETTLED_EVENTS:
            self._announce(file_id, SETTLED_EVENTS[values["status"]])
        return moved

    def _announce(self, file_id: str, event: EventType) -> None:
        """Every file that becomes ready or failed does so here: its webhook event is
        written in the same transaction as the move."""
        file = self.db.scalar(
            select(File).where(File.id == file_id).execution_options(populate_existing=True)
        )
        if file is not None:
            data = FileStatus.of(file).model_dump(mode="json", by_alias=True)
            outbox.emit(self.db, file.account_id, event, f"file:{file.id}", data)

    def ids_with_status(self, status: str, *, limit: int = 10_000) -> list[str]:
        return list(
            self.db.scalars(
                select(File.id).where(File.status == status).order_by(File.created_at).limit(limit)
            )
        )

    def statuses(self, file_ids: list[str]) -> dict[str, str]:
        """Status of each id that still has a record."""
        found: dict[str, str] = {}
        for start in range(0, len(file_ids), 500):
            chunk = file_ids[start : start + 500]
            found.update(
                (row.id, row.status)
                for row in self.db.execute(select(File.id, File.status).where(File.id.in_(chunk)))
            )
        return found


class DerivativeRepository:
    """Files converted for a network profile (``media.derivatives``)."""

    def __init__(self, db: Session) -> None:
        self.db = db

    def get(self, file_id: str, profile: str) -> Derivative | None:
        return self.db.scalar(
            select(Derivative).where(Derivative.file_id == file_id, Derivative.profile == profile)
        )

    def add(self, derivative: Derivative) -> bool:
        """Insert it; False when the file already has one for the profile (another
        request made it first: the unique constraint decides)."""
        try:
            with self.db.begin_nested():
                self.db.add(derivative)
        except IntegrityError:
            return False
        return True

    def of_files(self, file_ids: list[str]) -> dict[str, list[Derivative]]:
        """Each file's derived files, by profile."""
        found: dict[str, list[Derivative]] = {file_id: [] for file_id in file_ids}
        for start in range(0, len(file_ids), 500):
            chunk = file_ids[start : start + 500]
            query = (
                select(Derivative)
                .where(Derivative.file_id.in_(chunk))
                .order_by(Derivative.file_id, Derivative.profile)
            )
            for derivative in self.db.scalars(query):
                found[derivative.file_id].append(derivative)
        return found

    def settle(self, derivative_id: str, expected_status: str, **values: Any) -> bool:
        """Change a derived file only if it is still in ``expected_status`` (the same
        compare-and-swap as files': one outcome, even for a job run twice)."""
        result = self.db.execute(
            update(Derivative)
            .where(Derivative.id == derivative_id, Derivative.status == expected_status)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        return bool(getattr(result, "rowcount", 0) == 1)

    def statuses(self, derivative_ids: list[str]) -> dict[str, str]:
        """Status of each id that still has a record."""
        found: dict[str, str] = {}
        for start in range(0, len(derivative_ids), 500):
            chunk = derivative_ids[start : start + 500]
            found.update(
                (row.id, row.status)
                for row in self.db.execute(
                    select(Derivative.id, Derivative.status).where(Derivative.id.in_(chunk))
                )
            )
        return found


class UsageRepository:
    """Presigned URLs issued per account and calendar month (UTC)."""

    def __init__(self, db: Session) -> None:
        self.db = db

    def take(self, account_id: str, month: str, limit: int) -> bool:
        """Count one upload if the month has room; race-safe without a lock.

        The conditional UPDATE is atomic in both databases. When it changes nothing, the
        row is either full, or missing, or was inserted by another request after the
        UPDATE began: a full row is the answer, a new row is tried again, and a missing
        one is inserted inside a savepoint (losing that race just means trying again).
        """
        for _ in range(5):
            if self._increment(account_id, month, limit):
                return True
            used = self._current(account_id, month)
            if used is not None:
                if used >= limit:
                    return False
                continue
            if limit <= 0:
                return False
            try:
                with self.db.begin_nested():
                    self.db.execute(
                        insert(UploadUsage).values(account_id=account_id, month=month, uploads=1)
                    )
                return True
            except IntegrityError:
                continue
        return False

    def _increment(self, account_id: str, month: str, limit: int) -> bool:
        result = self.db.execute(
            update(UploadUsage)
            .where(
                UploadUsage.account_id == account_id,
                UploadUsage.month == month,
                UploadUsage.uploads < limit,
            )
            .values(uploads=UploadUsage.uploads + 1)
            .execution_options(synchronize_session=False)
        )
        return bool(getattr(result, "rowcount", 0) == 1)

    def used(self, account_id: str, month: str) -> int:
        """Uploads counted in ``month`` (``YYYY-MM``)."""
        return self._current(account_id, month) or 0

    def _current(self, account_id: str, month: str) -> int | None:
        return self.db.scalar(
            select(UploadUsage.uploads).where(
                UploadUsage.account_id == account_id, UploadUsage.month == month
            )
        )


def month_of(moment: datetime) -> str:
    return moment.strftime("%Y-%m")
