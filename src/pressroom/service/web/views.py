"""View models the pages show, composed from the domain services (no SQL here)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.platforms import Platform
from pressroom.service.connections import service as connections
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Account, Post, PostPart
from pressroom.service.drivers.base import PlatformUnavailable
from pressroom.service.media.repository import UsageRepository, month_of
from pressroom.service.publishing import events
from pressroom.service.publishing.browsing import browse_posts
from pressroom.service.publishing.remedies import Remedy, Retried, remedies
from pressroom.service.publishing.repository import IdempotencyRepository, PostRepository
from pressroom.service.publishing.schemas import format_of
from pressroom.service.publishing.unknowns import (
    LOOKUP_WINDOW,
    CutShort,
    Found,
    Missing,
    NotPublished,
)
from pressroom.statuses import PartKind, PartStatus, PostStatus


@dataclass(frozen=True)
class Usage:
    month: str
    uploads: int
    upload_quota: int
    profile_limit: int
    profiles: list[tuple[str, int]]


@dataclass(frozen=True)
class PartRow:
    index: int
    kind: str
    kind_words: str
    status: str
    status_words: str
    url: str | None


@dataclass(frozen=True)
class PostRow:
    id: str
    created_at: object
    platform: str
    connection_id: str
    connection_name: str
    status: str
    status_words: str
    excerpt: str
    url: str | None
    request: dict[str, object]
    result: dict[str, object] | None
    idempotency_key: str | None
    parts: list[PartRow]
    error: str | None
    """Why it did not go out whole (the refusal's message), for a failed or partial post."""
    remedies: tuple[Remedy, ...]
    campaign: str | None = None
    """The campaign that sent it (the body's ``campaign``), with its edition and run."""
    edition: str | None = None
    flow_run_id: str | None = None

    @property
    def format(self) -> str:
        """The post's format as its body gave it (``post`` when it gave none)."""
        return format_of(self.request).value

    @property
    def standing(self) -> list[PartRow]:
        return [p for p in self.parts if p.status == PartStatus.PUBLISHED]

    @property
    def not_standing(self) -> list[PartRow]:
        return [p for p in self.parts if p.status != PartStatus.PUBLISHED]


@dataclass(frozen=True)
class PostsPage:
    rows: list[PostRow]
    older: str | None
    newer: str | None


STATUS_WORDS: dict[str, str] = {
    PostStatus.SENDING: "sending",
    PostStatus.PUBLISHED: "published",
    PostStatus.FAILED: "failed",
    PostStatus.UNKNOWN: "outcome unknown",
    PostStatus.PARTIAL: "partly published",
}
"""A post's status as the pages say it (the value itself is what filters use)."""
PART_STATUS_WORDS: dict[str, str] = {
    PartStatus.SENDING: "sending",
    PartStatus.PUBLISHED: "published",
    PartStatus.FAILED: "not published",
    PartStatus.UNKNOWN: "outcome unknown",
}
KIND_WORDS: dict[str, str] = {
    PartKind.POST: "post",
    PartKind.REPLY: "reply",
    PartKind.ITEM: "carousel item",
    PartKind.COMMENT: "first comment",
}


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


def _part(part: PostPart) -> PartRow:
    return PartRow(
        index=part.index,
        kind=part.kind,
        kind_words=KIND_WORDS.get(part.kind, part.kind),
        status=part.status,
        status_words=PART_STATUS_WORDS.get(part.status, part.status),
        url=part.url,
    )


def _row(
    post: Post,
    names: dict[str, str],
    parts: list[PostPart],
    remedies: tuple[Remedy, ...] = (),
) -> PostRow:
    error = None
    if post.status in (PostStatus.FAILED, PostStatus.PARTIAL):
        error = events.error_of(post.result or {})["message"]
    return PostRow(
        id=post.id,
        created_at=post.created_at,
        platform=post.platform,
        connection_id=post.connection_id,
        connection_name=names.get(post.connection_id, post.connection_id),
        status=post.status,
        status_words=STATUS_WORDS.get(post.status, post.status),
        excerpt=_excerpt(post),
        url=post.url,
        request=post.request or {},
        result=post.result,
        idempotency_key=post.idempotency_key,
        parts=[_part(p) for p in parts],
        error=error,
        remedies=remedies,
        campaign=post.campaign_name,
        edition=post.campaign_edition,
        flow_run_id=post.campaign_flow_run_id,
    )


def posts(
    db: Session,
    account: Account,
    *,
    limit: int = 50,
    cursor: str | None = None,
    before: str | None = None,
    platform: str | None = None,
    connection_id: str | None = None,
    status: str | None = None,
    campaign: str | None = None,
    edition: str | None = None,
    flow_run_id: str | None = None,
) -> PostsPage:
    """A page of the account's posts, newest first, with their parts; ``cursor`` and
    ``before`` as ``browse_posts`` takes them (a 400 ``ServiceError`` when malformed)."""
    page = browse_posts(
        db,
        account,
        limit=limit,
        cursor=cursor,
        before=before,
        platform=platform,
        connection_id=connection_id,
        statuses=[status] if status else None,
        campaign=campaign,
        edition=edition,
        flow_run_id=flow_run_id,
        newer=True,
    )
    names = {c.id: c.name for c in connections.all_connections(db, account)}
    parts = PostRepository(db).parts_of([p.id for p in page.posts])
    return PostsPage(
        rows=[_row(p, names, parts.get(p.id, [])) for p in page.posts],
        older=page.older,
        newer=page.newer,
    )


def post(db: Session, account: Account, record_id: str) -> tuple[PostRow, Post] | None:
    """One post with its parts and what may be done about it, and its record."""
    found = PostRepository(db).get(account.id, record_id)
    if found is None:
        return None
    names = {c.id: c.name for c in connections.all_connections(db, account)}
    parts = PostRepository(db).parts_of([found.id]).get(found.id, [])
    now = utcnow()
    key = (
        IdempotencyRepository(db).get(account.id, found.idempotency_key)
        if found.idempotency_key is not None
        else None
    )
    kept = key is not None and key.expires_at > now
    return _row(found, names, parts, remedies(found, key_kept=kept, now=now)), found


def retried_notice(row: PostRow, retried: Retried) -> str:
    """What a retry from the post's page did, in a sentence."""
    answer = retried.answer
    error = answer.get("error") if isinstance(answer.get("error"), dict) else None
    message = str(error.get("message")) if error else ""
    if retried.status == 200:
        if retried.replayed:
            return f"Already published on {row.platform}: nothing was sent again."
        parts = answer.get("parts")
        whole = f", all {len(parts)} parts" if isinstance(parts, list) and parts else ""
        record = answer.get("recordId")
        again = "" if record == row.id else f" as a new post record {record}"
        return f"Retried: published on {row.platform}{whole}{again}."
    if retried.replayed:
        return (
            "Nothing was sent: the answer kept under this post's Idempotency-Key is a "
            f"refusal, and a retry with the key gets it again. {message}"
        )
    return f"Retried, and not published: {message}"


def looked_up_notice(row: PostRow, outcome: Found | Missing | NotPublished | CutShort) -> str:
    if isinstance(outcome, Found):
        return f"{row.platform} has this post: it is now recorded published."
    if isinstance(outcome, CutShort):
        return (
            f"{row.platform} has some of this post's parts, not all: it is now recorded "
            "partial, and a retry with its key sends only the rest."
        )
    if isinstance(outcome, NotPublished):
        return (
            f"{row.platform} has no such post: it is now recorded failed, and a retry "
            "with its key sends it."
        )
    minutes = int(LOOKUP_WINDOW.total_seconds() // 60)
    return (
        f"{row.platform} does not show this post yet. It is looked up again on its own; "
        f"one still missing {minutes} minutes after it was sent is recorded failed."
    )


def look_up_failed_notice(row: PostRow, exc: Exception) -> str:
    if isinstance(exc, PlatformUnavailable):
        return (
            f"{row.platform} cannot say now; look it up again in {exc.retry_after} seconds. "
            "Nothing was sent."
        )
    return (
        f"{row.platform} cannot be asked about this post ({exc}). Check the account on "
        "the platform; nothing was sent."
    )
