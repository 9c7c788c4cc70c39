"""The one way real drivers call a network: timeouts, safe retries, and what failures mean.

Every driver sends through a ``NetworkClient``, so three rules hold for all of them:

- **What a failure means for the post.** A connection that never opened cannot have
  delivered anything (``PlatformUnavailable(sent=False)``); a call that was sent and then
  timed out or broke, or answered 5xx, may have published (``sent=True`` when the call
  creates something): its outcome is looked up later, never resent blindly. 429 is the
  network's rate limit (``PlatformRateLimited``, with its wait) and 401 a token it no
  longer accepts (``AccessRevoked``). Any other answer goes back to the driver, which
  knows its network's error shapes.
- **Retries only where they are safe.** Reads (``GET``, or a call marked ``read``) are tried up to ``READ_ATTEMPTS``
  times on connection errors and 502/503/504; anything that creates is sent once.
- **Logs without secrets.** One line per call: network, method, host and path, status
  and time. Never the query (some networks take the token there), the headers or the
  bodies.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import httpx

from pressroom import retry_after as retry_after_header
from pressroom.platforms import Platform
from pressroom.service.drivers.base import (
    AccessRevoked,
    PlatformRateLimited,
    PlatformUnavailable,
)

log = logging.getLogger(__name__)

READ_ATTEMPTS = 3
"""A ``GET`` is tried this many times in all before its failure is raised."""
DEFAULT_RETRY_AFTER = 30
"""Seconds to wait when a network fails without saying how long."""
_RETRYABLE_STATUS = frozenset({502, 503, 504})


class NetworkClient:
    """An httpx client for one network; ``transport`` is for tests (respx mounts on it)."""

    def __init__(
        self,
        platform: Platform,
        *,
        timeout_seconds: float,
        transport: httpx.BaseTransport | None = None,
        backoff_seconds: float = 0.5,
    ) -> None:
        self.platform = platform
        self.backoff_seconds = backoff_seconds
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_seconds, connect=min(timeout_seconds, 10.0)),
            transport=transport,
            headers={"User-Agent": "pressroom"},
            follow_redirects=False,
        )

    def close(self) -> None:
        self._client.close()

    def request(
        self,
        method: str,
        url: str,
        *,
        token: str | None = None,
        creates: bool = False,
        read: bool = False,
        headers: Mapping[str, str] | None = None,
        answer_401: bool = False,
        signed: Callable[[], Mapping[str, str]] | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        """Send one call and classify what can be classified without knowing the network.

        ``creates`` marks a call that publishes something: after it was sent, a failure
        is ``sent=True``. ``read`` marks a call that only reads whatever its method (Meta's
        POST with ``method=GET``): it is retried as a ``GET`` is. ``token`` is sent as a
        bearer token. Returns every answer below 500 except 401 and 429, for the driver
        to read; with ``answer_401`` a 401 too (a DPoP server asks for its nonce with
        one, RFC 9449 section 9). ``signed`` makes headers afresh for each attempt (a
        DPoP proof is good for one request only)."""
        sent_headers = dict(headers or {})
        if token is not None:
            sent_headers["Authorization"] = f"Bearer {token}"
        attempts = READ_ATTEMPTS if read or method.upper() == "GET" else 1
        for attempt in range(1, attempts + 1):
            try:
                attempt_headers = {**sent_headers, **signed()} if signed else sent_headers
                response = self._send(method, url, attempt_headers, kwargs)
            except httpx.TransportError as exc:
                reached = not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
                if attempt < attempts:
                    self._pause(attempt)
                    continue
                raise PlatformUnavailable(
                    f"{self.platform.value} could not be reached ({type(exc).__name__})",
                    retry_after=DEFAULT_RETRY_AFTER,
                    sent=creates and reached,
                ) from exc
            if response.status_code in _RETRYABLE_STATUS and attempt < attempts:
                self._pause(attempt)
                continue
            if answer_401 and response.status_code == 401:
                return response
            return self._classify(response, creates=creates)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _send(
        self, method: str, url: str, headers: dict[str, str], kwargs: dict[str, Any]
    ) -> httpx.Response:
        started = time.perf_counter()
        try:
            response = self._client.request(method, url, headers=headers, **kwargs)
        except httpx.TransportError as exc:
            log.warning(
                "%s %s %s failed after %.0f ms: %s",
                self.platform.value,
                method,
                _where(url),
                (time.perf_counter() - started) * 1000,
                type(exc).__name__,
            )
            raise
        log.info(
            "%s %s %s -> %d in %.0f ms",
            self.platform.value,
            method,
            _where(url),
            response.status_code,
            (time.perf_counter() - started) * 1000,
        )
        return response

    def _classify(self, response: httpx.Response, *, creates: bool) -> httpx.Response:
        return classify(self.platform, response, creates=creates)

    def _pause(self, attempt: int) -> None:
        time.sleep(self.backoff_seconds * 2 ** (attempt - 1))


def classify(platform: Platform, response: httpx.Response, *, creates: bool) -> httpx.Response:
    """What any network's answer means before its driver reads it: 429 its rate limit,
    401 a token it no longer accepts, 5xx a failure (``sent`` when the call creates).
    Returns every other answer, for the driver; the sandbox reads the answers it stands
    in for through here too, so it answers as a real driver hears the network."""
    status = response.status_code
    if status == 429:
        raise PlatformRateLimited(
            f"{platform.value} answered 429 (rate limit)",
            retry_after=retry_after_of(response),
        )
    if status == 401:
        raise AccessRevoked(f"{platform.value} answered 401")
    if status >= 500:
        raise PlatformUnavailable(
            f"{platform.value} answered {status}",
            retry_after=retry_after_of(response),
            sent=creates,
        )
    return response


def retry_after_of(response: httpx.Response, *, now: datetime | None = None) -> int:
    """Seconds to wait, from ``Retry-After`` (seconds or a date) or a rate-limit reset
    time in epoch seconds (``x-rate-limit-reset`` as X sends it, ``ratelimit-reset`` as a
    Bluesky PDS does: https://docs.bsky.app/docs/advanced-guides/rate-limits); at least 1."""
    now = now or datetime.now(UTC)
    wait = retry_after_header.seconds(response.headers.get("Retry-After"), now=now.timestamp())
    if wait is not None:
        return max(1, math.ceil(wait))
    reset = response.headers.get("x-rate-limit-reset") or response.headers.get("ratelimit-reset")
    if reset and reset.strip().isdigit():
        return max(1, int(reset) - int(now.timestamp()))
    return DEFAULT_RETRY_AFTER


def _where(url: str) -> str:
    """Host and path only: the query may carry a token."""
    parsed = httpx.URL(url)
    return f"{parsed.host}{parsed.path}"
