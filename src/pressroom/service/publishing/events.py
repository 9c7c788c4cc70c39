"""The webhook event of a post's change of status, written in the change's transaction.

``sending`` → ``published`` / ``failed`` / ``unknown`` / ``partial`` announce
``post.published``, ``post.failed``, ``post.unknown`` or ``post.partial`` (a thread
stays ``sending`` until every part is settled, so it is announced once, with its
``parts``); an ``unknown`` settled by looking the post up
announces ``post.resolved`` with the status it settled on.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from sqlalchemy.orm import Session

from pressroom.service.db.models import Post
from pressroom.service.db.prepared import Link
from pressroom.service.events import outbox
from pressroom.service.events.catalog import EventType
from pressroom.service.publishing.campaign import campaign_of
from pressroom.service.schemas import iso_utc
from pressroom.statuses import PostStatus

PUBLISHED = PostStatus.PUBLISHED.value
FAILED = PostStatus.FAILED.value
UNKNOWN = PostStatus.UNKNOWN.value
PARTIAL = PostStatus.PARTIAL.value


class PostFacts(Protocol):
    """What a post's event says of it (a model, or what a publish knows of its record)."""

    @property
    def id(self) -> str: ...
    @property
    def account_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def platform(self) -> str: ...
    @property
    def connection_id(self) -> str: ...
    @property
    def idempotency_key(self) -> str | None: ...
    @property
    def platform_post_id(self) -> str | None: ...
    @property
    def url(self) -> str | None: ...
    @property
    def published_at(self) -> datetime | None: ...
    @property
    def result(self) -> dict[str, Any] | None: ...
    @property
    def campaign_name(self) -> str | None: ...
    @property
    def campaign_edition(self) -> str | None: ...
    @property
    def campaign_post_id(self) -> str | None: ...
    @property
    def campaign_flow_run_id(self) -> str | None: ...


def announce(db: Session, post: Post, was: str) -> None:
    kind = event_of(was, post.status)
    if kind is not None:
        outbox.emit(db, post.account_id, kind, f"post:{post.id}", data_of(post))


def announce_in(link: Link, post: PostFacts, was: str) -> None:
    """``announce`` in a unit of work on prepared statements (``db.writer``)."""
    kind = event_of(was, post.status)
    if kind is not None:
        outbox.emit_in(link, post.account_id, kind, f"post:{post.id}", data_of(post))


def event_of(was: str, now: str) -> EventType | None:
    """The event a change of status announces, if any."""
    if now == was:
        return None
    if was == UNKNOWN and now in (PUBLISHED, FAILED):
        return EventType.POST_RESOLVED
    if now == PUBLISHED:
        return EventType.POST_PUBLISHED
    if now == FAILED:
        return EventType.POST_FAILED
    if now == UNKNOWN:
        return EventType.POST_UNKNOWN
    if now == PARTIAL:
        return EventType.POST_PARTIAL
    return None


def data_of(post: PostFacts) -> dict[str, Any]:
    data: dict[str, Any] = {
        "postId": post.id,
        "status": post.status,
        "platform": post.platform,
        "connectionId": post.connection_id,
        "idempotencyKey": post.idempotency_key,
        "campaign": campaign_data(post),
    }
    if post.status == PUBLISHED:
        data |= {
            "platformPostId": post.platform_post_id,
            "url": post.url,
            "publishedAt": iso_utc(post.published_at) if post.published_at else None,
        }
    elif post.status in (FAILED, PARTIAL):
        data["error"] = error_of(post.result or {})
    parts = (post.result or {}).get("parts")
    if isinstance(parts, list):
        data["parts"] = parts
    return data


def campaign_data(post: PostFacts) -> dict[str, Any] | None:
    """The post's ``campaign`` as ``GET /api/posts`` shows it, so a receiver can tell a
    campaign run's posts apart without asking for each record (null without one)."""
    found = campaign_of(
        post.campaign_name, post.campaign_edition, post.campaign_post_id, post.campaign_flow_run_id
    )
    return found.model_dump(mode="json", by_alias=True) if found else None


def error_of(result: dict[str, Any]) -> dict[str, Any]:
    error = result.get("error")
    if isinstance(error, dict):
        return {"code": error.get("code"), "message": error.get("message")}
    if "lookup" in result:
        return {"code": "not_published", "message": result["lookup"]}
    return {"code": None, "message": None}
