"""AT Protocol OAuth for the Bluesky driver (https://atproto.com/specs/oauth).

Where the account's PDS offers OAuth, pressroom connects as an OAuth client instead of
asking for an app password (https://docs.bsky.app/docs/advanced-guides/oauth-client):

- **Discovery**: the handle resolves to a DID, the DID to its PDS (``open_microblog``),
  the PDS names its authorization server (``/.well-known/oauth-protected-resource``,
  RFC 9728), whose metadata (``/.well-known/oauth-authorization-server``, RFC 8414) must
  name itself as the issuer and offer PAR, PKCE's S256 and ES256 DPoP proofs.
- **The client**: identified by the URL of its client metadata document, which
  pressroom serves at ``CLIENT_METADATA_PATH`` (it must be https). It is a confidential
  client (``private_key_jwt``, https://atproto.com/specs/oauth#confidential-client-authentication):
  every request to the authorization server carries a client assertion signed with a
  key derived from the service's secret (``client_key``; its public half is served at
  ``JWKS_PATH``), so its grants last as long as the server lets a confidential client's
  (two years on the reference server, against two weeks for a public client). A
  pressroom on a loopback address (``http://127.0.0.1:PORT``) is the spec's "localhost
  client" instead, a public one: the client id ``http://localhost?redirect_uri=…&scope=…``
  carries its metadata in itself
  (https://atproto.com/specs/oauth#localhost-client-development).
- **Authorization**: a pushed authorization request (RFC 9126) with PKCE (S256) and
  ``login_hint`` (the handle); the browser goes to the authorization endpoint with the
  ``request_uri`` it answered. The callback's ``iss`` must be the issuer.
- **DPoP** (RFC 9449): every token is bound to a key pressroom made for the grant
  (P-256, ES256); each call to the token endpoint and to the PDS carries a fresh proof
  (``jti``, ``htm``, ``htu``, ``iat``, the server's ``nonce``, and ``ath`` with a
  token). A server that wants a (newer) nonce answers ``use_dpop_nonce`` (400 from the
  authorization server, 401 with ``WWW-Authenticate`` from the PDS) and its
  ``DPoP-Nonce`` header: the call is made once more with it.
- **Refresh**: ``grant_type=refresh_token`` at the token endpoint with a proof; refresh
  tokens are single-use (the answer brings the next).

JWK and JWT signing come from ``joserfc``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from joserfc import jwt
from joserfc.jwk import ECKey

from pressroom.service.drivers.answers import json_of
from pressroom.service.drivers.base import AccessRevoked, TokenRefused
from pressroom.service.drivers.http import NetworkClient

CLIENT_METADATA_PATH = "/oauth/open_microblog/client-metadata.json"
"""Where pressroom serves its client metadata document: its client id on https."""
JWKS_PATH = "/oauth/open_microblog/jwks.json"
"""Where pressroom serves the public half of its client keys (the metadata's ``jwks_uri``)."""
CALLBACK_PATH = "/oauth/callback/open_microblog"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_SECONDS = 60
"""How long a client assertion may be used (the reference server takes one minute)."""
LOOPBACK_CLIENT = "http://localhost"
"""The spec's localhost client id origin (https://atproto.com/specs/oauth#localhost-client-development)."""
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1"})
"""A localhost client's redirect URI must use a loopback IP literal, not ``localhost``
(RFC 8252 section 7.3, as the reference authorization server enforces)."""
DPOP_ALG = "ES256"
"""The one DPoP algorithm every AT Protocol authorization server must take."""


class OAuthUnavailable(Exception):
    """OAuth cannot connect this account from this pressroom (the PDS offers none, or
    pressroom's address cannot be an OAuth client): the message says which, in words;
    an app password still can."""


# -- the client ----------------------------------------------------------------------


@dataclass(frozen=True)
class Client:
    """pressroom as an OAuth client of AT Protocol servers."""

    client_id: str
    redirect_uri: str
    scope: str
    base_url: str
    keys: tuple[str, ...] = ()
    """Its signing keys (private JWKs with their ``kid``), the first signing: a
    confidential client's; none for a public one."""

    @property
    def loopback(self) -> bool:
        return self.client_id.startswith(f"{LOOPBACK_CLIENT}?")

    @property
    def confidential(self) -> bool:
        return bool(self.keys)


def client_key(secret: bytes) -> str:
    """The client's P-256 signing key, derived from a service secret (HKDF-SHA256 under
    its own label, so it says nothing of the secret or of the other keys made from it):
    every process of one service derives the same key, and nothing more is stored. A
    private JWK with its RFC 7638 thumbprint as ``kid``."""
    material = HKDF(
        algorithm=hashes.SHA256(), length=48, salt=None, info=b"pressroom atproto oauth client"
    ).derive(secret)
    order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551  # P-256's n
    private = ECKey.import_key(
        ec.derive_private_key(int.from_bytes(material, "big") % (order - 1) + 1, ec.SECP256R1())
    )
    jwk = private.as_dict(private=True)
    return json.dumps({**jwk, "kid": private.thumbprint()}, separators=(",", ":"))


def kid_of(key: str) -> str:
    return str(json.loads(key)["kid"])


def client_of(base_url: str, scopes: tuple[str, ...], keys: tuple[str, ...] = ()) -> Client:
    """The client pressroom is at ``base_url`` (``PRESSROOM_BASE_URL``): confidential on
    https with ``keys``, public at a loopback address; ``OAuthUnavailable`` when no
    authorization server may take it."""
    base = base_url.rstrip("/")
    redirect = f"{base}{CALLBACK_PATH}"
    scope = " ".join(scopes)
    parts = urlsplit(base)
    if parts.scheme == "https":
        return Client(f"{base}{CLIENT_METADATA_PATH}", redirect, scope, base, keys)
    if parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS:
        query = urlencode({"redirect_uri": redirect, "scope": scope}, quote_via=quote)
        return Client(f"{LOOPBACK_CLIENT}?{query}", redirect, scope, base)
    raise OAuthUnavailable(
        f"pressroom's address ({base}) is neither https nor a loopback IP address, so no "
        "Bluesky server can sign it in with OAuth"
    )


def client_metadata(client: Client) -> dict[str, Any]:
    """The client metadata document (https://atproto.com/specs/oauth#client-id-metadata-document)."""
    authentication: dict[str, Any] = (
        {
            "token_endpoint_auth_method": "private_key_jwt",
            "token_endpoint_auth_signing_alg": DPOP_ALG,
            "jwks_uri": f"{client.base_url}{JWKS_PATH}",
        }
        if client.confidential
        else {"token_endpoint_auth_method": "none"}
    )
    return {
        "client_id": client.client_id,
        "client_name": "pressroom",
        "client_uri": client.base_url,
        "application_type": "web",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "redirect_uris": [client.redirect_uri],
        "scope": client.scope,
        **authentication,
        "dpop_bound_access_tokens": True,
    }


def jwks(client: Client) -> dict[str, Any]:
    """The public half of the client's keys (RFC 7517), each with its ``kid``."""
    found = []
    for key in client.keys:
        public = ECKey.import_key(json.loads(key)).as_dict(private=False)
        found.append({**public, "kid": kid_of(key), "use": "sig", "alg": DPOP_ALG})
    return {"keys": found}


def assertion(key: str, client_id: str, issuer: str) -> dict[str, str]:
    """The form fields that authenticate a confidential client (RFC 7523): a JWT from
    the client to the issuer, signed with its key, good for one request."""
    private = ECKey.import_key(json.loads(key))
    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": issuer,
        "jti": secrets.token_urlsafe(16),
        "iat": now,
        "exp": now + ASSERTION_SECONDS,
    }
    token = jwt.encode(
        {"alg": DPOP_ALG, "kid": kid_of(key)}, claims, private, algorithms=[DPOP_ALG]
    )
    return {"client_assertion_type": ASSERTION_TYPE, "client_assertion": token}


