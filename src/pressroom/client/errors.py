"""What can go wrong when talking to pressroom, as exceptions you can catch by kind.

The hierarchy::

    PressroomError
    ├── ConfigurationError             no base URL or API key given or in the environment
    ├── APIError                       the service answered with an error status
    │   ├── ValidationError            400  the request breaks a rule; ``.field`` names it,
    │   │                                   ``.rule`` and ``.doc_url`` a network's rule
    │   ├── AuthenticationError        401  missing, unknown or rotated-out key
    │   ├── PermissionDeniedError      403  plan without API access, or platform permission
    │   ├── NotFoundError              404  unknown id, or a route this service does not have
    │   ├── ConflictError              409  file not ready, connection inactive, key reused
    │   ├── RateLimitError             429  rate limit (transient) or monthly quota (final)
    │   └── ServerError                5xx  the service or a platform failed
    ├── UnexpectedResponseError        a success status with a body that is not what was promised
    ├── TransportError                 no answer: ``.request_sent`` says if the outcome is unknown
    │   ├── ConnectError               the service was never reached (not sent)
    │   ├── NetworkError               the connection broke mid-request (outcome unknown)
    │   └── Timeout
    │       ├── ConnectTimeout         not sent
    │       ├── PoolTimeout            not sent
    │       ├── WriteTimeout           partly sent (outcome unknown)
    │       └── ReadTimeout            sent, no answer in time (outcome unknown)
    └── UploadError
        ├── FileProcessingFailed       the file reached ``failed``; ``.reason`` says why
        └── UploadTimeout              not ready before the deadline (it may still become so)

Every error has ``.transient``: whether sending the same request again may succeed. For
an ``APIError`` it comes from ``pressroom.error_codes.is_transient(status, code)``: by
code first, so a 429 for an exhausted monthly quota is final while a per-key rate limit
is not. Every ``TransportError`` is transient, but when ``.request_sent`` is true the
first attempt may have taken effect: resend a publish only with the same
``Idempotency-Key``, or look the post up first.

Messages never contain the API key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from pressroom import error_codes
from pressroom.portable import PortableError

if TYPE_CHECKING:
    from pressroom.client.models import Part

__all__ = [
    "APIError",
    "AuthenticationError",
    "ConfigurationError",
    "ConflictError",
    "ConnectError",
    "ConnectTimeout",
    "FileProcessingFailed",
    "NetworkError",
    "NotFoundError",
    "PermissionDeniedError",
    "PoolTimeout",
    "PressroomError",
    "RateLimitError",
    "ReadTimeout",
    "ServerError",
    "Timeout",
    "TransportError",
    "UnexpectedResponseError",
    "UploadError",
    "UploadTimeout",
    "ValidationError",
    "WriteTimeout",
]


class PressroomError(PortableError):
    """Base of every error the client raises; each pickles whole (a Dask worker's or a
    persisted task's failure arrives as it was raised)."""

    local_only = ("response",)

    @property
    def transient(self) -> bool:
        """Whether the same request may succeed if sent again unchanged."""
        return False


class ConfigurationError(PressroomError, ValueError):
    """The client cannot start: a base URL or an API key is missing."""


class APIError(PressroomError):
    """The service answered with an error status and (usually) its error body."""

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str | None = None,
        field: str | None = None,
        rule: str | None = None,
        doc_url: str | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        method: str | None = None,
        url: str | None = None,
        body: Any = None,
        response: httpx.Response | None = None,
    ) -> None:
        self.message = message
        self.status = status
        self.code = code
        """The snake_case code of the error body, or None when the body had none."""
        self.field = field
        """The request field at fault (dotted path, e.g. ``text``), when there is one."""
        self.rule = rule
        """The real network's rule the request breaks (``microblog.weighted_length``),
        when a network's rule refused it; None for the spec's own errors."""
        self.doc_url = doc_url
        """The network's page that ``rule`` comes from."""
        self.request_id = request_id
        """The service's ``X-Request-ID`` for this answer: quote it when asking for help."""
        self.retry_after = retry_after
        """Seconds to wait before retrying, from ``Retry-After`` (429, 503)."""
        self.method = method
        self.url = url
        self.body = body
        self.response = response
        """The ``httpx.Response`` itself, for headers and anything not read here."""
        super().__init__(message)

    @property
    def transient(self) -> bool:
        return error_codes.is_transient(self.status, self.code)

    @property
    def parts(self) -> list[Part]:
        """A thread's parts as the refusal lists them (pressroom's extension): those that
        stand, then the one refused; empty when the answer has none."""
        from pressroom.client.models import Part

        found = self.body.get("parts") if isinstance(self.body, dict) else None
        if not isinstance(found, list):
            return []
        return [Part.model_validate(part) for part in found if isinstance(part, dict)]

    @property
    def partial(self) -> bool:
        """Some parts of a thread stand and a later one was refused: the post is
        ``partial``, and a publish with the same Idempotency-Key resumes after them."""
        return any(part.stands for part in self.parts)

    def __str__(self) -> str:
        where = f" ({self.method} {self.url})" if self.method and self.url else ""
        code = f" {self.code}" if self.code else ""
        field = f" [field: {self.field}]" if self.field else ""
        rule = f" [rule: {self.rule}, {self.doc_url}]" if self.rule else ""
        return f"{self.status}{code}: {self.message}{field}{rule}{where}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status}, code={self.code!r}, "
            f"field={self.field!r}, rule={self.rule!r}, message={self.message!r})"
        )


