"""What the sync and async clients share: configuration, calls, answers and errors.

Each endpoint's method in ``_async.py`` gives its request (method, path, body) and how to
read the answer to ``_call``; ``Client`` and ``AsyncClient`` only differ in how they send
it.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
import pydantic

from pressroom import __version__
from pressroom import retry_after as retry_after_header
from pressroom.client import errors
from pressroom.client.models import Connection, ResponseMeta, WithMeta

log = logging.getLogger("pressroom.client")

T = TypeVar("T")
M = TypeVar("M", bound=pydantic.BaseModel)
W = TypeVar("W", bound=WithMeta)

BASE_URL_ENV = "PRESSROOM_BASE_URL"
API_KEY_ENV = "PRESSROOM_API_KEY"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
DEFAULT_POLL_INTERVAL = 5.0
"""The longest pause between status polls while waiting for a file; the spec suggests about
5 s. The first pauses are shorter (see ``pressroom.client.upload``)."""
DEFAULT_READY_TIMEOUT = 600.0
DEFAULT_CONNECTIONS_TTL = 300.0
"""Seconds the connection lists are cached: those calls count against the API quota."""
USER_AGENT = f"pressroom-client/{__version__}"

_STATUS_ERRORS: dict[int, type[errors.APIError]] = {
    400: errors.ValidationError,
    401: errors.AuthenticationError,
    403: errors.PermissionDeniedError,
    404: errors.NotFoundError,
    409: errors.ConflictError,
    429: errors.RateLimitError,
}


def segment(value: str) -> str:
    """``value`` quoted to stand as one segment of a path (an id with a ``/`` stays one)."""
    return quote(str(value), safe="")


def idempotency_headers(key: str | None) -> dict[str, str]:
    return {"Idempotency-Key": key} if key is not None else {}


@dataclass
class ClientSettings:
    base_url: str
    api_key: str = field(repr=False)
    timeout: httpx.Timeout | None
    poll_interval: float
    ready_timeout: float
    connections_ttl: float
    max_retries: int = 0
    """Opt-in retries of transient errors that are safe to resend (see ``_retry_delay``)."""


def resolve_settings(
    *,
    base_url: str | None,
    api_key: str | None,
    http_client: httpx.Client | httpx.AsyncClient | None,
    timeout: float | httpx.Timeout | None,
    poll_interval: float,
    ready_timeout: float,
    connections_ttl: float,
    max_retries: int = 0,
) -> ClientSettings:
    """Arguments first, then an injected client's own base URL, then the environment."""
    injected_base = str(http_client.base_url).rstrip("/") if http_client is not None else ""
    url = base_url or injected_base or os.environ.get(BASE_URL_ENV)
    if not url:
        raise errors.ConfigurationError(
            f"no base URL: pass base_url= or set {BASE_URL_ENV} (e.g. http://127.0.0.1:8000)"
        )
    key = api_key or os.environ.get(API_KEY_ENV)
    if not key:
        raise errors.ConfigurationError(f"no API key: pass api_key= or set {API_KEY_ENV}")
    if timeout is not None and not isinstance(timeout, httpx.Timeout):
        timeout = httpx.Timeout(timeout)
    if http_client is None and timeout is None:
        timeout = DEFAULT_TIMEOUT
    return ClientSettings(
        base_url=url.rstrip("/"),
        api_key=key,
        timeout=timeout,
        poll_interval=poll_interval,
        ready_timeout=ready_timeout,
        connections_ttl=connections_ttl,
        max_retries=max(0, max_retries),
    )


def request_headers(api_key: str, extra: Mapping[str, str]) -> dict[str, str]:
    return {"X-API-Key": api_key, "Accept": "application/json", **extra}


# --- answers -------------------------------------------------------------------------


