"""The events pressroom sends, one source for the API, the dashboard and the docs."""

from __future__ import annotations

from enum import StrEnum


class EventType(StrEnum):
    FILE_READY = "file.ready"
    FILE_FAILED = "file.failed"
    POST_PUBLISHED = "post.published"
    POST_FAILED = "post.failed"
    POST_UNKNOWN = "post.unknown"
    POST_RESOLVED = "post.resolved"
    POST_PARTIAL = "post.partial"
    POST_METRICS = "post.metrics"
    CONNECTION_ACTIVE = "connection.active"
    CONNECTION_INACTIVE = "connection.inactive"
    CONNECTION_REMOVED = "connection.removed"
    API_KEY_ROTATED = "api_key.rotated"
    WEBHOOK_TEST = "webhook.test"


SUBSCRIBABLE = tuple(t.value for t in EventType if t is not EventType.WEBHOOK_TEST)
"""What an endpoint may subscribe to; ``webhook.test`` goes only to the endpoint tested."""

OFF_BY_DEFAULT = frozenset({EventType.POST_METRICS.value})
"""Sent only to an endpoint that names them: one per post per metrics round is far more
than most receivers want."""

BY_DEFAULT = tuple(t for t in SUBSCRIBABLE if t not in OFF_BY_DEFAULT)
"""What an endpoint created without ``events`` subscribes to."""

DESCRIPTIONS: dict[EventType, str] = {
    EventType.FILE_READY: "An upload was processed and can be published. "
    "`data`: the file, as `GET /api/upload/status/{fileId}` returns it.",
    EventType.FILE_FAILED: "An upload could not be used. `data`: the file, with `failureReason`.",
    EventType.POST_PUBLISHED: "A publish went out. `data`: `postId`, `platform`, "
    "`connectionId`, `platformPostId`, `url`, `idempotencyKey`, `campaign` (the publish "
    "body's: `name`, `edition`, `postId`, `flowRunId`; null without one, as on "
    "`GET /api/posts`); a thread's once every part stands, with `parts`.",
    EventType.POST_FAILED: "A publish was refused or never reached its network. `data`: "
    "`postId`, `platform`, `connectionId`, `error` (`code`, `message`), `idempotencyKey`, "
    "`campaign`.",
    EventType.POST_UNKNOWN: "A publish reached its network and no answer came back: "
    "pressroom looks it up and sends `post.resolved`. `data`: `postId`, `platform`, "
    "`connectionId`, `idempotencyKey`, `campaign`.",
    EventType.POST_RESOLVED: "An unknown outcome was settled by looking the post up. "
    "`data`: as `post.published` with `status: published`, or `status: failed`.",
    EventType.POST_PARTIAL: "A thread was cut short: its first parts stand and the network "
    "refused a later one (a retry with the same Idempotency-Key resumes after them). "
    "`data`: as `post.failed`, with `parts` (`index`, `kind`, `platformPostId`, `url`, "
    "`status`).",
    EventType.POST_METRICS: "A metrics round read a post's figures from its network "
    "(off unless an endpoint names it in `events`); one event per post and round. `data`: "
    "`postId`, `platform`, `connectionId`, `campaign`, `takenAt`, `metrics` (part 0's "
    "figures: `impressions`, `views`, `likes`, `comments`, `shares`, `saves`, `clicks`; "
    "null where the network does not count it), `parts` (a thread's replies, each a post "
    "on the network: `index`, `kind`, `platformPostId`, `latest` (its newest figures, "
    "with `takenAt` and `partIndex`); empty for a post of one part) and `totals` (part "
    "0's figures plus each part's latest: the whole thread), as "
    "`GET /api/posts/{recordId}/metrics` shows them without the series.",
    EventType.CONNECTION_ACTIVE: "A connection can publish (connected or reconnected). "
    "`data`: `connectionId`, `platform`, `name`.",
    EventType.CONNECTION_INACTIVE: "A connection can no longer publish. `data`: "
    "`connectionId`, `platform`, `name`, `reason`: `token_expired`, `refresh_failed`, "
    "`access_revoked`, `parent_removed` or `parent_inactive` (a text_thread twin of a "
    "photo_sharing account that was disconnected or lost its token).",
    EventType.CONNECTION_REMOVED: "A connection was disconnected and is gone. `data`: "
    "`connectionId`, `platform`, `name`.",
    EventType.API_KEY_ROTATED: "The account's API key was rotated; the old one no longer "
    "works. `data`: `rotatedAt`, `last4` (never the key).",
    EventType.WEBHOOK_TEST: "Sent on request to one endpoint. `data`: `endpointId`, `message`.",
}


class InactiveReason(StrEnum):
    TOKEN_EXPIRED = "token_expired"
    REFRESH_FAILED = "refresh_failed"
    ACCESS_REVOKED = "access_revoked"
    PARENT_REMOVED = "parent_removed"
    PARENT_INACTIVE = "parent_inactive"
