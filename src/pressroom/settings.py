"""Settings from flags or ``PRESSROOM_*`` environment variables, split by concern.

Nothing here touches the disk at import time; ``get_settings()`` builds them once per
process (call ``get_settings.cache_clear()`` after changing the environment, as the
CLI does for its flags and the tests do for each app they build).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

_ENV = SettingsConfigDict(env_prefix="PRESSROOM_", extra="ignore")

WEBHOOK_LEASE_MARGIN_SECONDS = 10.0
"""How much longer than the attempt deadline a webhook delivery's lease must be: room to
record the attempt (a database write) and for the clocks of several machines to differ."""


class DatabaseSettings(BaseSettings):
    model_config = _ENV
    database_url: str | None = None
    """SQLAlchemy URL; default: a SQLite file in the data dir, in WAL mode."""
    database_busy_timeout_seconds: float = Field(10.0, gt=0, le=300)
    """How long a unit of work waits for SQLite's write lock or a pooled connection
    before the request is answered ``503 database_busy``."""


class StorageSettings(BaseSettings):
    """Where uploaded bytes live and the rules of the presigned upload."""

    model_config = _ENV
    storage: Literal["local", "s3"] = "local"
    """``local`` keeps bytes under the data dir (one host); ``s3`` any S3-compatible store."""
    max_upload_bytes: int = Field(5 * 1024**3, gt=0)
    """Larger uploads are refused (``413 upload_too_large``)."""
    upload_url_ttl_seconds: int = Field(3600, ge=1, le=7 * 24 * 3600)
    """How long an upload URL works (at most 7 days)."""
    upload_grace_seconds: int = Field(3600, ge=0)
    """How long after its URL expired a file with no bytes is still awaited, since a
    PUT begun just before expiry may finish later; after that it is marked failed."""
    s3_bucket: str = "pressroom"
    """The bucket; it must exist."""
    s3_region: str = "us-east-1"
    """The region URLs are signed for."""
    s3_endpoint_url: str | None = None
    """The store's address (``http://127.0.0.1:8333`` for SeaweedFS); unset: AWS. Clients
    must reach the store at exactly this address, since the signature covers the host."""
    s3_access_key_id: str | None = None
    """Credentials; unset: boto3's usual chain (an instance role, ``~/.aws``)."""
    s3_secret_access_key: str | None = None
    """The secret of ``PRESSROOM_S3_ACCESS_KEY_ID``."""
    s3_key_prefix: str = ""
    """Prepended to every object key, so deployments can share a bucket."""


class SandboxSettings(BaseSettings):
    """Knobs of the sandbox platform drivers, so retries and outages can be rehearsed."""

    model_config = _ENV
    platform_driver: Literal["sandbox"] = "sandbox"
    """The default driver of every label; a label whose client id and secret are set
    publishes to its real network instead."""
    sandbox_latency_ms: int = 0
    """Every sandbox platform call takes this long (a publish waits on the event loop,
    other calls on a worker thread; other requests go on)."""
    sandbox_failure_rate: float = Field(0.0, ge=0.0, le=1.0)
    """Share of sandbox calls answered with a transient failure (``503
    platform_unavailable``)."""
    sandbox_failure_mode: Literal["before", "after"] = "before"
    """``before``: a failure reaches no platform; ``after``: the post is delivered, then the
    call fails (its record ``unknown``), to rehearse unknown outcomes."""
    sandbox_seed: int | None = None
    """Makes the sandbox's ids and failures repeatable; unset: random."""
    sandbox_dedupe: bool = True
    """Record a post once per client token (Idempotency-Key); off in exactly-once tests."""
    sandbox_short_video_audited: bool = True
    """Whether the sandbox's short_video app is one TikTok has audited. Off, it is refused
    any privacy level but ``SELF_ONLY``, as TikTok refuses an unaudited app."""
    sandbox_daily_quotas: bool = True
    """Refuse a post over the account's daily quota (``posts_per_day``: Instagram 100,
    Threads 250 in a moving 24 hours), as the network does. Off only for load rehearsals
    and benchmarks that post more in a day than a real account may: on, their later runs
    wait out the network's ``Retry-After`` (an hour and more) as a real run would."""
    sandbox_container_ready_ms: int = Field(0, ge=0)
    """How long a photo_sharing or text_thread media container takes to be ready after
    it is made (Meta's "about 30 seconds" for media); the driver waits for it as the
    real ones do, up to ``PRESSROOM_META_CONTAINER_WAIT_SECONDS``."""


