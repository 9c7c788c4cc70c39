"""The webhook event of a post's change of status, written in the change's transaction.

``sending`` → ``published`` / ``failed`` / ``unknown`` announce ``post.published``,
``post.failed`` or ``post.unknown``; an ``unknown`` settled by looking the post up
announces ``post.resolved`` with the status it settled on.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from pressroom.service.db.models import Post
from pressroom.service.events import outbox
from pressroom.service.events.catalog import EventType
from pressroom.service.schemas import iso_utc
from pressroom.statuses import PostStatus

PUBLISHED = PostStatus.PUBLISHED.value
FAILED = PostStatus.FAILED.value
UNKNOWN = PostStatus.UNKNOWN.value


def announce(db: Session, post: Post, was: str) -> None:
    now = post.status
    if now == was:
        return
    if was == UNKNOWN and now in (PUBLISHED, FAILED):
        kind = EventType.POST_RESOLVED
    elif now == PUBLISHED:
        kind = EventType.POST_PUBLISHED
    elif now == FAILED:
        kind = EventType.POST_FAILED
    elif now == UNKNOWN:
        kind = EventType.POST_UNKNOWN
    else:
        return
    outbox.emit(db, post.account_id, kind, f"post:{post.id}", data_of(post))


def data_of(post: Post) -> dict[str, Any]:
    data: dict[str, Any] = {
        "postId": post.id,
        "status": post.status,
        "platform": post.platform,
        "connectionId": post.connection_id,
        "idempotencyKey": post.idempotency_key,
    }
    if post.status == PUBLISHED:
        data |= {
            "platformPostId": post.platform_post_id,
            "url": post.url,
            "publishedAt": iso_utc(post.published_at) if post.published_at else None,
        }
    elif post.status == FAILED:
        data["error"] = error_of(post.result or {})
    return data


def error_of(result: dict[str, Any]) -> dict[str, Any]:
    error = result.get("error")
    if isinstance(error, dict):
        return {"code": error.get("code"), "message": error.get("message")}
    if "lookup" in result:
        return {"code": "not_published", "message": result["lookup"]}
    return {"code": None, "message": None}
