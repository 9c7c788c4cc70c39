"""What Meta's Graph APIs share (Facebook Pages, Instagram, Threads): how they fail.

Every Graph API answers a failure as ``{"error": {"message", "type", "code",
"error_subcode", "is_transient", "fbtrace_id"}}``, usually with HTTP 400 whatever the
cause, so the cause is read from ``code`` (https://developers.facebook.com/docs/graph-api/guides/error-handling,
read 2026-11-25):

- 190 (and 102): the access token expired or was revoked: the connection turns inactive;
- 4, 17, 32, 613, 80001-80014: a rate limit (app, user, page, custom, business use case);
- 10 and 200-299: a permission the grant lacks (``pages_permission_missing`` for
  page_social; elsewhere a grant to renew);
- 506: a duplicate post; 100 and other 4xx: a refused request, in Meta's words;
- 1, 2, ``is_transient``: the API failed for now.

Secrets never go in a URL (``token_form``): the app secret, codes and tokens that Meta's
pages show as query parameters are sent as a POST's form body, which the Graph hosts
read as they read a query (RFC 6749 sends token requests so too), and every other call
carries its token in ``Authorization: Bearer``. URLs end up in proxies' and servers'
logs; bodies and that header do not.
"""

from __future__ import annotations

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

TOKEN_CODES = frozenset({102, 190})
RATE_CODES = frozenset({4, 17, 32, 613, *range(80001, 80015)})


def token_form(
    http: NetworkClient, url: str, form: dict[str, str], *, read_edge: bool = False
) -> httpx.Response:
    """A token exchange or renewal with its secrets in a POST body, never in the URL.

    ``read_edge`` marks an edge Meta documents as a GET (``/access_token``,
    ``/refresh_access_token`` on the Instagram and Threads hosts): ``method=GET`` asks
    the Graph API to answer the POST as that read, the override it gives clients that
    cannot send a method (as ``method=delete`` on a POST deletes).
    """
    return http.request("POST", url, data={**form, **({"method": "GET"} if read_edge else {})})


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
        return PlatformRateLimited(message, retry_after=3600 if code == 4 else 600)
    if code == 10 or 200 <= code <= 299:
        return PermissionMissing(permission, message) if permission else AccessRevoked(message)
    if error.get("is_transient") or code in (1, 2) or response.status_code >= 500:
        return PlatformUnavailable(message, retry_after=60, sent=sent)
    return PlatformRefused(message, field=field)
