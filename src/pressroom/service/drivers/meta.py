"""What Meta's Graph APIs share (Facebook Pages, Instagram, Threads): how they fail,
where a token goes, publishing quotas and the wait for a media container.

**Failures.** Every Graph API answers a failure as ``{"error": {"message", "type",
"code", "error_subcode", "is_transient", "fbtrace_id"}}``, usually with HTTP 400 whatever
the cause, so the cause is read from ``code`` (https://developers.facebook.com/docs/graph-api/guides/error-handling,
read 2026-11-25):

- 190 (and 102): the access token expired or was revoked: the connection turns inactive;
- 4, 17, 32, 613, 80001-80014: a rate limit (app, user, page, custom, business use case);
- 9 (Instagram's 2207042 "the account reached its publishing limit"): the 24-hour
  publishing quota, a rate limit too
  (https://developers.facebook.com/docs/instagram-platform/content-publishing#rate-limit);
- 10 and 200-299: a permission the grant lacks (``pages_permission_missing`` for
  page_social; elsewhere a grant to renew);
- 9007 (Instagram's 2207027 "the media is not ready for publishing"): a container
  published before it was ready; nothing was published, so it is transient and unsent
  (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes);
- 506: a duplicate post; 100 and other 4xx: a refused request, in Meta's words;
- 1, 2, ``is_transient``: the API failed for now.

**Tokens and secrets never go in a URL**: URLs end up in proxies' and servers' logs;
bodies and headers do not. Where Meta documents a token's place outside the URL, that
is where it goes; where it documents only a query parameter, the parameter goes in a
POST body instead (``GraphAccess``):

- graph.instagram.com documents ``Authorization: Bearer`` (Instagram Platform
  reference examples): every call carries it (``BEARER``);
- graph.facebook.com and graph.threads.net document only the ``access_token``
  parameter: a POST sends it in its form body, as Meta's examples do with ``-F``; a read
  of a GET edge is sent as a POST with ``method=GET`` and its parameters in the body
  (``PARAMETER``), the method override the Graph API has taken from clients that cannot
  send a GET with a body (Meta's own PHP SDK sent every call so). Whether the Threads
  host honours the override is not confirmed by Meta's pages; the token exchanges need
  it anyway (their app secret has no documented place outside the query), so the
  Threads driver depends on one undocumented behaviour rather than two (the override
  and an undocumented Bearer header).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

import httpx

from pressroom.error_codes import ErrorCode
from pressroom.service.drivers.answers import json_of
from pressroom.service.drivers.base import (
    AccessRevoked,
    PermissionMissing,
    PlatformRateLimited,
    PlatformRefused,
    PlatformUnavailable,
)
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.inspection import QuotaLeft

TOKEN_CODES = frozenset({102, 190})
RATE_CODES = frozenset({4, 9, 17, 32, 613, *range(80001, 80015)})
PUBLISHING_LIMIT_CODE = 9
NOT_READY_CODE = 9007
PUBLISHING_LIMIT_WAIT_SECONDS = 3600
"""How long to wait once an account's 24-hour publishing quota is used up. The window
moves: a slot frees 24 hours after the post that took it, which Meta does not say; an
hour neither spends the quota's reads nor leaves a post waiting a day."""


class GraphAccess(Enum):
    """Where a Graph host documents the access token (see the module docstring)."""

    BEARER = "bearer"
    PARAMETER = "parameter"


def call(
    http: NetworkClient,
    access: GraphAccess,
    method: str,
    url: str,
    token: str,
    params: dict[str, str],
    *,
    creates: bool = False,
) -> httpx.Response:
    """One Graph API call with ``token`` where ``access`` says, never in the URL.

    A ``GET`` under ``PARAMETER`` goes as a POST with ``method=GET``: it is still a
    read, retried as one."""
    if access is GraphAccess.BEARER:
        if method == "GET":
            return http.request(method, url, token=token, params=params)
        return http.request(method, url, token=token, creates=creates, data=params)
    if method == "GET":
        form = {**params, "access_token": token, "method": "GET"}
        return http.request("POST", url, data=form, read=True)
    return http.request(method, url, data={**params, "access_token": token}, creates=creates)


def token_form(
    http: NetworkClient, url: str, form: dict[str, str], *, read_edge: bool = False
) -> httpx.Response:
    """A token exchange or renewal with its secrets in a POST body, never in the URL.

    ``read_edge`` marks an edge Meta documents as a GET with the app secret in the query
    (``/access_token`` on the Instagram and Threads hosts, ``/refresh_access_token`` on
    Threads'): ``method=GET`` asks the Graph API to answer the POST as that read."""
    return http.request("POST", url, data={**form, **({"method": "GET"} if read_edge else {})})