class NetworkSettings(BaseSettings):
    """The apps an operator registered with the real networks.

    A label whose client id and secret are both set publishes to its network; any other
    label keeps the sandbox driver. Register ``{PRESSROOM_BASE_URL}/oauth/callback/{label}``
    as the app's redirect URL.
    """

    model_config = _ENV
    microblog_client_id: str | None = None
    microblog_client_secret: str | None = None
    video_sharing_client_id: str | None = None
    video_sharing_client_secret: str | None = None
    short_video_client_id: str | None = None
    short_video_client_secret: str | None = None
    photo_sharing_client_id: str | None = None
    photo_sharing_client_secret: str | None = None
    page_social_client_id: str | None = None
    page_social_client_secret: str | None = None
    pin_board_client_id: str | None = None
    pin_board_client_secret: str | None = None
    text_thread_client_id: str | None = None
    text_thread_client_secret: str | None = None
    professional_network_client_id: str | None = None
    professional_network_client_secret: str | None = None
    professional_network_api_version: str = Field("202608", pattern=r"^\d{4}(0[1-9]|1[0-2])$")
    """The ``LinkedIn-Version`` (YYYYMM) sent to LinkedIn's versioned APIs. LinkedIn serves
    each version at least a year (https://learn.microsoft.com/en-us/linkedin/marketing/versioning):
    pressroom warns a month before that year is out and refuses to send once it is
    (``pressroom.service.drivers.linkedin_versions``). The
    default is the newest version LinkedIn's "Recent Marketing API Changes" page names
    (August 2026, https://learn.microsoft.com/en-us/linkedin/marketing/integrations/recent-changes)."""
    open_microblog_service_url: str | None = Field(None, pattern=r"^https?://[^/?#]+/?$")
    """open_microblog (Bluesky, our extension) publishes for real once this is set: the
    AT Protocol service where handles are resolved, ``https://bsky.social`` for Bluesky.
    Bluesky needs no app registration, so there is no client id or secret; each account's
    own server (PDS) is found from its DID document."""
    open_microblog_plc_url: str = Field("https://plc.directory", pattern=r"^https?://[^/?#]+/?$")
    """The PLC directory that ``did:plc`` identities are read from."""
    open_microblog_appview: str = Field(
        "did:web:api.bsky.app#bsky_appview", pattern=r"^did:[a-z]+:[^#\s]+#[A-Za-z0-9_-]+$"
    )
    """The AppView a post's figures are read from, named as ``<did>#<service id>``: each
    account's PDS passes the read to it (the ``atproto-proxy`` header,
    https://docs.bsky.app/docs/advanced-guides/api-directory#service-proxying). Bluesky's
    own by default."""
    meta_graph_version: str = Field("v23.0", pattern=r"^v\d+\.\d+$")
    """The Graph API version page_social, photo_sharing and text_thread call."""
    meta_container_wait_seconds: float = Field(300.0, gt=0, le=480)
    """How long a post to Instagram or Threads waits for its media container to be ready
    before it is answered 503 with nothing published (Meta: "no more than 5 minutes").
    At most 8 minutes: a publish still running at the idempotency claim's abandonment
    would be taken for a dead one."""
    network_timeout_seconds: float = Field(30.0, gt=0, le=600)
    """How long one call to a network may take before its outcome counts as unknown."""

    def credentials(self, label: str) -> tuple[str, str] | None:
        """The (client id, client secret) registered for a label, or None. open_microblog
        needs no app: its service URL turns it on, and its pair is empty."""
        if label == "open_microblog":
            return ("", "") if self.open_microblog_service_url else None
        client_id = getattr(self, f"{label}_client_id", None)
        secret = getattr(self, f"{label}_client_secret", None)
        return (client_id, secret) if client_id and secret else None


class OpsSettings(BaseSettings):
    """What an operator sets: logs, metrics, and where health and metrics are served."""

    model_config = _ENV
    log_level: Literal["debug", "info", "warning", "error", "critical"] = "info"
    """The least severe lines logged (``--log-level``)."""
    log_format: Literal["plain", "json"] = "plain"
    """``json`` for one object a line (``--log-format``)."""
    metrics: bool = True
    """``/metrics`` served, and requests counted; ``PRESSROOM_METRICS=0`` turns both off."""
    ops_port: int | None = Field(None, ge=1, le=65535)
    """Serve ``/healthz``, ``/readyz`` and ``/metrics`` on this port instead of the API's,
    from a second small server in the API process (one uvicorn worker only)."""
    ops_host: str = "127.0.0.1"
    """The interface of the ops port; they are unauthenticated, so local by default."""
    shutdown_grace_seconds: float = Field(0.0, ge=0, le=300)
    """After SIGTERM, how long ``pressroom api`` goes on serving with ``/readyz`` at 503
    before it stops listening and finishes the requests in flight: set it to a little
    more than the balancer's probe interval times its failure threshold."""


