"""A typed Python client for the pressroom API (and the hosted service it mirrors).

``Client`` blocks, ``AsyncClient`` awaits; both have one method per endpoint, take
their arguments by keyword (the object's id may come first), and return pydantic
models that keep fields they do not know::

    from pressroom.client import Client

    with Client() as client:  # PRESSROOM_BASE_URL and PRESSROOM_API_KEY
        video = client.upload("launch.mp4")  # presign, PUT, poll until ready
        result = client.publish_microblog(connection_id="...", text="We launched")

Contracts:

- It depends on httpx and pydantic only (and standardwebhooks, to verify webhooks; plus
  pressroom's import-light tables
  ``platforms``, ``error_codes`` and ``probe``); it never imports the service.
- Errors are a small hierarchy (see ``pressroom.client.errors``); each says whether it
  is ``transient``, and a ``TransportError`` says whether the request may have been
  sent (``outcome_unknown``): then resend a publish only with the same
  ``Idempotency-Key``, or look it up with ``find_post``.
- Ids are strings even when the service sends numbers; ``ready``, ``completed`` and
  ``uploaded`` all mean a file is ready (``FileStatus.is_ready``).
- The connection lists are cached per client for ``connections_ttl`` seconds (they
  count against the API quota); ``refresh=True`` or ``refresh_connections()`` fetch anew.
- The API key is never logged, and never appears in a repr or an exception message.
  The presigned PUT and download redirects never carry it.
- The client does not retry on its own (the caller knows what is safe to repeat),
  except that waiting for a file rides out transient errors until its deadline.
"""

from pressroom.client._async import AsyncClient
from pressroom.client._sync import Client
from pressroom.client.errors import (
    APIError,
    AuthenticationError,
    ConfigurationError,
    ConflictError,
    ConnectError,
    ConnectTimeout,
    FileProcessingFailed,
    NetworkError,
    NotFoundError,
    PermissionDeniedError,
    PoolTimeout,
    PressroomError,
    RateLimitError,
    ReadTimeout,
    ServerError,
    Timeout,
    TransportError,
    UnexpectedResponseError,
    UploadError,
    UploadTimeout,
    ValidationError,
    WriteTimeout,
)
from pressroom.client.models import (
    PUBLISH_REQUESTS,
    READY_STATUSES,
    ApiKey,
    Campaign,
    CampaignMetrics,
    Connection,
    Deleted,
    DerivedFile,
    Event,
    EventPage,
    FilePage,
    FileStatus,
    Folder,
    FolderPage,
    MetricSnapshot,
    MetricsRound,
    MicroblogConnection,
    MicroblogConnections,
    MicroblogPublish,
    OpenMicroblogPublish,
    PageSocialPublish,
    Part,
    PhotoSharingPublish,
    PinBoardPublish,
    Post,
    PostCampaign,
    PostMetrics,
    PostPage,
    PresignedUpload,
    ProfessionalNetworkPublish,
    PublishRequest,
    PublishResult,
    Redelivered,
    ShortVideoPublish,
    TextThreadPart,
    TextThreadPublish,
    ThreadPart,
    ThumbnailResult,
    VideoSharingPublish,
    WebhookDelivery,
    build_publish_request,
)
from pressroom.client.upload import UploadProgress
from pressroom.client.webhooks import WebhookEvent, WebhookVerificationError, verify_webhook
from pressroom.platforms import Platform
from pressroom.statuses import (
    ConnectionStatus,
    FileState,
    PostStatus,
    PrivacyStatus,
    RecordStatus,
)

__all__ = [
    "PUBLISH_REQUESTS",
    "READY_STATUSES",
    "APIError",
    "ApiKey",
    "AsyncClient",
    "AuthenticationError",
    "Campaign",
    "CampaignMetrics",
    "Client",
    "ConfigurationError",
    "ConflictError",
    "ConnectError",
    "ConnectTimeout",
    "Connection",
    "ConnectionStatus",
    "Deleted",
    "DerivedFile",
    "Event",
    "EventPage",
    "FilePage",
    "FileProcessingFailed",
    "FileState",
    "FileStatus",
    "Folder",
    "FolderPage",
    "MetricSnapshot",
    "MetricsRound",
    "MicroblogConnection",
    "MicroblogConnections",
    "MicroblogPublish",
    "NetworkError",
    "NotFoundError",
    "OpenMicroblogPublish",
    "PageSocialPublish",
    "Part",
    "PermissionDeniedError",
    "PhotoSharingPublish",
    "PinBoardPublish",
    "Platform",
    "PoolTimeout",
    "Post",
    "PostCampaign",
    "PostMetrics",
    "PostPage",
    "PostStatus",
    "PresignedUpload",
    "PressroomError",
    "PrivacyStatus",
    "ProfessionalNetworkPublish",
    "PublishRequest",
    "PublishResult",
    "RateLimitError",
    "ReadTimeout",
    "RecordStatus",
    "Redelivered",
    "ServerError",
    "ShortVideoPublish",
    "TextThreadPart",
    "TextThreadPublish",
    "ThreadPart",
    "ThumbnailResult",
    "Timeout",
    "TransportError",
    "UnexpectedResponseError",
    "UploadError",
    "UploadProgress",
    "UploadTimeout",
    "ValidationError",
    "VideoSharingPublish",
    "WebhookDelivery",
    "WebhookEvent",
    "WebhookVerificationError",
    "WriteTimeout",
    "build_publish_request",
    "verify_webhook",
]