# -- DPoP ----------------------------------------------------------------------------


def new_key() -> str:
    """A fresh P-256 key for one grant, as its private JWK (kept in the vault)."""
    return json.dumps(ECKey.generate_key("P-256").as_dict(private=True), separators=(",", ":"))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def proof(
    key: str, method: str, url: str, *, nonce: str | None, access_token: str | None = None
) -> str:
    """One DPoP proof (RFC 9449 section 4.2): ``htu`` is the URL without its query and
    fragment; ``ath`` the SHA-256 of the access token it travels with."""
    private = ECKey.import_key(json.loads(key))
    parts = urlsplit(url)
    claims: dict[str, Any] = {
        "jti": secrets.token_urlsafe(16),
        "htm": method.upper(),
        "htu": f"{parts.scheme}://{parts.netloc}{parts.path}",
        "iat": int(time.time()),
    }
    if nonce:
        claims["nonce"] = nonce
    if access_token is not None:
        claims["ath"] = _b64url(hashlib.sha256(access_token.encode("ascii")).digest())
    header = {"typ": "dpop+jwt", "alg": DPOP_ALG, "jwk": private.as_dict(private=False)}
    return jwt.encode(header, claims, private, algorithms=[DPOP_ALG])


class Nonces:
    """The last DPoP nonce each server (by origin) gave; servers rotate them, so each
    answer's ``DPoP-Nonce`` replaces the one kept."""

    def __init__(self) -> None:
        self._by_origin: dict[str, str] = {}

    def get(self, url: str) -> str | None:
        return self._by_origin.get(_origin(url))

    def note(self, url: str, response: httpx.Response) -> None:
        nonce = response.headers.get("DPoP-Nonce")
        if nonce:
            self._by_origin[_origin(url)] = nonce


