"""View models the pages show, composed from the domain services (no SQL here)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.platforms import Platform
from pressroom.service.connections import service as connections
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Account, Post
from pressroom.service.media.repository import UsageRepository, month_of
from pressroom.service.publishing.repository import PostRepository


@dataclass(frozen=True)
class Usage:
    month: str
    uploads: int
    upload_quota: int
    profile_limit: int
    profiles: list[tuple[str, int]]


@dataclass(frozen=True)
class PostRow:
    id: str
    created_at: object
    platform: str
    connection_id: str
    connection_name: str
    status: str
    excerpt: str
    url: str | None
    request: dict[str, object]
    result: dict[str, object] | None


def usage(db: Session, account: Account) -> Usage:
    limits = PLAN_LIMITS[Plan(account.plan)]
    month = month_of(utcnow())
    counts = {p.value: 0 for p in Platform}
    for connection, _status in connections.list_connections(db, account):
        counts[connection.platform] += 1
    return Usage(
        month=month,
        uploads=UsageRepository(db).used(account.id, month),
        upload_quota=limits.monthly_uploads,
        profile_limit=limits.profiles_per_platform,
        profiles=sorted(counts.items()),
    )


def _excerpt(post: Post) -> str:
    request = post.request or {}
    for name in ("text", "caption", "title", "message", "description"):
        value = request.get(name)
        if isinstance(value, str) and value:
            return value if len(value) <= 80 else value[:79] + "…"
    return "(media only)"


def _status(post: Post) -> str:
    if post.status == "published":
        return "published"
    if post.status in ("failed", "rejected", "not_sent"):
        return "failed"
    return "unknown"


def posts(
    db: Session,
    account: Account,
    *,
    limit: int = 50,
    platform: str | None = None,
    connection_id: str | None = None,
    status: str | None = None,
) -> list[PostRow]:
    found = PostRepository(db).newest_first(
        account.id,
        limit=limit * 4 if status else limit,
        platform=platform,
        connection_id=connection_id,
    )
    names = {c.id: c.name for c in connections.all_connections(db, account)}
    rows = [
        PostRow(
            id=p.id,
            created_at=p.created_at,
            platform=p.platform,
            connection_id=p.connection_id,
            connection_name=names.get(p.connection_id, p.connection_id),
            status=_status(p),
            excerpt=_excerpt(p),
            url=p.url,
            request=p.request or {},
            result=p.result,
        )
        for p in found
    ]
    if status:
        rows = [r for r in rows if r.status == status]
    return rows[:limit]


def post(db: Session, account: Account, record_id: str) -> PostRow | None:
    found = PostRepository(db).get(account.id, record_id)
    if found is None:
        return None
    names = {c.id: c.name for c in connections.all_connections(db, account)}
    return PostRow(
        id=found.id,
        created_at=found.created_at,
        platform=found.platform,
        connection_id=found.connection_id,
        connection_name=names.get(found.connection_id, found.connection_id),
        status=_status(found),
        excerpt=_excerpt(found),
        url=found.url,
        request=found.request or {},
        result=found.result,
    )