def parse_json(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        raise errors.UnexpectedResponseError(
            "the body is not JSON",
            status=response.status_code,
            method=response.request.method,
            url=_display_url(response.request.url),
        ) from None


def model_parser(
    model: type[M], *, key: str | None = None, defaults: Mapping[str, Any] | None = None
) -> Callable[[httpx.Response], M]:
    """Reads the body as ``model``, or ``body[key]`` when the service wrapped it there.

    ``defaults`` fill fields the service left out (such as an id the caller already knows).
    """

    def parse(response: httpx.Response) -> M:
        data = parse_json(response)
        if data is None:
            data = {}
        if key and isinstance(data, dict) and isinstance(data.get(key), dict):
            data = data[key]
        if isinstance(data, dict) and defaults:
            data = {**defaults, **data}
        return validate(model, data, response)

    return parse


def with_meta(
    parse: Callable[[httpx.Response], W], idempotency_key: str | None
) -> Callable[[httpx.Response], W]:
    """Attaches what the headers said about idempotency to a publish or thumbnail result."""

    def parse_with_meta(response: httpx.Response) -> W:
        result = parse(response)
        result._meta = ResponseMeta(response.headers, idempotency_key)
        return result

    return parse_with_meta


def parse_connections(response: httpx.Response) -> list[Connection]:
    data = parse_json(response)
    # The spec's bare array; tolerate a wrapped one too.
    if isinstance(data, dict) and isinstance(data.get("connections"), list):
        data = data["connections"]
    if not isinstance(data, list):
        raise errors.UnexpectedResponseError(
            "the connection list is not an array",
            status=response.status_code,
            method=response.request.method,
            url=_display_url(response.request.url),
        )
    return [validate(Connection, entry, response) for entry in data]


def validate(model: type[M], data: Any, response: httpx.Response) -> M:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}"
            for err in exc.errors()[:3]
        )
        raise errors.UnexpectedResponseError(
            f"the body is not a {model.__name__} ({problems})",
            status=response.status_code,
            method=response.request.method,
            url=_display_url(response.request.url),
        ) from None


# --- errors --------------------------------------------------------------------------

_XML_CODE = re.compile(r"<Code>([^<]*)</Code>")
_XML_MESSAGE = re.compile(r"<Message>([^<]*)</Message>")


def api_error(response: httpx.Response, *, secret: str | None) -> errors.APIError:
    """The ``APIError`` subclass for an error answer, read from our error body.

    Storage answers to the presigned PUT may be S3's XML instead; its ``<Code>`` and
    ``<Message>`` are used then.
    """
    status = response.status_code
    code: str | None = None
    field: str | None = None
    rule: str | None = None
    doc_url: str | None = None
    message: str | None = None
    request_id: str | None = None
    body: Any = None
    text = response.text
    if secret:
        text = text.replace(secret, "***")
    try:
        body = json.loads(text)
    except ValueError:
        if match := _XML_CODE.search(text):
            code = match.group(1)
            found = _XML_MESSAGE.search(text)
            message = found.group(1) if found else None
    if isinstance(body, dict):
        detail = body.get("error")
        if isinstance(detail, dict):
            code = _str_or_none(detail.get("code"))
            message = _str_or_none(detail.get("message"))
            field = _str_or_none(detail.get("field"))
            rule = _str_or_none(detail.get("rule"))
            doc_url = _str_or_none(detail.get("docUrl"))
            request_id = _str_or_none(detail.get("requestId"))
        elif isinstance(detail, str):
            message = detail
        message = message or _str_or_none(body.get("message")) or _str_or_none(body.get("detail"))
    message = message or response.reason_phrase or "error"
    cls = _STATUS_ERRORS.get(status) or (errors.ServerError if status >= 500 else errors.APIError)
    return cls(
        message,
        status=status,
        code=code,
        field=field,
        rule=rule,
        doc_url=doc_url,
        request_id=response.headers.get("x-request-id") or request_id,
        response=response,
        retry_after=retry_after(response.headers.get("retry-after")),
        method=response.request.method,
        url=_display_url(response.request.url),
        body=body,
    )


def instant(value: datetime | None) -> str | None:
    """An aware datetime in ISO 8601 for a query or body; a naive one names no moment."""
    if value is None:
        return None
    if value.utcoffset() is None:
        raise ValueError("give an aware datetime (with tzinfo): a naive one names no moment")
    return value.isoformat()


def retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header: delta seconds or an HTTP date."""
    return retry_after_header.seconds(value, now=now)


def transport_error(exc: httpx.TransportError, request: httpx.Request) -> errors.TransportError:
    """Our error for httpx's, keeping apart "never sent" from "outcome unknown"."""
    kinds: list[tuple[type[httpx.TransportError], type[errors.TransportError]]] = [
        (httpx.ConnectTimeout, errors.ConnectTimeout),
        (httpx.PoolTimeout, errors.PoolTimeout),
        (httpx.WriteTimeout, errors.WriteTimeout),
        (httpx.ReadTimeout, errors.ReadTimeout),
        (httpx.TimeoutException, errors.ReadTimeout),
        (httpx.ConnectError, errors.ConnectError),
        (httpx.UnsupportedProtocol, errors.ConnectError),
        (httpx.ProxyError, errors.ConnectError),
    ]
    ours: type[errors.TransportError] = next(
        (mine for theirs, mine in kinds if isinstance(exc, theirs)), errors.NetworkError
    )
    reason = str(exc) or type(exc).__name__
    return ours(reason, method=request.method, url=_display_url(request.url))


