"""SQL for connections."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pressroom.service.db.models import Connection


class ConnectionRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def list_for_account(self, account_id: str) -> list[Connection]:
        """Every connection the API may show, oldest first (the order they were linked)."""
        return list(
            self.db.scalars(
                select(Connection)
                .where(Connection.account_id == account_id, Connection.removed_at.is_(None))
                .order_by(Connection.connected_at, Connection.id)
            )
        )

    def all_for_account(self, account_id: str) -> list[Connection]:
        """Every connection the account ever had, disconnected ones included."""
        return list(self.db.scalars(select(Connection).where(Connection.account_id == account_id)))

    def get(self, connection_id: str) -> Connection | None:
        """Any connection by id, removed ones included (for the admin and for parents)."""
        return self.db.get(Connection, connection_id)

    def get_visible(self, account_id: str, connection_id: str) -> Connection | None:
        return self.db.scalar(
            select(Connection).where(
                Connection.id == connection_id,
                Connection.account_id == account_id,
                Connection.removed_at.is_(None),
            )
        )

    def count_on_platform(self, account_id: str, platform: str) -> int:
        return (
            self.db.scalar(
                select(func.count())
                .select_from(Connection)
                .where(
                    Connection.account_id == account_id,
                    Connection.platform == platform,
                    Connection.removed_at.is_(None),
                )
            )
            or 0
        )

    def find_by_name(
        self, account_id: str, platform: str, name: str, *, removed: bool | None = False
    ) -> list[Connection]:
        query = select(Connection).where(
            Connection.account_id == account_id,
            Connection.platform == platform,
            Connection.name == name,
        )
        if removed is not None:
            query = query.where(
                Connection.removed_at.is_not(None) if removed else Connection.removed_at.is_(None)
            )
        return list(self.db.scalars(query.order_by(Connection.connected_at.desc())))

    def twin_of(self, photo_sharing_ids: list[str]) -> Connection | None:
        if not photo_sharing_ids:
            return None
        return self.db.scalar(
            select(Connection).where(
                Connection.parent_id.in_(photo_sharing_ids), Connection.removed_at.is_(None)
            )
        )

    def add(self, connection: Connection) -> Connection:
        self.db.add(connection)
        self.db.flush()
        return connection
