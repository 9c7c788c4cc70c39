"""The fixed values of the API's status fields, one enum each (one source for the service,
its OpenAPI document and the client).

They are ``StrEnum``: a member equals its string (``FileState.READY == "ready"``), so code
that compares with strings keeps working. The client's models keep such fields typed
``str``: the hosted service sends values of its own (``"COMPLETED"``, ``"uploaded"``), and a
client must not refuse an answer over them; compare with these members.
"""

from __future__ import annotations

from enum import StrEnum


class FileState(StrEnum):
    """A file's life: ``pending_upload`` → ``processing`` → ``ready`` | ``failed``."""

    PENDING_UPLOAD = "pending_upload"
    PROCESSING = "processing"
    READY = "ready"
    FAILED = "failed"


class DerivativeState(StrEnum):
    """A file converted for a network: ``pending`` while it is made, then ``ready`` or
    ``failed`` (with a reason naming the bound or the rule it could not meet)."""

    PENDING = "pending"
    READY = "ready"
    FAILED = "failed"


class PostStatus(StrEnum):
    """A post record: ``sending`` until the platform answered; ``unknown`` when the platform
    failed after receiving it (it may be live); ``partial`` when some parts of a thread
    stand and the network refused a later one (a retry with the key resumes after them)."""

    SENDING = "sending"
    PUBLISHED = "published"
    FAILED = "failed"
    UNKNOWN = "unknown"
    PARTIAL = "partial"


class PartKind(StrEnum):
    """What a part of a post is: a thread is a ``post`` then ``reply`` parts; a carousel
    a ``post`` then an ``item`` per file; a first comment a ``comment``."""

    POST = "post"
    REPLY = "reply"
    ITEM = "item"
    COMMENT = "comment"


class PartStatus(StrEnum):
    """A part's outcome: ``sending`` only while its request runs (never answered)."""

    SENDING = "sending"
    PUBLISHED = "published"
    FAILED = "failed"
    UNKNOWN = "unknown"


class RecordStatus(StrEnum):
    """``error.recordStatus`` of a publish 5xx: whether the post reached the platform."""

    NOT_SENT = "not_sent"
    UNKNOWN = "unknown"
    PUBLISHED = "published"


class ConnectionStatus(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"


class PrivacyStatus(StrEnum):
    """video_sharing's ``privacyStatus``."""

    PUBLIC = "public"
    UNLISTED = "unlisted"
    PRIVATE = "private"


class ShortVideoPrivacyLevel(StrEnum):
    """short_video's ``privacyLevel``: TikTok's own values
    (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post). An
    account offers three of them: a public one PUBLIC_TO_EVERYONE, a private one
    FOLLOWER_OF_CREATOR, both MUTUAL_FOLLOW_FRIENDS and SELF_ONLY."""

    PUBLIC_TO_EVERYONE = "PUBLIC_TO_EVERYONE"
    MUTUAL_FOLLOW_FRIENDS = "MUTUAL_FOLLOW_FRIENDS"
    FOLLOWER_OF_CREATOR = "FOLLOWER_OF_CREATOR"
    SELF_ONLY = "SELF_ONLY"
