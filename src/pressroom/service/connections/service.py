"""Connection rules: the dashboard's moves, effective status, and publish eligibility."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple, Protocol

from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.platforms import Platform
from pressroom.service.connections.repository import (
    ConnectionRepository,
    visible_for_publishing,
    visible_with_parents,
)
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import Account, Connection
from pressroom.service.db.prepared import Link, Row
from pressroom.service.errors import ServiceError
from pressroom.service.events import outbox
from pressroom.service.events.catalog import EventType, InactiveReason
from pressroom.statuses import ConnectionStatus

ACTIVE = ConnectionStatus.ACTIVE.value
INACTIVE = ConnectionStatus.INACTIVE.value
ACCOUNT_TYPES = ("business", "creator", "personal")
PAGE_KINDS = ("page", "profile")


class ConnectionRuleError(ValueError):
    """A dashboard move that breaks a rule; the message says which and what to do."""


@dataclass(frozen=True)
class NewConnection:
    platform: Platform
    name: str
    display_name: str | None = None
    account_type: str | None = None
    page_kind: str | None = None
    pages_permission: bool = True
    verified: bool = False


class ConnectionState(Protocol):
    """What a connection's effective status is made of (a model or a plain row)."""

    @property
    def platform(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def token_expires_at(self) -> datetime | None: ...
    @property
    def removed_at(self) -> datetime | None: ...


class ParentState(NamedTuple):
    platform: str
    status: str
    token_expires_at: datetime | None
    removed_at: datetime | None


class Unified(NamedTuple):
    """A connection as the unified list shows it."""

    id: str
    platform: str
    name: str
    status: str


@dataclass(frozen=True)
class Listed:
    """A connection as the API lists it."""

    id: str
    platform: str
    name: str
    display_name: str
    connected_at: datetime
    status: str


def effective_status(
    connection: ConnectionState, parent: ConnectionState | None, now: datetime
) -> str:
    """Inactive when marked so, when its token has expired, or (text_thread) when its
    photo_sharing account is gone or inactive."""
    if connection.removed_at is not None or connection.status != ACTIVE:
        return INACTIVE
    if connection.token_expires_at is not None and connection.token_expires_at <= now:
        return INACTIVE
    parent_lost = parent is None or effective_status(parent, None, now) != ACTIVE
    if connection.platform == Platform.TEXT_THREAD and parent_lost:
        return INACTIVE
    return ACTIVE


def with_status(db: Session, connections: list[Connection]) -> list[tuple[Connection, str]]:
    repo = ConnectionRepository(db)
    now = utcnow()
    by_id = {c.id: c for c in connections}
    result = []
    for connection in connections:
        parent = None
        if connection.parent_id:
            parent = by_id.get(connection.parent_id) or repo.get(connection.parent_id)
        result.append((connection, effective_status(connection, parent, now)))
    return result


def list_connections(db: Session, account: Account) -> list[tuple[Connection, str]]:
    return with_status(db, ConnectionRepository(db).list_for_account(account.id))


def listed_connections(db: Link, account_id: str) -> list[Listed]:
    """``list_connections`` in one statement on the driver's connection, for the API's
    hot reads (``db.reads``); the status rule is the same ``effective_status``."""
    return [
        Listed(row.id, row.platform, row.name, row.display_name, row.connected_at, status)
        for row, status in _with_status(visible_with_parents(db, account_id))
    ]


def connection_states(db: Link, account_id: str) -> list[Unified]:
    """What ``GET /api/connections/unified`` lists, as ``listed_connections`` finds it."""
    return [
        Unified(row.id, row.platform, row.name, status)
        for row, status in _with_status(visible_with_parents(db, account_id, described=False))
    ]


def _with_status(rows: Sequence[Row]) -> Iterator[tuple[Row, str]]:
    now = utcnow()
    for row in rows:
        parent = None
        if row.parent_found is not None:
            parent = ParentState(
                row.parent_platform,
                row.parent_status,
                row.parent_token_expires_at,
                row.parent_removed_at,
            )
        yield row, effective_status(row, parent, now)


def all_connections(db: Session, account: Account) -> list[Connection]:
    """Removed ones too: the post history still names them."""
    return ConnectionRepository(db).all_for_account(account.id)


def status_of(db: Session, connection: Connection) -> str:
    parent = ConnectionRepository(db).get(connection.parent_id) if connection.parent_id else None
    return effective_status(connection, parent, utcnow())


def require_publishable(
    db: Session, account: Account, connection_id: str, platform: Platform
) -> Connection:
    """The caller's own, visible, active connection of this platform, or the error saying why."""
    repo = ConnectionRepository(db)
    connection = repo.get_visible(account.id, connection_id)
    parent = repo.get(connection.parent_id) if connection and connection.parent_id else None
    check_publishable(connection, parent, connection_id, platform)
    assert connection is not None
    return connection


def publishable(link: Link, account_id: str, connection_id: str, platform: Platform) -> Row:
    """``require_publishable`` in one statement on the driver's connection, for the
    publish path: the connection's row, with its parent's state and token beside it
    (``parent_*``)."""
    row = visible_for_publishing(link, account_id, connection_id)
    parent = None
    if row is not None and row.parent_found is not None:
        parent = ParentState(
            row.parent_platform,
            row.parent_status,
            row.parent_token_expires_at,
            row.parent_removed_at,
        )
    check_publishable(row, parent, connection_id, platform)
    return row


def check_publishable(
    connection: ConnectionState | None,
    parent: ConnectionState | None,
    connection_id: str,
    platform: Platform,
) -> None:
    if connection is None:
        raise ServiceError(
            error_codes.CONNECTION_NOT_FOUND,
            f"No connection {connection_id!r} in this account.",
            field="connectionId",
        )
    if connection.platform != platform:
        raise ServiceError(
            error_codes.PLATFORM_MISMATCH,
            f"Connection {connection_id!r} is a {connection.platform} account, "
            f"not {platform.value}.",
            field="connectionId",
        )
    if effective_status(connection, parent, utcnow()) != ACTIVE:
        if platform == Platform.TEXT_THREAD:
            hint = (
                "its photo_sharing account is disconnected or its token expired; "
                "reconnect the photo_sharing account in the dashboard."
            )
        else:
            hint = "its access token expired or it was disconnected; reconnect it in the dashboard."
        raise ServiceError(
            error_codes.CONNECTION_INACTIVE,
            f"Connection {connection_id!r} is inactive: {hint}",
            field="connectionId",
        )


def inactive_reason(db: Session, connection: Connection) -> str | None:
    """Why a connection is inactive, in words for the dashboard; None when active."""
    if status_of(db, connection) == ACTIVE:
        return None
    if connection.platform == Platform.TEXT_THREAD:
        return "its photo_sharing account is disconnected or its token expired"
    if connection.token_expires_at is not None:
        return "its access token expired and could not be refreshed"
    return "it was marked inactive"


def owned(db: Session, account: Account, connection_id: str) -> Connection:
    """The account's own visible connection, or ConnectionRuleError."""
    connection = ConnectionRepository(db).get_visible(account.id, connection_id)
    if connection is None:
        raise ConnectionRuleError("No connection with this id in this account.")
    return connection


def check_can_connect(db: Session, account: Account, platform: Platform) -> None:
    """The rules that refuse a Connect before the user is sent to the platform."""
    if platform == Platform.TEXT_THREAD:
        raise ConnectionRuleError(
            "text_thread connections cannot be made directly: connect the photo_sharing "
            "account and its text_thread connection appears with it."
        )
    _check_cap(db, account, platform)


# The dashboard's moves (``pressroom admin``): they raise ConnectionRuleError.


def connect(db: Session, account: Account, new: NewConnection) -> Connection:
    repo = ConnectionRepository(db)
    if new.platform == Platform.TEXT_THREAD:
        raise ConnectionRuleError(
            "text_thread connections cannot be made directly: connect the photo_sharing "
            "account and its text_thread connection appears with it."
        )
    if new.account_type is not None and new.account_type not in ACCOUNT_TYPES:
        raise ConnectionRuleError(f"account type must be one of {', '.join(ACCOUNT_TYPES)}")
    if new.platform == Platform.PHOTO_SHARING:
        existing = repo.find_by_name(account.id, new.platform, new.name)
        if existing:
            # Connecting the same account again is a reconnect.
            return reconnect(db, existing[0].id)
    _check_cap(db, account, new.platform)
    now = utcnow()
    connection = repo.add(
        Connection(
            id=new_id("conn"),
            account_id=account.id,
            platform=new.platform.value,
            name=new.name,
            display_name=new.display_name or new.name,
            status=ACTIVE,
            connected_at=now,
            account_type=(new.account_type or "business")
            if new.platform == Platform.PHOTO_SHARING
            else None,
            page_kind=(new.page_kind or "page") if new.platform == Platform.PAGE_SOCIAL else None,
            pages_permission=new.pages_permission,
            verified=new.verified,
        )
    )
    announce(db, connection, EventType.CONNECTION_ACTIVE)
    if new.platform == Platform.PHOTO_SHARING:
        _link_twin(db, account, connection)
    return connection


def _check_cap(db: Session, account: Account, platform: Platform) -> None:
    cap = PLAN_LIMITS[Plan(account.plan)].profiles_per_platform
    if cap == 0:
        raise ConnectionRuleError(
            f"the {account.plan} plan includes no social profiles; "
            "the Business and Agency plans do."
        )
    if ConnectionRepository(db).count_on_platform(account.id, platform) >= cap:
        raise ConnectionRuleError(
            f"the {account.plan} plan allows {cap} {platform.value} profiles and all are in use "
            "(inactive ones count too); disconnect one first."
        )


def _link_twin(db: Session, account: Account, photo: Connection) -> None:
    """Give a photo_sharing connection its text_thread twin: the old one if it had one."""
    repo = ConnectionRepository(db)
    earlier = [
        c.id
        for c in repo.find_by_name(account.id, Platform.PHOTO_SHARING, photo.name, removed=True)
    ]
    twin = repo.twin_of(earlier)
    if twin is not None:
        twin.parent_id = photo.id
        twin.status = ACTIVE
        announce(db, twin, EventType.CONNECTION_ACTIVE)
        return
    _check_cap(db, account, Platform.TEXT_THREAD)
    twin = repo.add(
        Connection(
            id=new_id("conn"),
            account_id=account.id,
            platform=Platform.TEXT_THREAD.value,
            name=photo.name,
            display_name=photo.display_name,
            status=ACTIVE,
            connected_at=utcnow(),
            parent_id=photo.id,
        )
    )
    announce(db, twin, EventType.CONNECTION_ACTIVE)


def _visible(db: Session, connection_id: str) -> Connection:
    connection = ConnectionRepository(db).get(connection_id)
    if connection is None or connection.removed_at is not None:
        raise ConnectionRuleError(f"no connection {connection_id!r}")
    return connection


def owned_anywhere(db: Session, connection_id: str) -> Connection:
    """A visible connection of any account (the operator's CLI)."""
    return _visible(db, connection_id)


def announce(
    db: Session, connection: Connection, event: EventType, reason: InactiveReason | None = None
) -> None:
    """The connection's webhook event, in the transaction of its change."""
    data: dict[str, str] = {
        "connectionId": connection.id,
        "platform": connection.platform,
        "name": connection.name,
    }
    if reason is not None:
        data["reason"] = reason.value
    outbox.emit(db, connection.account_id, event, f"connection:{connection.id}", data)


def _set_twin_status(
    db: Session, photo: Connection, status: str, reason: InactiveReason | None = None
) -> None:
    twin = ConnectionRepository(db).twin_of([photo.id])
    if twin is None or twin.removed_at is not None:
        return
    if twin.status == status:
        return  # no change, nothing to announce
    twin.status = status
    if status == ACTIVE:
        announce(db, twin, EventType.CONNECTION_ACTIVE)
    else:
        announce(db, twin, EventType.CONNECTION_INACTIVE, reason)


def disconnect(db: Session, connection_id: str) -> Connection:
    connection = _visible(db, connection_id)
    connection.removed_at = utcnow()
    connection.status = INACTIVE
    announce(db, connection, EventType.CONNECTION_REMOVED)
    if connection.platform == Platform.PHOTO_SHARING:
        _set_twin_status(db, connection, INACTIVE, InactiveReason.PARENT_REMOVED)
    db.flush()
    return connection


def expire_token(
    db: Session, connection_id: str, reason: InactiveReason = InactiveReason.TOKEN_EXPIRED
) -> Connection:
    """The connection's token no longer works (``reason`` says how that was learnt)."""
    connection = _visible(db, connection_id)
    if connection.platform == Platform.TEXT_THREAD:
        raise ConnectionRuleError(
            "text_thread connections have no token of their own: expire the photo_sharing one."
        )
    was = connection.status
    connection.token_expires_at = utcnow()
    connection.status = INACTIVE
    if was == ACTIVE:
        announce(db, connection, EventType.CONNECTION_INACTIVE, reason)
    if connection.platform == Platform.PHOTO_SHARING:
        _set_twin_status(db, connection, INACTIVE, InactiveReason.PARENT_INACTIVE)
    db.flush()
    return connection


def access_revoked(db: Session, connection_id: str) -> None:
    """A network refused the token behind the connection while publishing: it (or, for
    a text_thread, the photo_sharing account whose token it uses) turns inactive, twin
    included."""
    connection = ConnectionRepository(db).get(connection_id)
    if connection is None:
        return
    holder = connection.parent_id if connection.parent_id else connection.id
    expire_token(db, holder, InactiveReason.ACCESS_REVOKED)


def reconnect(db: Session, connection_id: str) -> Connection:
    connection = _visible(db, connection_id)
    if connection.platform == Platform.TEXT_THREAD:
        raise ConnectionRuleError(
            "a text_thread connection follows its photo_sharing account: reconnect that one."
        )
    connection.status = ACTIVE
    connection.token_expires_at = None
    connection.connected_at = utcnow()
    announce(db, connection, EventType.CONNECTION_ACTIVE)
    if connection.platform == Platform.PHOTO_SHARING:
        _set_twin_status(db, connection, ACTIVE)
    db.flush()
    return connection
