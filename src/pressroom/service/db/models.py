"""The tables of every domain. Relationships are ``lazy="raise"``: load explicitly."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from pressroom.service.db.base import Base, UTCDateTime
from pressroom.service.publishing.campaign import MAX_CHARS as CAMPAIGN_MAX_CHARS


class Account(Base):
    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    plan: Mapped[str] = mapped_column(String(20))
    api_key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """SHA-256 of the key: keys carry 256 random bits, so a slow hash adds nothing."""
    api_key_created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    api_key_last4: Mapped[str | None] = mapped_column(String(4), nullable=True)
    """The key's last four characters, so the dashboard can show it masked."""
    password_hash: Mapped[str | None] = mapped_column(Text, nullable=True)
    """Argon2 hash of the dashboard password; None until one is set."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Connection(Base):
    __tablename__ = "connections"
    __table_args__ = (Index("ix_connections_account_platform", "account_id", "platform"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    platform: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(200))
    display_name: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="active")
    connected_at: Mapped[datetime] = mapped_column(UTCDateTime())
    token_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    account_type: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """photo_sharing: business, creator or personal."""
    page_kind: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """page_social: page or profile."""
    pages_permission: Mapped[bool] = mapped_column(Boolean, default=True)
    verified: Mapped[bool] = mapped_column(Boolean, default=False)
    """video_sharing: custom thumbnails need a verified channel."""
    parent_id: Mapped[str | None] = mapped_column(ForeignKey("connections.id"), nullable=True)
    """text_thread: the photo_sharing connection it belongs to."""
    removed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    """Disconnected: kept for the post history, invisible to the API."""
    access_token_enc: Mapped[str | None] = mapped_column(Text, nullable=True)
    """The platform's access token, encrypted by the token vault (``oauth.vault``)."""
    refresh_token_enc: Mapped[str | None] = mapped_column(Text, nullable=True)
    access_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    """When the access token lapses: refreshed then; a failed refresh sets
    ``token_expires_at`` and the connection turns inactive."""


