"""Every error code the service answers with: its HTTP status and whether it is transient.

The service raises these; the client and the pipeline read ``transient`` to decide what
to retry. Transience is decided by code first, and only for codes this table does not
know by the status (408, 429, 5xx), so a final 429 such as an exhausted monthly quota is
never retried.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorCode:
    code: str
    status: int
    summary: str
    transient: bool = False


_ALL: list[ErrorCode] = []


def _code(code: str, status: int, summary: str, *, transient: bool = False) -> ErrorCode:
    entry = ErrorCode(code, status, summary, transient)
    _ALL.append(entry)
    return entry


# 400: the request breaks a rule; the field is named.
VALIDATION_ERROR = _code(
    "validation_error", 400, "A field is missing or has the wrong type or value."
)
TEXT_TOO_LONG = _code(
    "text_too_long", 400, "A text, title, caption or description is over its limit."
)
MEDIA_NOT_ALLOWED = _code(
    "media_kind_not_allowed", 400, "The platform does not take this kind of media."
)
VIDEO_DURATION = _code(
    "video_duration_out_of_range", 400, "The video is shorter or longer than the platform allows."
)
FILE_FAILED = _code("file_failed", 400, "The file failed processing and cannot be published.")
PLATFORM_MISMATCH = _code(
    "connection_platform_mismatch", 400, "The connection belongs to another platform."
)
UNSUPPORTED_MEDIA = _code(
    "unsupported_media_type", 400, "The content type or extension is not accepted."
)
# 401 / 403
MISSING_API_KEY = _code("missing_api_key", 401, "The X-API-Key header is missing.")
INVALID_API_KEY = _code("invalid_api_key", 401, "The API key is unknown or was rotated out.")
PLAN_WITHOUT_API = _code("plan_without_api_access", 403, "The account's plan has no API access.")
ACCOUNT_TYPE = _code(
    "account_type_not_allowed",
    403,
    "photo_sharing publishes only for business or creator accounts.",
)
NOT_A_PAGE = _code("not_a_page", 403, "page_social publishes to pages, not personal profiles.")
PAGES_PERMISSION = _code(
    "pages_permission_missing", 403, "The page was connected without the Pages permission."
)
CHANNEL_NOT_VERIFIED = _code(
    "channel_not_verified", 403, "Custom thumbnails need a verified channel."
)
# 404
NOT_FOUND = _code("not_found", 404, "No such route.")
FILE_NOT_FOUND = _code("file_not_found", 404, "No file with this id in this account.")
FOLDER_NOT_FOUND = _code("folder_not_found", 404, "No folder with this id in this account.")
CONNECTION_NOT_FOUND = _code(
    "connection_not_found", 404, "No connection with this id in this account."
)
POST_NOT_FOUND = _code("post_not_found", 404, "No post with this id in this account.")
VIDEO_NOT_FOUND = _code("video_not_found", 404, "No video published by this account with this id.")
NO_FILES = _code("no_files", 404, "The account has no files yet.")
WEBHOOK_NOT_FOUND = _code(
    "webhook_not_found", 404, "No webhook endpoint with this id in this account."
)
DELIVERY_NOT_FOUND = _code(
    "delivery_not_found", 404, "No delivery with this id to this webhook endpoint."
)
EVENT_NOT_FOUND = _code("event_not_found", 404, "No event with this id in this account.")
METRICS_ROUND_NOT_FOUND = _code(
    "metrics_round_not_found", 404, "No metrics round with this id in this account."
)
CAMPAIGN_NOT_FOUND = _code(
    "campaign_not_found", 404, "No post of this account carries this campaign name."
)
METHOD_NOT_ALLOWED = _code("method_not_allowed", 405, "The route does not take this method.")
# 409
FILE_NOT_READY = _code(
    "file_not_ready",
    409,
    "The file is still being uploaded or processed, or being converted for the network; "
    "send the same request again after Retry-After.",
    transient=True,
)
CONNECTION_INACTIVE = _code(
    "connection_inactive", 409, "The connection is inactive; reconnect it in the dashboard."
)
IDEMPOTENCY_REUSED = _code(
    "idempotency_key_reused", 409, "The Idempotency-Key was used with another request body."
)
IDEMPOTENCY_IN_PROGRESS = _code(
    "idempotency_request_in_progress",
    409,
    "A request with this Idempotency-Key is still running.",
    transient=True,
)
OUTCOME_UNKNOWN = _code(
    "outcome_unknown",
    409,
    "An earlier attempt under this Idempotency-Key may be live and the platform cannot be "
    "asked; check the account, and send again only with a new key.",
)
UPLOAD_ALREADY_USED = _code("upload_url_used", 409, "The upload URL was already used.")
WEBHOOK_LIMIT = _code(
    "webhook_limit_reached", 409, "The account has as many webhook endpoints as it may."
)
WEBHOOK_DISABLED = _code(
    "webhook_disabled", 409, "The webhook endpoint is disabled; enable it first."
)
# 403 on the presigned PUT
UPLOAD_SIGNATURE = _code(
    "invalid_upload_signature", 403, "The upload URL's signature is wrong or expired."
)
MEDIA_LINK_SIGNATURE = _code(
    "invalid_media_link", 403, "The media link's signature is wrong or it expired."
)
UPLOAD_TOO_LARGE = _code("upload_too_large", 413, "The body is over the upload size limit.")
REQUEST_TOO_LARGE = _code(
    "request_too_large", 413, "The request body is over PRESSROOM_MAX_BODY_BYTES."
)
RANGE_NOT_SATISFIABLE = _code(
    "range_not_satisfiable", 416, "The requested byte range lies outside the file."
)
# 429
UPLOAD_QUOTA = _code("upload_quota_exceeded", 429, "The plan's monthly uploads are used up.")
RATE_LIMITED = _code(
    "rate_limited", 429, "Too many requests for this key; retry after Retry-After.", transient=True
)
# 5xx
PLATFORM_UNAVAILABLE = _code(
    "platform_unavailable",
    503,
    "The platform failed transiently; retry after Retry-After.",
    transient=True,
)
INTERNAL_ERROR = _code("internal_error", 500, "Unexpected server error.", transient=True)
PLATFORM_MISCONFIGURED = _code(
    "platform_misconfigured",
    500,
    "The platform refuses how this service is set up (an API version it no longer serves, "
    "an app it has not enrolled); nothing was published, and nothing will be until the "
    "operator changes what the message names.",
)
SECRET_KEY_MISSING = _code(
    "secret_key_missing",
    500,
    "A connection's stored token was encrypted under a secret key this service does not "
    "have (restored without its key, or the key changed without PRESSROOM_OLD_SECRET_KEYS); "
    "nothing was sent, and nothing will be until the operator sets the key back or the "
    "account is reconnected.",
)
DATABASE_BUSY = _code(
    "database_busy",
    503,
    "The database stayed busy past its bound; retry after Retry-After.",
    transient=True,
)
STORAGE_UNAVAILABLE = _code(
    "storage_unavailable",
    503,
    "The file store failed transiently; retry after Retry-After.",
    transient=True,
)
NOT_READY = _code(
    "not_ready",
    503,
    "/readyz: the database, the file store or the migrations are not ready.",
    transient=True,
)

BY_CODE: dict[str, ErrorCode] = {entry.code: entry for entry in _ALL}


def is_transient(status: int, code: str | None) -> bool:
    """Whether a request that got this answer may succeed if sent again unchanged."""
    known = BY_CODE.get(code or "")
    if known is not None:
        return known.transient
    return status in (408, 429) or status >= 500
