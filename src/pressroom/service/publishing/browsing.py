"""Post records a page at a time, newest first, both ways: the API's list (older pages
only, by ``nextCursor``) and the dashboard's history (older and newer pages).

Keyset pagination over (created_at, id), as every list of the service (``media.pagination``):
a page is stable while new posts arrive at the top, and there is no cap on how far back
one may go. Filters apply in SQL, so every page is full until the last.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service.connections.repository import ConnectionRepository
from pressroom.service.db.models import Account, Post
from pressroom.service.errors import ServiceError
from pressroom.service.media.pagination import Position, decode_cursor, encode_cursor
from pressroom.service.publishing.repository import PostRepository


@dataclass(frozen=True)
class PostsPage:
    posts: list[Post]
    older: str | None
    """The cursor of the next page (older posts), None on the last."""
    newer: str | None
    """The cursor of the page before (newer posts), None on the first, or when not asked."""


def browse_posts(
    db: Session,
    account: Account,
    *,
    limit: int,
    cursor: str | None = None,
    before: str | None = None,
    connection_id: str | None = None,
    platform: str | None = None,
    idempotency_key: str | None = None,
    statuses: Collection[str] | None = None,
    campaign: str | None = None,
    edition: str | None = None,
    flow_run_id: str | None = None,
    newer: bool = False,
) -> PostsPage:
    """The page older than ``cursor``, or the one newer than ``before``; ``newer``
    asks for the cursor back towards the newest as well (one more small query)."""
    if cursor is not None and before is not None:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            "before and cursor go one way each: send one of them.",
            field="before",
        )
    _check_filters(db, account, platform, connection_id)
    after = decode_cursor(cursor)
    until = decode_cursor(before, field="before")
    repository = PostRepository(db)

    def fetch(count: int, *, older: Position | None, newer: Position | None) -> list[Post]:
        return repository.newest_first(
            account.id,
            limit=count,
            after=older,
            before=newer,
            connection_id=connection_id,
            platform=platform,
            idempotency_key=idempotency_key,
            statuses=statuses,
            campaign=campaign,
            edition=edition,
            flow_run_id=flow_run_id,
        )

    found = fetch(limit + 1, older=after, newer=until)
    if until is None:
        posts = found[:limit]
        more_older = len(found) > limit
        more_newer = (
            newer
            and after is not None
            and bool(posts)
            and bool(fetch(1, older=None, newer=_position(posts[0])))
        )
    else:
        posts = found[-limit:]
        more_newer = len(found) > limit
        more_older = bool(posts) and bool(fetch(1, older=_position(posts[-1]), newer=None))
    return PostsPage(
        posts=posts,
        older=encode_cursor(_position(posts[-1])) if more_older and posts else None,
        newer=encode_cursor(_position(posts[0])) if newer and more_newer and posts else None,
    )


def _position(post: Post) -> Position:
    return Position(post.created_at, post.id)


def _check_filters(
    db: Session, account: Account, platform: str | None, connection_id: str | None
) -> None:
    if platform is not None and platform not in {p.value for p in Platform}:
        known = ", ".join(p.value for p in Platform)
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"platform must be one of {known}, not {platform!r}.",
            field="platform",
        )
    if connection_id is not None:
        connection = ConnectionRepository(db).get(connection_id)
        if connection is None or connection.account_id != account.id:
            # As everywhere, a foreign id is indistinguishable from one that never was.
            # An own connection that was since removed still filters its history.
            raise ServiceError(
                error_codes.CONNECTION_NOT_FOUND,
                f"No connection {connection_id!r} in this account.",
                field="connectionId",
            )