class ValidationError(APIError):
    """400: a field is missing, too long, of the wrong kind; ``.field`` names it.

    Not pydantic's ``ValidationError``: this one comes from the service.
    """


class AuthenticationError(APIError):
    """401: the key is missing, unknown, or was rotated out."""


class PermissionDeniedError(APIError):
    """403: the plan has no API access, or the platform account lacks a permission."""


class NotFoundError(APIError):
    """404: no such file, folder, connection or post in this account, or no such route.

    ``code == "not_found"`` means the route itself is missing (for example the posts
    read-back, which the hosted service does not offer): fall back to another way.
    """


class ConflictError(APIError):
    """409: the request clashes with the current state (file still processing, ...)."""


class RateLimitError(APIError):
    """429: ``rate_limited`` is transient (wait ``retry_after``); a used-up quota is final."""


class ServerError(APIError):
    """5xx: the service or the platform failed; transient, maybe with ``retry_after``."""


class UnexpectedResponseError(PressroomError):
    """A success status whose body is not JSON or lacks what the endpoint promises."""

    def __init__(self, message: str, *, status: int, method: str, url: str) -> None:
        self.status = status
        self.method = method
        self.url = url
        super().__init__(f"{message} ({method} {url}, status {status})")


class TransportError(PressroomError):
    """No answer came back: the network, DNS, TLS or a timeout got in the way."""

    request_sent: bool = True
    """True when the request may have reached the service, so its outcome is unknown."""

    def __init__(self, message: str, *, method: str | None = None, url: str | None = None) -> None:
        self.method = method
        self.url = url
        where = f" ({method} {url})" if method and url else ""
        super().__init__(f"{message}{where}")

    @property
    def outcome_unknown(self) -> bool:
        """The request may have taken effect: only resend it idempotently."""
        return self.request_sent

    @property
    def transient(self) -> bool:
        return True


class ConnectError(TransportError):
    """The service could not be reached; nothing was sent."""

    request_sent = False


class NetworkError(TransportError):
    """The connection failed after the request started; the outcome is unknown."""


class Timeout(TransportError):
    """A timeout; the subclass says at which point, and so whether anything was sent."""


class ConnectTimeout(Timeout):
    request_sent = False


class PoolTimeout(Timeout):
    request_sent = False


class WriteTimeout(Timeout):
    """Sending the request timed out part-way; treat the outcome as unknown."""


class ReadTimeout(Timeout):
    """The request was sent and no answer came in time; it may have taken effect."""


class UploadError(PressroomError):
    """An uploaded file did not become ready."""

    def __init__(self, message: str, *, file_id: str, status: str | None) -> None:
        self.file_id = file_id
        self.status = status
        super().__init__(message)


class FileProcessingFailed(UploadError):
    """The service could not process the file; ``.reason`` says why. Final."""

    def __init__(self, *, file_id: str, status: str | None, reason: str | None) -> None:
        self.reason = reason
        super().__init__(
            f"file {file_id} failed processing: {reason or 'no reason given'}",
            file_id=file_id,
            status=status,
        )


class UploadTimeout(UploadError):
    """The file was not ready before the deadline; it may still become ready.

    Transient: wait again with ``wait_until_ready(file_id)`` rather than uploading anew.
    """

    def __init__(self, *, file_id: str, status: str | None, waited: float) -> None:
        self.waited = waited
        super().__init__(
            f"file {file_id} was not ready after {waited:.0f} s (last status: {status})",
            file_id=file_id,
            status=status,
        )

    @property
    def transient(self) -> bool:
        return True