def _display_url(url: httpx.URL) -> str:
    """The URL without its query: a presigned address's query is its credential."""
    return str(url.copy_with(query=None))


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def log_response(response: httpx.Response, started: float) -> None:
    log.debug(
        "%s %s -> %s in %.0f ms",
        response.request.method,
        _display_url(response.request.url),
        response.status_code,
        (time.monotonic() - started) * 1000,
    )


# --- the connection cache ------------------------------------------------------------


@dataclass
class Cached(Generic[T]):
    value: T
    fetched_at: float

    def fresh(self, ttl: float) -> bool:
        return time.monotonic() - self.fetched_at < ttl


def page_params(**values: str | int | None) -> dict[str, str | int]:
    return {to_camel_param(k): v for k, v in values.items() if v is not None}


def to_camel_param(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


class ClientCore:
    """Configuration and the parts of sending that do no I/O."""

    _settings: ClientSettings

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self._settings.base_url!r})"

    @property
    def base_url(self) -> str:
        return self._settings.base_url

    def _url(self, path: str) -> str:
        return self._settings.base_url + path

    def _absolute(self, url: str) -> str:
        """A presigned address as given, or joined to the base URL if it is a bare path."""
        return url if "://" in url else self._url(url if url.startswith("/") else f"/{url}")

    def _headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        return request_headers(self._settings.api_key, {"User-Agent": USER_AGENT, **(extra or {})})

    def _retry_delay(
        self, error: errors.PressroomError, attempt: int, request: httpx.Request
    ) -> float | None:
        """Seconds to wait before sending ``request`` again after ``error``, or None.

        Opt-in (``max_retries``). Only what may succeed unchanged is retried
        (``.transient``), and only when sending it again cannot do a thing twice: a read,
        a request with an ``Idempotency-Key`` (the service replays or looks the post up),
        or an answer that says nothing was done. ``Retry-After`` is honoured; otherwise
        the delay doubles from half a second, lengthened by up to a quarter at random.
        """
        if attempt >= self._settings.max_retries or not error.transient:
            return None
        if not _safe_to_resend(error, request):
            return None
        advised = error.retry_after if isinstance(error, errors.APIError) else None
        backoff = RETRY_BASE_SECONDS * 2**attempt * (1 + random.random() / 4)
        return max(advised or 0.0, backoff if advised is None else 0.0)

    def _error(self, response: httpx.Response) -> errors.APIError:
        return api_error(response, secret=self._settings.api_key)

    def _read(self, parse: Callable[[httpx.Response], T], response: httpx.Response) -> T:
        if response.is_success:
            return parse(response)
        raise self._error(response)

    def _use_key(self, key: str) -> None:
        self._settings.api_key = key


RETRY_BASE_SECONDS = 0.5
_NOTHING_DONE = frozenset(
    {"rate_limited", "database_busy", "idempotency_request_in_progress", "file_not_ready"}
)
"""Answers that say nothing was done, so sending the request again is safe without a key."""


def _safe_to_resend(error: errors.PressroomError, request: httpx.Request) -> bool:
    if request.method in ("GET", "HEAD", "OPTIONS") or "idempotency-key" in request.headers:
        return True
    if isinstance(error, errors.TransportError):
        return not error.request_sent
    if isinstance(error, errors.APIError):
        record = error.body.get("error", {}) if isinstance(error.body, dict) else {}
        return error.code in _NOTHING_DONE or (
            isinstance(record, dict) and record.get("recordStatus") == "not_sent"
        )
    return False


def plain_request(
    http: httpx.Client | httpx.AsyncClient,
    method: str,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    content: Any = None,
    timeout: httpx.Timeout,
) -> httpx.Request:
    """A request to storage (presigned PUT, download redirect): never with the API key.

    Built on the caller's client so an injected transport (a test app, a proxy) still
    carries it, but stripped of the client's default credentials: the address may be
    another host, such as an S3 bucket.
    """
    request = http.build_request(method, url, headers=headers, content=content, timeout=timeout)
    for name in ("X-API-Key", "Authorization", "Cookie"):
        request.headers.pop(name, None)
    return request
