"""OAuth 2.0 pieces every real network's connect uses: PKCE, the consent URL, the token call.

The networks differ in their endpoints, scopes and in how the client authenticates at
the token endpoint (HTTP Basic or the secret in the form); what comes back is the same
RFC 6749 shape, read once here. A refused code or refresh token (``invalid_grant`` and
kin, answered 400 or 401) is ``TokenRefused`` carrying the network's error code only,
never a token.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import timedelta
from typing import Any
from urllib.parse import quote, urlencode

import httpx

from pressroom.service.db.base import utcnow
from pressroom.service.drivers.base import AccessRevoked, TokenRefused, TokenSet
from pressroom.service.drivers.http import NetworkClient


def code_challenge(verifier: str) -> str:
    """RFC 7636's S256 challenge for a verifier."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def consent_url(endpoint: str, params: dict[str, str]) -> str:
    """The consent page's address; spaces as %20, which every network reads."""
    return f"{endpoint}?{urlencode(params, quote_via=quote)}"


def token_call(
    http: NetworkClient,
    url: str,
    form: dict[str, str],
    *,
    basic_auth: tuple[str, str] | None = None,
) -> TokenSet:
    """POST a token request (form-encoded) and read the answer."""
    try:
        response = http.request(
            "POST",
            url,
            data=form,
            auth=httpx.BasicAuth(*basic_auth) if basic_auth else None,
            headers={"Accept": "application/json"},
        )
    except AccessRevoked:  # a 401 from a token endpoint: the client or the grant refused
        raise TokenRefused("invalid_client") from None
    return token_set_of(response)


def token_set_of(response: httpx.Response) -> TokenSet:
    body = _json(response)
    if response.status_code >= 400 or "access_token" not in body:
        raise TokenRefused(str(body.get("error") or f"http_{response.status_code}"))
    expires_in = body.get("expires_in")
    return TokenSet(
        access_token=str(body["access_token"]),
        refresh_token=str(body["refresh_token"]) if body.get("refresh_token") else None,
        expires_at=utcnow() + timedelta(seconds=int(expires_in)) if expires_in else None,
    )


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