def wants_nonce(response: httpx.Response) -> bool:
    """Whether the server refused the proof for its nonce: 400 ``use_dpop_nonce`` from
    an authorization server, 401 with ``WWW-Authenticate: DPoP error="use_dpop_nonce"``
    from a resource server (RFC 9449 sections 8 and 9)."""
    if response.status_code == 400:
        return json_of(response).get("error") == "use_dpop_nonce"
    if response.status_code == 401:
        return "use_dpop_nonce" in response.headers.get("WWW-Authenticate", "")
    return False


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


# -- the authorization server ---------------------------------------------------------


@dataclass(frozen=True)
class AuthServer:
    issuer: str
    par_endpoint: str
    authorization_endpoint: str
    token_endpoint: str


def discover(http: NetworkClient, pds: str) -> AuthServer:
    """The PDS's authorization server, checked against the profile the spec requires
    (https://atproto.com/specs/oauth#authorization-servers); ``OAuthUnavailable`` when
    the PDS names none or the server falls short."""
    found = http.request("GET", f"{pds}/.well-known/oauth-protected-resource")
    servers = json_of(found).get("authorization_servers") if found.status_code == 200 else None
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
        raise OAuthUnavailable(f"the account's server ({pds}) offers no OAuth sign-in")
    issuer = servers[0].rstrip("/")
    answer = http.request("GET", f"{issuer}/.well-known/oauth-authorization-server")
    meta = json_of(answer) if answer.status_code == 200 else {}
    short = [
        what
        for what, ok in (
            ("its metadata", meta.get("issuer") == issuer),
            (
                "pushed authorization requests",
                bool(meta.get("pushed_authorization_request_endpoint")),
            ),
            ("PKCE S256", "S256" in (meta.get("code_challenge_methods_supported") or [])),
            (
                "ES256 DPoP proofs",
                DPOP_ALG in (meta.get("dpop_signing_alg_values_supported") or []),
            ),
            ("the atproto scope", "atproto" in (meta.get("scopes_supported") or [])),
        )
        if not ok
    ]
    if short:
        raise OAuthUnavailable(
            f"the account's authorization server ({issuer}) lacks {', '.join(short)}"
        )
    return AuthServer(
        issuer,
        str(meta["pushed_authorization_request_endpoint"]),
        str(meta["authorization_endpoint"]),
        str(meta["token_endpoint"]),
    )