class Folder(Base):
    __tablename__ = "folders"
    __table_args__ = (Index("ix_folders_account_created", "account_id", "created_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class File(Base):
    __tablename__ = "files"
    __table_args__ = (
        Index("ix_files_account_created", "account_id", "created_at"),
        Index("ix_files_status", "status"),
        Index("ix_files_account_sha256", "account_id", "sha256"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    folder_id: Mapped[str | None] = mapped_column(
        ForeignKey("folders.id", ondelete="SET NULL"), nullable=True
    )
    filename: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(20))
    storage_key: Mapped[str] = mapped_column(String(200))
    size: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    upload_expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    uploaded_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    processed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    media_format: Mapped[str | None] = mapped_column(String(100), nullable=True)
    duration_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    width: Mapped[int | None] = mapped_column(Integer, nullable=True)
    height: Mapped[int | None] = mapped_column(Integer, nullable=True)
    video_codec: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """A video's codec, audio's and frame rate, as probed: what networks' media rules
    (``pressroom.rules``) are judged on. Null for images and for files probed before
    they were recorded."""
    audio_codec: Mapped[str | None] = mapped_column(String(32), nullable=True)
    frame_rate: Mapped[float | None] = mapped_column(Float, nullable=True)
    pages: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """A document's page count, as read (LinkedIn's document rule counts pages); null
    for images and videos."""
    failure_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    poster_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """A video's poster frame (JPEG), made during processing, for the library's preview."""
    sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """Hex SHA-256 of the bytes: taken as they stream in (local) or from processing's
    local copy (s3, where the bytes never pass through the service)."""


class UploadUsage(Base):
    """Presigned URLs issued per calendar month (UTC); deleting a file gives nothing back."""

    __tablename__ = "upload_usage"

    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    month: Mapped[str] = mapped_column(String(7), primary_key=True)
    uploads: Mapped[int] = mapped_column(Integer, default=0)


class Post(Base):
    """Every publish the service made, with what was asked and what came back."""

    __tablename__ = "posts"
    __table_args__ = (
        Index("ix_posts_account_created", "account_id", "created_at"),
        # GET /api/posts?campaign=&edition=&flowRunId=, each newest first.
        Index(
            "ix_posts_account_campaign",
            "account_id",
            "campaign_name",
            "campaign_edition",
            "created_at",
        ),
        Index("ix_posts_account_edition", "account_id", "campaign_edition", "created_at"),
        Index("ix_posts_account_flow_run", "account_id", "campaign_flow_run_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    connection_id: Mapped[str] = mapped_column(ForeignKey("connections.id"))
    platform: Mapped[str] = mapped_column(String(32))
    file_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    status: Mapped[str] = mapped_column(String(20))
    platform_post_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    idempotency_key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    published_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # The body's ``campaign`` (publishing.campaign), all null when it had none.
    campaign_name: Mapped[str | None] = mapped_column(String(CAMPAIGN_MAX_CHARS), nullable=True)
    campaign_edition: Mapped[str | None] = mapped_column(String(CAMPAIGN_MAX_CHARS), nullable=True)
    campaign_post_id: Mapped[str | None] = mapped_column(String(CAMPAIGN_MAX_CHARS), nullable=True)
    campaign_flow_run_id: Mapped[str | None] = mapped_column(
        String(CAMPAIGN_MAX_CHARS), nullable=True
    )


class PostPart(Base):
    """One part of a post made of several (a thread's post and replies), keyed by its
    post record and its index from 0: each part is sent, and recorded, on its own, so a
    retry resumes after the parts that stand and never sends one twice."""

    __tablename__ = "post_parts"

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    index: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(20))
    platform_post_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    reply_to: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """The network's id of the part this one replies to, as it was sent."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    published_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class IdempotencyRecord(Base):
    """One row per (account, key): the unique constraint is what makes replays race-safe."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (
        UniqueConstraint("account_id", "key"),
        # Every claim purges the account's expired keys: without this index that DELETE
        # reads all of the account's keys inside the claim's write transaction.
        Index("ix_idempotency_keys_account_expires", "account_id", "expires_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    endpoint: Mapped[str] = mapped_column(String(200))
    request_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    response_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response_body: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """The registered process (``service_processes.id``) running the request that holds
    an ``in_progress`` claim; None when it was not registered."""


class SandboxDelivery(Base):
    """What reached a sandbox platform: the platform's own record, not the service's."""

    __tablename__ = "sandbox_deliveries"
    __table_args__ = (Index("ix_sandbox_deliveries_dedup_key", "platform", "dedup_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    platform: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(16))
    connection_id: Mapped[str] = mapped_column(String(40))
    platform_post_id: Mapped[str] = mapped_column(String(200))
    url: Mapped[str] = mapped_column(String(500))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    dedup_key: Mapped[str | None] = mapped_column(String(300), nullable=True)
    """The client's token for this post (account and Idempotency-Key), where one was sent."""


class WebSession(Base):
    """A signed-in browser. The cookie holds a random token; only its hash is kept."""

    __tablename__ = "web_sessions"
    __table_args__ = (Index("ix_web_sessions_account", "account_id"),)

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    revealed_key: Mapped[str | None] = mapped_column(Text, nullable=True)
    """A new API key waiting to be shown once (encrypted), cleared when shown."""


class SignInFailure(Base):
    """One failed sign-in, counted per email and per address for throttling."""

    __tablename__ = "sign_in_failures"
    __table_args__ = (
        Index("ix_sign_in_failures_email_at", "email", "created_at"),
        Index("ix_sign_in_failures_address_at", "address", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    email: Mapped[str] = mapped_column(String(320))
    address: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class SignInLink(Base):
    """A one-time sign-in link printed by the operator's CLI; only its hash is kept."""

    __tablename__ = "sign_in_links"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class OAuthState(Base):
    """One authorization in flight: its ``state``, PKCE verifier and what it is for.

    A row of platform ``page_social.choice`` is a Facebook grant awaiting the person's
    choice of Pages: its ``code_verifier_enc`` holds the person's token, encrypted as a
    verifier is, for the few minutes the choice page lives."""

    __tablename__ = "oauth_states"

    state_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    platform: Mapped[str] = mapped_column(String(32))
    code_verifier_enc: Mapped[str] = mapped_column(Text)
    reconnect_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class SandboxGrant(Base):
    """The sandbox authorization server's side: codes, access and refresh tokens."""

    __tablename__ = "sandbox_grants"
    __table_args__ = (Index("ix_sandbox_grants_grant", "grant_id"),)

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    """``code``, ``access`` or ``refresh``."""
    grant_id: Mapped[str] = mapped_column(String(40))
    platform: Mapped[str] = mapped_column(String(32))
    client_id: Mapped[str] = mapped_column(String(100))
    profile: Mapped[dict[str, Any]] = mapped_column(JSON)
    redirect_uri: Mapped[str | None] = mapped_column(String(500), nullable=True)
    code_challenge: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class ServiceProcess(Base):
    """A live ``pressroom api`` process, seen by the others through the database: who
    shares it, from which host, storing files where (``pressroom.service.processes``)."""

    __tablename__ = "processes"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))
    storage: Mapped[str] = mapped_column(String(20))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    heartbeat_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class MediaJob(Base):
    """Work on a file (``media.jobs``), waiting or under way: claimed by one worker under a
    lease it renews, taken by another once the lease runs out, deleted when done.

    Two kinds: ``process`` (written in the same transaction that moves the file to
    ``processing``) and ``derive`` (a derived file for the network profile ``target``,
    written with its ``media_derivatives`` row)."""

    __tablename__ = "media_jobs"
    __table_args__ = (Index("ix_media_jobs_available", "available_at"),)

    file_id: Mapped[str] = mapped_column(
        ForeignKey("files.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(
        String(16), primary_key=True, default="process", server_default="process"
    )
    target: Mapped[str] = mapped_column(String(60), primary_key=True, default="", server_default="")
    """The profile a ``derive`` job makes a file for; empty for ``process``."""
    available_at: Mapped[datetime] = mapped_column(UTCDateTime())
    """Not before: now for a new job, later for one that is retried after a failure."""
    claimed_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Derivative(Base):
    """A file converted for one network profile (``media.derivatives``): made once by a
    ``derive`` job, stored beside the original (which never changes), and sent in its
    place to that network by every post of the file there."""

    __tablename__ = "media_derivatives"
    __table_args__ = (UniqueConstraint("file_id", "profile"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    file_id: Mapped[str] = mapped_column(ForeignKey("files.id", ondelete="CASCADE"))
    network: Mapped[str] = mapped_column(String(32))
    """The label it is made for (``photo_sharing``)."""
    profile: Mapped[str] = mapped_column(String(60))
    """``pressroom.rules.targets``: ``photo_sharing.image``, ``video_sharing.thumbnail``,
    ``photo_sharing.image.pad``."""
    status: Mapped[str] = mapped_column(String(16))
    """``pending`` (being made), ``ready`` or ``failed`` (with ``failure_reason``)."""
    content_type: Mapped[str | None] = mapped_column(String(100), nullable=True)
    storage_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    size: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    width: Mapped[int | None] = mapped_column(Integer, nullable=True)
    height: Mapped[int | None] = mapped_column(Integer, nullable=True)
    duration_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    video_codec: Mapped[str | None] = mapped_column(String(32), nullable=True)
    audio_codec: Mapped[str | None] = mapped_column(String(32), nullable=True)
    frame_rate: Mapped[float | None] = mapped_column(Float, nullable=True)
    failure_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class PeriodicLease(Base):
    """Who runs a periodic task now (``pressroom.service.leases``): one runner per task
    across every process sharing the database."""

    __tablename__ = "periodic_leases"

    name: Mapped[str] = mapped_column(String(60), primary_key=True)
    owner: Mapped[str] = mapped_column(String(60))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())


class RateLimitWindow(Base):
    """A key's current one-minute window, counted in the database so that every process
    on it counts together (PostgreSQL deployments; see ``pressroom.service.ratelimit``)."""

    __tablename__ = "rate_limit_windows"

    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    window_start: Mapped[datetime] = mapped_column(UTCDateTime())
    count: Mapped[int] = mapped_column(Integer)


class WebhookEndpoint(Base):
    """Where an account wants its events pushed (``pressroom.service.webhooks``)."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    url: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str] = mapped_column(String(200), default="")
    events: Mapped[list[str]] = mapped_column(JSON)
    secret: Mapped[str] = mapped_column(Text)
    """The signing secret, encrypted by the token vault."""
    previous_secret: Mapped[str | None] = mapped_column(Text, nullable=True)
    previous_secret_until: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    """Until when the secret before the last rotation signs too (the grace period)."""
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    disabled_reason: Mapped[str | None] = mapped_column(String(500), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class WebhookEvent(Base):
    """One thing that happened, written in the transaction of the change itself (the
    outbox), whether or not an endpoint listens (``GET /api/events`` lists them for the
    retention period): its id is the ``webhook-id`` of every delivery of it."""

    __tablename__ = "webhook_events"
    __table_args__ = (
        # The account's events, newest first (GET /api/events); and the retention purge.
        Index("ix_webhook_events_account_created", "account_id", "created_at", "id"),
        Index("ix_webhook_events_created_at", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    type: Mapped[str] = mapped_column(String(40))
    resource: Mapped[str] = mapped_column(String(80))
    """What it is about (a file, post, connection or the API key): order is kept per resource."""
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class WebhookDelivery(Base):
    """An event on its way to one endpoint: a durable job, claimed under a lease."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_due", "state", "next_attempt_at"),
        Index("ix_webhook_deliveries_queue", "endpoint_id", "resource", "seq"),
    )

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    """Written in event order: first in, first out per (endpoint, resource)."""
    id: Mapped[str] = mapped_column(String(40), unique=True)
    event_id: Mapped[str] = mapped_column(
        ForeignKey("webhook_events.id", ondelete="CASCADE"), index=True
    )
    endpoint_id: Mapped[str] = mapped_column(ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    resource: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(16))
    """``pending`` (to send, or sending), ``delivered``, ``failed`` (gave up)."""
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime())
    claimed_by: Mapped[str | None] = mapped_column(String(80), nullable=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(500), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class WebhookAttempt(Base):
    """One try at a delivery, for the endpoint's delivery log."""

    __tablename__ = "webhook_attempts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    delivery_id: Mapped[str] = mapped_column(
        ForeignKey("webhook_deliveries.id", ondelete="CASCADE"), index=True
    )
    attempted_at: Mapped[datetime] = mapped_column(UTCDateTime())
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The receiver's HTTP status; None when it never answered."""
    latency_ms: Mapped[int] = mapped_column(Integer)
    excerpt: Mapped[str] = mapped_column(String(500), default="")
    """The start of the answer's body, or the error when there was none: never more."""


class MetricSnapshot(Base):
    """What a network reported of one part of a post at one moment
    (``pressroom.service.metrics``): a series per post, newest last. None where the
    network does not count the figure."""

    __tablename__ = "metric_snapshots"
    __table_args__ = (Index("ix_metric_snapshots_post_taken", "post_id", "part_index", "taken_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    part_index: Mapped[int] = mapped_column(Integer)
    """The part of a post of several the figures are for (0: the post the spec's fields
    describe)."""
    taken_at: Mapped[datetime] = mapped_column(UTCDateTime())
    impressions: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    views: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    likes: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    comments: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    shares: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    saves: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    clicks: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class PostMetricsState(Base):
    """When a post's metrics were last asked for (a round asks the oldest first), and
    why the network gives none, when it does not."""

    __tablename__ = "post_metrics_state"
    __table_args__ = (Index("ix_post_metrics_state_refreshed", "refreshed_at"),)

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    refreshed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    unavailable_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    unavailable_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    unavailable_final: Mapped[bool] = mapped_column(Boolean, default=False)
    """The network will never give this post's figures (``MetricsUnsupported``): no
    round asks again. A refused token is not final: a reconnect brings them back."""


class MetricRound(Base):
    """One metrics refresh an account started (``POST /api/posts/metrics/refresh``)."""

    __tablename__ = "metric_rounds"
    __table_args__ = (Index("ix_metric_rounds_account_started", "account_id", "started_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(16))
    """``running`` | ``done`` | ``failed``."""
    filters: Mapped[dict[str, Any]] = mapped_column(JSON)
    networks: Mapped[dict[str, Any]] = mapped_column(JSON)
    """Per network label: the counts of the round (``refreshed``, ``unavailable``,
    ``failed``, ``deferred``: left for a later round by the network's budget)."""
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)
