"""The interface every platform driver implements, and what crosses it.

A driver speaks to one platform: ``publish`` sends a post, ``set_thumbnail`` replaces a
video's thumbnail. Both are plain blocking calls: the publish routes run in FastAPI's
threadpool, so a slow platform holds one worker thread and never the event loop.

A transient failure is ``PlatformUnavailable``; ``sent`` says whether the request may
already have reached the platform, which decides whether a resend could post twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pressroom.platforms import MediaKind, Platform


@dataclass(frozen=True)
class Account:
    """The social account a post goes to, as the platform knows it."""

    connection_id: str
    name: str


@dataclass(frozen=True)
class Media:
    file_id: str
    kind: MediaKind
    content_type: str
    storage_key: str
    duration_seconds: float | None = None


@dataclass(frozen=True)
class Delivery:
    """One post as a platform receives it."""

    platform: Platform
    account: Account
    fields: dict[str, Any]
    """The post's own fields, named as in the publish body (``text``, ``title``, ``boardId``)."""
    media: Media | None
    reference: str
    """Our post record id: kept by the platform's record where it has room for one."""
    dedup_key: str | None = None
    """Passed through from the caller's Idempotency-Key, for platforms that accept a
    client token. Never relied on: most networks take none, so an unknown outcome is
    settled by ``find_delivery``, not by resending with the token."""


@dataclass(frozen=True)
class Published:
    platform_post_id: str
    url: str
    published_at: datetime
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ThumbnailChange:
    account: Account
    video_id: str
    image: Media


@dataclass(frozen=True)
class ThumbnailSet:
    video_id: str
    thumbnail_url: str
    updated_at: datetime


class PlatformUnavailable(Exception):
    """The platform failed transiently; retrying later may succeed."""

    def __init__(self, message: str, *, retry_after: int, sent: bool) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.sent = sent
        """True when the request reached the platform before it failed: the post may exist."""


class PlatformDriver(Protocol):
    platform: Platform

    def publish(self, delivery: Delivery) -> Published: ...

    def find_delivery(self, delivery: Delivery, sent_at: datetime) -> Published | None:
        """The post ``delivery`` became, if the platform has it: how an unknown outcome
        (a timeout, a 5xx after sending) is settled without a blind resend. Networks
        are searched by content among the account's posts since ``sent_at``; None when
        the platform has no such post. Raises ``PlatformUnavailable`` when it cannot
        tell now."""
        ...

    def set_thumbnail(self, change: ThumbnailChange) -> ThumbnailSet: ...