class Settings(BaseSettings):
    model_config = _ENV
    data_dir: Path = Path(".pressroom")
    """The database file (on SQLite), stored media and the secret key file."""
    base_url: str = "http://127.0.0.1:8000"
    """The address clients reach the service at; generated URLs start with it."""
    secret_key: str | None = None
    """Signs local upload URLs, encrypts platform tokens and yields pressroom's Bluesky
    OAuth client key; default: a random key kept in the data dir."""
    old_secret_keys: str = ""
    """Comma-separated earlier secret keys: tokens they encrypted still decrypt, and
    Bluesky grants made under them still refresh."""
    signup: Literal["open", "closed"] = "open"
    """``closed`` leaves account creation to ``pressroom admin create-account``."""
    session_days: int = Field(14, ge=1)
    """How long a dashboard sign-in lasts."""
    max_body_bytes: int = Field(1024 * 1024, ge=64 * 1024)
    """The largest request body outside upload PUTs: a publish at every text limit,
    written with JSON escapes, fits many times over."""
    rate_limit_per_minute: int = 600
    """Requests per minute per API key on rate-limited routes; 0 turns limiting off."""
    idempotency_ttl_days: int = Field(7, ge=7)
    """How long an Idempotency-Key is remembered; never less than 7 days."""
    idempotency_wait_seconds: float = Field(5.0, ge=0)
    """How long a request waits for a running one with the same key before a 409."""
    process_in_api: bool = True
    """Run media processing inside ``pressroom api`` (the embedded default); off
    (``PRESSROOM_PROCESS_IN_API=0`` or ``pressroom api --no-worker``) when
    ``pressroom worker`` processes do it."""
    job_lease_seconds: int = Field(60, ge=1)
    """How long a claimed media job is held without its worker renewing the claim; a
    dead worker's jobs are taken again after this. A metrics round's lease too: a round
    whose process died is failed after this, and a new one may start."""
    process_heartbeat_seconds: float = Field(15.0, gt=0)
    """How often each API and worker process records in the database that it is alive.
    One silent for four beats counts as dead: the publishes it had claimed are given up
    as unknown (looked up before anything is sent again) instead of held for minutes."""
    processing_workers: int = Field(2, ge=1)
    """Threads that process uploads, and processes that probe them."""
    probe_timeout_seconds: float = Field(120.0, gt=0)
    """A probe still running after this long has its worker process killed, and its
    file fails: a file that makes a decoder hang must not hold a worker for good."""
    processing_delay_ms: int = Field(0, ge=0)
    """Test knob: hold each file this long in ``processing`` before probing it (and each
    derived file this long before converting it)."""
    conversion_cpu_seconds: int = Field(300, ge=1)
    """CPU time one conversion (a file fitted for a network) may use; past it its
    process is stopped and the derived file fails, naming this bound."""
    conversion_memory_mb: int = Field(1024, ge=1)
    """Memory one conversion may take beyond what its process starts with (its address
    space, ``RLIMIT_AS``); an allocation past it fails, and so does the derived file."""
    conversion_timeout_seconds: float = Field(600.0, gt=0)
    """Wall-clock time one conversion may take before its process is killed."""
    conversion_max_pixels: int = Field(100_000_000, ge=1)
    """Pixels (width x height, per picture) a file may have to be converted at all:
    checked before anything is decoded."""
    token_refresh_interval_seconds: int = Field(300, ge=1)
    """How often access tokens about to lapse are renewed with their networks."""
    reconcile_interval_seconds: int = Field(60, ge=1)
    """How often posts whose outcome is unknown are looked up on their platform."""
    webhook_retry_period_seconds: float = Field(86400.0, gt=0)
    """How long a webhook delivery is retried before it is given up and its endpoint
    disabled (a day)."""
    webhook_retry_base_seconds: float = Field(5.0, gt=0)
    """The first retry's delay; each next one doubles, with jitter, up to the maximum."""
    webhook_retry_max_delay_seconds: float = Field(3600.0, gt=0)
    """The longest wait between two attempts of a delivery."""
    webhook_attempt_deadline_seconds: float = Field(15.0, gt=0, le=600)
    """How long one delivery attempt may take in all (resolving, connecting, sending, and
    the answer's status, headers and first 4 KiB): a receiver that trickles its answer
    is cut off here, and the attempt counts as failed."""
    webhook_timeout_seconds: float = Field(10.0, gt=0)
    """How long a receiver may stay silent within an attempt (to connect, or between
    two reads); the deadline bounds the attempt whatever it does."""
    webhook_lease_seconds: float = Field(60.0, gt=0)
    """How long a claimed delivery is held by its sender; a dead sender's deliveries are
    taken again after this. Must exceed the deadline by ``WEBHOOK_LEASE_MARGIN_SECONDS``,
    so no delivery is ever sent twice at once (checked at start)."""
    webhook_endpoint_concurrency: int = Field(2, ge=1)
    """Deliveries in flight at once to one endpoint, across every process."""
    webhook_senders: int = Field(16, ge=1)
    """Deliveries in flight at once in one process; more than the endpoint concurrency,
    so endpoints stuck at their deadline leave senders to the others."""
    webhook_poll_seconds: float = Field(0.5, gt=0)
    """How often an idle sender looks for due deliveries."""
    webhook_retention_days: int = Field(30, ge=1)
    """How long sent and given-up events are kept, with their delivery log."""
    webhook_development: bool = False
    """Allow ``http://`` endpoints on loopback, for a receiver on a developer's machine."""
    webhook_allow_private_targets: bool = False
    """Allow endpoints on private, loopback and link-local addresses (an internal network)."""
    sweep_interval_seconds: int = Field(3600, ge=1)
    """How often orphaned bytes are swept and unnoticed S3 uploads looked for."""
    prefect_api_url: str | None = None
    """Prefect's API (``http://127.0.0.1:4200/api``), which the dashboard's Campaigns page
    reads the campaigns' deployments, schedules and runs from; unset: the usual
    ``PREFECT_API_URL``, else the page lists the campaigns seen on posts alone."""
    prefect_ui_url: str | None = None
    """The Prefect UI's address (``http://127.0.0.1:4200``): the dashboard links each
    campaign run to its page there (``/runs/flow-run/{id}``); unset: run ids are shown
    without a link."""

    db: DatabaseSettings = Field(default_factory=DatabaseSettings)
    store: StorageSettings = Field(default_factory=StorageSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    ops: OpsSettings = Field(default_factory=OpsSettings)
    networks: NetworkSettings = Field(default_factory=NetworkSettings)

    def webhook_settings_problem(self) -> str | None:
        """Why the webhook settings cannot work together, or None; the service refuses to
        start on a problem (``pressroom api``, ``pressroom worker``, the sender itself)."""
        least = self.webhook_attempt_deadline_seconds + WEBHOOK_LEASE_MARGIN_SECONDS
        if self.webhook_lease_seconds < least:
            return (
                f"PRESSROOM_WEBHOOK_LEASE_SECONDS ({self.webhook_lease_seconds:g}) must be at "
                "least PRESSROOM_WEBHOOK_ATTEMPT_DEADLINE_SECONDS "
                f"({self.webhook_attempt_deadline_seconds:g}) + "
                f"{WEBHOOK_LEASE_MARGIN_SECONDS:g}: a lease that runs out while its attempt "
                "is still open lets a second sender send the same delivery at once"
            )
        if self.webhook_senders <= self.webhook_endpoint_concurrency:
            return (
                f"PRESSROOM_WEBHOOK_SENDERS ({self.webhook_senders}) must be more than "
                f"PRESSROOM_WEBHOOK_ENDPOINT_CONCURRENCY ({self.webhook_endpoint_concurrency}):"
                " otherwise one slow endpoint can hold every sender of a process"
            )
        return None

    @property
    def database_url(self) -> str:
        if self.db.database_url:
            return self.db.database_url
        return f"sqlite:///{(self.data_dir / 'pressroom.db').resolve()}"

    @property
    def public_base_url(self) -> str:
        return self.base_url.rstrip("/")


_overrides: dict[str, object] = {}


def override_settings(**values: object) -> None:
    """Values that win over the environment (a command's flags), for this process; each
    call replaces the last one's."""
    _overrides.clear()
    _overrides.update({name: value for name, value in values.items() if value is not None})
    get_settings.cache_clear()


@lru_cache
def get_settings() -> Settings:
    return Settings(**_overrides)  # type: ignore[arg-type]