@dataclass(frozen=True)
class Quota:
    """An account's publishing quota as Meta reports it: posts used in the moving window
    and how many it allows (``content_publishing_limit``, ``threads_publishing_limit``)."""

    used: int
    total: int

    @property
    def exhausted(self) -> bool:
        return self.total > 0 and self.used >= self.total


def quota_of(answer: dict[str, Any]) -> Quota | None:
    """``{"data": [{"quota_usage": 4, "config": {"quota_total": 250, ...}}]}`` as a
    Quota; None when the answer does not say (then publishing goes ahead)."""
    rows = answer.get("data")
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], dict):
        return None
    config = rows[0].get("config")
    total = config.get("quota_total") if isinstance(config, dict) else None
    used = rows[0].get("quota_usage")
    if not isinstance(used, int) or not isinstance(total, int):
        return None
    return Quota(used, total)


def quota_window_of(answer: dict[str, Any]) -> int | None:
    """The quota's window in seconds (``config.quota_duration``), where Meta says it."""
    rows = answer.get("data")
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], dict):
        return None
    config = rows[0].get("config")
    duration = config.get("quota_duration") if isinstance(config, dict) else None
    return duration if isinstance(duration, int) else None


def publishing_limit_of(response: httpx.Response, network: str) -> tuple[QuotaLeft | None, bool]:
    """A ``*_publishing_limit`` read for ``drivers check``: the quota left where the answer
    says it, and whether the token may publish (a permission refusal says it may not)."""
    if response.status_code == 200:
        answer = json_of(response)
        used = quota_of(answer)
        quota = QuotaLeft(used.used, used.total, quota_window_of(answer)) if used else None
        return quota, True
    if is_permission_refusal(response):
        return None, False
    raise failure(response, network, sent=False)


def is_permission_refusal(response: httpx.Response) -> bool:
    """Whether a Graph error is a permission the grant lacks (code 10 or 200-299)."""
    if response.status_code == 200:
        return False
    code = int(error_of(response).get("code") or 0)
    return code == 10 or 200 <= code <= 299


def quota_exhausted(network: str, quota: Quota) -> PlatformRateLimited:
    return PlatformRateLimited(
        f"{network} allows {quota.total} API posts a day per account, and this account "
        f"has made {quota.used}: nothing was sent",
        retry_after=PUBLISHING_LIMIT_WAIT_SECONDS,
    )


FIRST_POLL_SECONDS = 1.0
LONGEST_POLL_SECONDS = 60.0


def poll_delays(
    total_seconds: float,
    *,
    first: float = FIRST_POLL_SECONDS,
    longest: float = LONGEST_POLL_SECONDS,
) -> Iterator[float]:
    """The waits before each read of a container's status, ``total_seconds`` in all.

    Meta recommends reading a container's status "once per minute, for no more than 5
    minutes" (https://developers.facebook.com/docs/instagram-platform/content-publishing#troubleshooting,
    https://developers.facebook.com/docs/threads/troubleshooting): right for a reel, but
    a photo or a text is ready within seconds and its publish call would hold a minute
    for nothing. So the wait starts short and doubles up to once a minute: 1, 2, 4, 8,
    16, 32 s, then once a minute: ten reads in five minutes, where a read every 3 s
    made forty in two."""
    waited, delay = 0.0, first
    while waited < total_seconds:
        step = min(delay, total_seconds - waited)
        yield step
        waited += step
        delay = min(delay * 2, longest)


def error_of(response: httpx.Response) -> dict[str, Any]:
    error = json_of(response).get("error")
    return error if isinstance(error, dict) else {}


def failure(
    response: httpx.Response,
    network: str,
    *,
    sent: bool,
    field: str | None = None,
    permission: ErrorCode | None = None,
) -> Exception:
    """The service's failure for a Graph API error answer. A missing permission is
    ``permission`` (a spec 403 code) where the spec has one for it, else a grant to
    renew (the connection turns inactive)."""
    error = error_of(response)
    code = int(error.get("code") or 0)
    message = f"{network} answered: {error.get('message') or f'HTTP {response.status_code}'}"
    if code in TOKEN_CODES:
        return AccessRevoked(message)
    if code in RATE_CODES:
        wait = {PUBLISHING_LIMIT_CODE: PUBLISHING_LIMIT_WAIT_SECONDS, 4: 3600}.get(code, 600)
        return PlatformRateLimited(message, retry_after=wait)
    if code == NOT_READY_CODE:
        return PlatformUnavailable(f"{message} (nothing was published)", retry_after=60, sent=False)
    if is_permission_refusal(response):
        return PermissionMissing(permission, message) if permission else AccessRevoked(message)
    if error.get("is_transient") or code in (1, 2) or response.status_code >= 500:
        return PlatformUnavailable(message, retry_after=60, sent=sent)
    return PlatformRefused(message, field=field)