@dataclass(frozen=True)
class Pending:
    """One authorization under way, from the PAR to the callback: kept encrypted with
    its ``state`` (the OAuth state row's verifier), never in the browser."""

    verifier: str
    key: str
    issuer: str
    token_endpoint: str
    did: str
    pds: str
    handle: str
    client_id: str
    client_kid: str = ""
    """The client key that authenticated the request (empty: a public client); the
    code is traded, and the grant refreshed, with the same key."""

    def dumps(self) -> str:
        return json.dumps({"atproto_oauth": asdict(self)}, separators=(",", ":"))

    @classmethod
    def loads(cls, text: str) -> Pending | None:
        """The pending authorization a state row holds; None for a plain verifier."""
        if not text.startswith("{"):
            return None
        data = json.loads(text).get("atproto_oauth")
        return cls(**{k: str(v) for k, v in data.items()}) if isinstance(data, dict) else None


def dpop_post(
    http: NetworkClient,
    nonces: Nonces,
    url: str,
    form: dict[str, str],
    key: str,
    *,
    client: tuple[str, str, str] | None = None,
) -> httpx.Response:
    """A form POST to the authorization server with a DPoP proof, made once more with
    the nonce it asks for; ``client`` (its key, its id and the issuer) adds a fresh
    client assertion to each attempt (the server refuses one it has seen)."""
    response = None
    for _ in range(2):
        sent = {**form, **(assertion(*client) if client is not None else {})}
        try:
            response = http.request(
                "POST",
                url,
                data=sent,
                headers={"Accept": "application/json"},
                signed=lambda: {"DPoP": proof(key, "POST", url, nonce=nonces.get(url))},
            )
        except AccessRevoked:  # a 401 from the authorization server: the client refused
            raise TokenRefused("invalid_client") from None
        nonces.note(url, response)
        if not wants_nonce(response):
            return response
    assert response is not None
    return response


def push(
    http: NetworkClient,
    nonces: Nonces,
    server: AuthServer,
    client: Client,
    *,
    state: str,
    verifier: str,
    key: str,
    login_hint: str,
) -> str:
    """The pushed authorization request; answers where to send the browser."""
    challenge = _b64url(hashlib.sha256(verifier.encode("ascii")).digest())
    form = {
        "client_id": client.client_id,
        "response_type": "code",
        "redirect_uri": client.redirect_uri,
        "scope": client.scope,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "login_hint": login_hint,
    }
    signer = (client.keys[0], client.client_id, server.issuer) if client.confidential else None
    answer = dpop_post(http, nonces, server.par_endpoint, form, key, client=signer)
    body = json_of(answer)
    if answer.status_code not in (200, 201) or not body.get("request_uri"):
        raise TokenRefused(str(body.get("error") or f"http_{answer.status_code}"))
    query = urlencode(
        {"client_id": client.client_id, "request_uri": str(body["request_uri"])}, quote_via=quote
    )
    return f"{server.authorization_endpoint}?{query}"


@dataclass(frozen=True)
class Grant:
    access_token: str
    refresh_token: str | None
    expires_in: int | None
    sub: str


def grant_of(response: httpx.Response, did: str) -> Grant:
    """A token answer, checked: DPoP-bound, for the account that was asked for, with
    the ``atproto`` scope (https://atproto.com/specs/oauth#tokens-and-session-management)."""
    body = json_of(response)
    if response.status_code != 200 or "access_token" not in body:
        raise TokenRefused(str(body.get("error") or f"http_{response.status_code}"))
    if str(body.get("token_type", "")).lower() != "dpop":
        raise TokenRefused("token_not_dpop_bound")
    if body.get("sub") != did:
        raise TokenRefused("token_for_another_account")
    if "atproto" not in str(body.get("scope", "")).split():
        raise TokenRefused("atproto_scope_missing")
    expires_in = body.get("expires_in")
    return Grant(
        str(body["access_token"]),
        str(body["refresh_token"]) if body.get("refresh_token") else None,
        int(expires_in) if isinstance(expires_in, int | float) else None,
        did,
    )
