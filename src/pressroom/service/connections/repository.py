"""SQL for connections."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from pressroom.service.db.models import Connection
from pressroom.service.db.prepared import Link, Prepared, Row

_VISIBLE = (Connection.account_id == bindparam("account_id"), Connection.removed_at.is_(None))
"""The connections the API may show: the account's, not removed (param ``account_id``)."""
_OLDEST_FIRST = (Connection.connected_at, Connection.id)
"""The order they were linked."""

_TABLE = Connection.__table__
_PARENT = _TABLE.alias("parent")
_STATE = (
    _TABLE.c.id,
    _TABLE.c.platform,
    _TABLE.c.name,
    _TABLE.c.status,
    _TABLE.c.token_expires_at,
    _TABLE.c.removed_at,
    _TABLE.c.parent_id,
    _PARENT.c.id.label("parent_found"),
    _PARENT.c.platform.label("parent_platform"),
    _PARENT.c.status.label("parent_status"),
    _PARENT.c.token_expires_at.label("parent_token_expires_at"),
    _PARENT.c.removed_at.label("parent_removed_at"),
)
"""A connection's name and what its effective status is made of, its parent's beside it."""
_DESCRIBED = (_TABLE.c.display_name, _TABLE.c.connected_at)


def _visible_with_parents(*columns: Any) -> Prepared:
    return Prepared(
        select(*columns)
        .select_from(_TABLE.outerjoin(_PARENT, _PARENT.c.id == _TABLE.c.parent_id))
        .where(*_VISIBLE)
        .order_by(*_OLDEST_FIRST)
    )


_STATES_WITH_PARENTS = _visible_with_parents(*_STATE)
_DESCRIBED_WITH_PARENTS = _visible_with_parents(*_STATE, *_DESCRIBED)


_PUBLISHING = Prepared(
    select(
        *_STATE,
        _TABLE.c.account_type,
        _TABLE.c.page_kind,
        _TABLE.c.pages_permission,
        _TABLE.c.access_token_enc,
        _TABLE.c.access_expires_at,
        _PARENT.c.access_expires_at.label("parent_access_expires_at"),
    )
    .select_from(_TABLE.outerjoin(_PARENT, _PARENT.c.id == _TABLE.c.parent_id))
    .where(*_VISIBLE, _TABLE.c.id == bindparam("connection_id"))
)


def visible_for_publishing(link: Link, account_id: str, connection_id: str) -> Row | None:
    """A visible connection of the account with what publishing checks of it and of its
    parent (status, account, token), in one statement (``publishing.service``)."""
    return link.first(_PUBLISHING, account_id=account_id, connection_id=connection_id)


_TOKENS = Prepared(
    select(
        _TABLE.c.parent_id,
        _TABLE.c.access_token_enc,
        _PARENT.c.access_token_enc.label("parent_access_token_enc"),
    )
    .select_from(_TABLE.outerjoin(_PARENT, _PARENT.c.id == _TABLE.c.parent_id))
    .where(_TABLE.c.id == bindparam("connection_id"))
)


def encrypted_tokens(link: Link, connection_id: str) -> Row | None:
    """A connection's encrypted access token and its parent's, in one statement (a
    driver asks for one per call: ``drivers.tokens``)."""
    return link.first(_TOKENS, connection_id=connection_id)


def visible_with_parents(link: Link, account_id: str, *, described: bool = True) -> Sequence[Row]:
    """What ``list_for_account`` lists, each row with its parent's state beside it (one
    statement on the driver's connection, for the API's connection lists: ``db.reads``);
    without ``described``, no display name and no connection time (the unified list
    shows neither, and SQLite's timestamps cost a parse each)."""
    query = _DESCRIBED_WITH_PARENTS if described else _STATES_WITH_PARENTS
    return link.rows(query, account_id=account_id)


class ConnectionRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    def list_for_account(self, account_id: str) -> list[Connection]:
        """Every connection the API may show, oldest first (the order they were linked)."""
        query = select(Connection).where(*_VISIBLE).order_by(*_OLDEST_FIRST)
        return list(self.db.scalars(query, {"account_id": account_id}))

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
