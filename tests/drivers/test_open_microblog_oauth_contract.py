"""AT Protocol OAuth on the paths the local PDS does not take, with respx playing the
servers in the shapes the spec gives (https://atproto.com/specs/oauth, RFC 9449):
a PDS on another origin than its authorization server (Bluesky's own arrangement, where
the PDS asks for a nonce of its own with a 401), a token the PDS no longer honours, a
server that falls short of the profile, a token answer that is not what was asked,
and the client pressroom is at each kind of address."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import respx
from fastapi.testclient import TestClient
from joserfc import jwt
from joserfc.jwk import ECKey

from pressroom.platforms import Platform
from pressroom.service.app import create_app
from pressroom.service.drivers import atproto_oauth, open_microblog
from pressroom.service.drivers.atproto import Session
from pressroom.service.drivers.base import AccessRevoked, Account, TokenRefused
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.open_microblog import BlueskyDriver
from pressroom.settings import NetworkSettings, Settings, get_settings
from tests.service.web.conftest import Browser, csrf_of
from tests.support.atproto import LexiconCheck, install_script

SERVICE = "https://bsky.social"
PLC = "https://plc.directory"
PDS = "https://morel.us-east.host.bsky.network"
ISSUER = "https://bsky.social"
DID = "did:plc:z72i7hdynmk6r22z27h6tvur"
TOKEN = "an-access-token"
DELETE = f"{PDS}/xrpc/com.atproto.repo.deleteRecord"
POST_URI = f"at://{DID}/app.bsky.feed.post/3l4ewtbkaxk2a"


class Tokens:
    def __init__(self, key: str) -> None:
        self.session = Session(
            PDS, DID, "pressroom.bsky.social", TOKEN, key, f"{ISSUER}/oauth/token", "client"
        )

    def access_token(self, connection_id: str) -> str:
        return self.session.dumps()


class NoFiles:
    def url(self, file_id: str, storage_key: str, content_type: str) -> str:
        raise AssertionError

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        raise AssertionError


@pytest.fixture
def key() -> str:
    return atproto_oauth.new_key()


@pytest.fixture
def driver(key: str) -> BlueskyDriver:
    http = NetworkClient(Platform.OPEN_MICROBLOG, timeout_seconds=5, backoff_seconds=0)
    return BlueskyDriver(SERVICE, PLC, Tokens(key), http, NoFiles())


def _proof_of(request: httpx.Request) -> tuple[dict[str, object], dict[str, object]]:
    """A request's DPoP proof, its signature checked with the key its header carries."""
    token = request.headers["DPoP"]
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    decoded = jwt.decode(token, ECKey.import_key(header["jwk"]), algorithms=["ES256"])
    return dict(decoded.header), dict(decoded.claims)


def test_a_pds_asks_for_its_own_nonce_and_the_call_is_signed_again_with_it(
    driver: BlueskyDriver, key: str
) -> None:
    with respx.mock(assert_all_called=True) as router:
        router.post(DELETE).mock(
            side_effect=[
                httpx.Response(
                    401,
                    headers={
                        "WWW-Authenticate": 'DPoP error="use_dpop_nonce"',
                        "DPoP-Nonce": "pds-nonce-1",
                    },
                    json={"error": "use_dpop_nonce"},
                ),
                httpx.Response(200, json={}),
            ]
        )
        driver.delete("connection", POST_URI)
        first, second = (call.request for call in router.calls)
    assert second.headers["Authorization"] == f"DPoP {TOKEN}"
    header, claims = _proof_of(second)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    public = ECKey.import_key(json.loads(key)).as_dict(private=False)
    assert header["jwk"] == public and "d" not in header["jwk"]  # type: ignore[operator]
    assert claims["htm"] == "POST" and claims["htu"] == DELETE
    assert claims["nonce"] == "pds-nonce-1"
    ath = base64.urlsafe_b64encode(hashlib.sha256(TOKEN.encode()).digest()).rstrip(b"=")
    assert claims["ath"] == ath.decode()
    assert "nonce" not in _proof_of(first)[1]
    assert _proof_of(first)[1]["jti"] != claims["jti"]  # a fresh proof for each request


def test_a_token_the_pds_no_longer_honours_is_the_session_gone(driver: BlueskyDriver) -> None:
    with respx.mock(assert_all_called=True) as router:
        router.post(DELETE).respond(
            401,
            headers={"WWW-Authenticate": 'DPoP error="invalid_token"'},
            json={"error": "InvalidToken", "message": "token expired"},
        )
        with pytest.raises(AccessRevoked):
            driver.delete("connection", POST_URI)
        assert len(router.calls) == 1


def _server_metadata(**changed: object) -> dict[str, object]:
    meta: dict[str, object] = {
        "issuer": ISSUER,
        "authorization_endpoint": f"{ISSUER}/oauth/authorize",
        "token_endpoint": f"{ISSUER}/oauth/token",
        "pushed_authorization_request_endpoint": f"{ISSUER}/oauth/par",
        "require_pushed_authorization_requests": True,
        "code_challenge_methods_supported": ["S256"],
        "dpop_signing_alg_values_supported": ["ES256"],
        "scopes_supported": ["atproto", "transition:generic"],
        "authorization_response_iss_parameter_supported": True,
        "token_endpoint_auth_methods_supported": ["none", "private_key_jwt"],
    }
    meta.update(changed)
    return meta


def _serve(router: respx.MockRouter, meta: dict[str, object]) -> None:
    router.get(f"{PDS}/.well-known/oauth-protected-resource").respond(
        json={"resource": PDS, "authorization_servers": [ISSUER]}
    )
    router.get(f"{ISSUER}/.well-known/oauth-authorization-server").respond(json=meta)


def test_discovery_names_the_servers_endpoints_and_refuses_one_that_falls_short() -> None:
    http = NetworkClient(Platform.OPEN_MICROBLOG, timeout_seconds=5, backoff_seconds=0)
    with respx.mock() as router:
        _serve(router, _server_metadata())
        found = atproto_oauth.discover(http, PDS)
    assert found == atproto_oauth.AuthServer(
        ISSUER, f"{ISSUER}/oauth/par", f"{ISSUER}/oauth/authorize", f"{ISSUER}/oauth/token"
    )
    for meta, lacks in (
        (_server_metadata(issuer="https://elsewhere.example"), "its metadata"),
        (_server_metadata(pushed_authorization_request_endpoint=None), "pushed authorization"),
        (_server_metadata(dpop_signing_alg_values_supported=["RS256"]), "ES256 DPoP proofs"),
    ):
        with respx.mock() as router:
            _serve(router, meta)
            with pytest.raises(atproto_oauth.OAuthUnavailable, match=lacks):
                atproto_oauth.discover(http, PDS)
    with respx.mock() as router:
        router.get(f"{PDS}/.well-known/oauth-protected-resource").respond(404)
        with pytest.raises(atproto_oauth.OAuthUnavailable, match="offers no OAuth"):
            atproto_oauth.discover(http, PDS)


def test_a_par_refused_for_its_nonce_is_pushed_again_with_it(key: str) -> None:
    http = NetworkClient(Platform.OPEN_MICROBLOG, timeout_seconds=5, backoff_seconds=0)
    client = atproto_oauth.client_of("https://pressroom.example.com", open_microblog.SCOPES)
    server = atproto_oauth.AuthServer(
        ISSUER, f"{ISSUER}/oauth/par", f"{ISSUER}/oauth/authorize", f"{ISSUER}/oauth/token"
    )
    with respx.mock() as router:
        router.post(server.par_endpoint).mock(
            side_effect=[
                httpx.Response(
                    400, headers={"DPoP-Nonce": "as-1"}, json={"error": "use_dpop_nonce"}
                ),
                httpx.Response(201, json={"request_uri": "urn:ietf:params:oauth:request_uri:r1"}),
            ]
        )
        url = atproto_oauth.push(
            http,
            atproto_oauth.Nonces(),
            server,
            client,
            state="s1",
            verifier="v" * 64,
            key=key,
            login_hint="alice.bsky.social",
        )
        pushed = router.calls[1].request
    assert url.startswith(f"{ISSUER}/oauth/authorize?")
    assert parse_qs(urlsplit(url).query) == {
        "client_id": [client.client_id],
        "request_uri": ["urn:ietf:params:oauth:request_uri:r1"],
    }
    form = parse_qs(pushed.content.decode())
    challenge = base64.urlsafe_b64encode(hashlib.sha256(b"v" * 64).digest()).rstrip(b"=")
    assert form["code_challenge"] == [challenge.decode()]
    assert form["code_challenge_method"] == ["S256"]
    assert form["scope"] == ["atproto transition:generic"]
    assert form["login_hint"] == ["alice.bsky.social"]
    assert "code_verifier" not in form
    assert _proof_of(pushed)[1]["nonce"] == "as-1"
    assert "ath" not in _proof_of(pushed)[1]


@pytest.mark.parametrize(
    ("answer", "refused"),
    [
        ({"token_type": "Bearer", "sub": DID, "scope": "atproto"}, "token_not_dpop_bound"),
        ({"token_type": "DPoP", "sub": "did:plc:someoneelse", "scope": "atproto"}, "another"),
        ({"token_type": "DPoP", "sub": DID, "scope": "transition:generic"}, "atproto_scope"),
    ],
)
def test_a_token_answer_not_bound_or_not_for_the_account_is_refused(
    answer: dict[str, str], refused: str
) -> None:
    response = httpx.Response(200, json={"access_token": "a", "refresh_token": "r", **answer})
    with pytest.raises(TokenRefused, match=refused):
        atproto_oauth.grant_of(response, DID)


def test_the_client_pressroom_is_at_each_kind_of_address() -> None:
    scopes = open_microblog.SCOPES
    on_https = atproto_oauth.client_of("https://pressroom.example.com/", scopes)
    assert (
        on_https.client_id
        == "https://pressroom.example.com/oauth/open_microblog/client-metadata.json"
    )
    assert not on_https.loopback
    loopback = atproto_oauth.client_of("http://127.0.0.1:8000", scopes)
    assert loopback.loopback and loopback.client_id.startswith("http://localhost?")
    assert parse_qs(urlsplit(loopback.client_id).query) == {
        "redirect_uri": ["http://127.0.0.1:8000/oauth/callback/open_microblog"],
        "scope": ["atproto transition:generic"],
    }
    for refused in ("http://localhost:8000", "http://pressroom.lan"):
        with pytest.raises(atproto_oauth.OAuthUnavailable):
            atproto_oauth.client_of(refused, scopes)


def _app(settings: Settings, base_url: str) -> TestClient:
    networks = NetworkSettings(open_microblog_service_url=SERVICE)
    get_settings.cache_clear()
    return TestClient(
        create_app(settings.model_copy(update={"networks": networks, "base_url": base_url})),
        base_url=base_url,
    )


def test_the_client_metadata_document_is_served_at_its_client_id_on_https(
    settings: Settings,
) -> None:
    with _app(settings, "https://pressroom.example.com") as client:
        served = client.get(atproto_oauth.CLIENT_METADATA_PATH)
        assert served.status_code == 200
        document = served.json()
        assert document["client_id"] == str(served.url)
        assert document["redirect_uris"] == [
            "https://pressroom.example.com/oauth/callback/open_microblog"
        ]
        assert document["dpop_bound_access_tokens"] is True
        assert set(document["scope"].split()) == {"atproto", "transition:generic"}
        # A confidential client: its keys' public half where the document says.
        assert document["token_endpoint_auth_method"] == "private_key_jwt"
        assert document["token_endpoint_auth_signing_alg"] == "ES256"
        keys = client.get(urlsplit(document["jwks_uri"]).path).json()["keys"]
        assert [sorted(k) for k in keys] == [["alg", "crv", "kid", "kty", "use", "x", "y"]]
        assert keys[0]["kid"] == ECKey.import_key(keys[0]).thumbprint()
    with _app(settings, "http://127.0.0.1:8000") as client:  # the localhost client has none
        assert client.get(atproto_oauth.CLIENT_METADATA_PATH).status_code == 404
        assert client.get(atproto_oauth.JWKS_PATH).status_code == 404


def test_a_handle_alone_at_an_address_no_server_can_sign_in_asks_for_an_app_password(
    settings: Settings,
) -> None:
    with _app(settings, "http://testserver") as client:
        Browser(client).sign_up()
        form = client.get("/connections/open_microblog/sign-in")
        refused = client.post(
            "/connections/open_microblog/sign-in",
            data={"csrf_token": csrf_of(form.text), "handle": "alice.bsky.social"},
            follow_redirects=False,
        )
        assert refused.status_code == 400
        assert 'href="#password"' in refused.text
        assert "connect it with an app password instead" in refused.text


def test_a_read_tried_again_after_a_502_carries_a_fresh_proof(driver: BlueskyDriver) -> None:
    """A DPoP proof is good for one request (its ``jti``): a server that checks replays
    would refuse the same proof sent twice, so each attempt is signed afresh."""
    session = f"{PDS}/xrpc/com.atproto.server.getSession"
    with respx.mock(assert_all_called=True) as router:
        router.get(session).mock(
            side_effect=[
                httpx.Response(502),
                httpx.Response(200, json={"handle": "pressroom.bsky.social", "did": DID}),
            ]
        )
        driver.inspect(Account("connection", "@pressroom.bsky.social"))
        first, second = (_proof_of(call.request)[1] for call in router.calls)
    assert first["jti"] != second["jti"]
    assert first["htm"] == second["htm"] == "GET" and first["htu"] == session


def test_a_confidential_client_signs_a_fresh_assertion_for_each_request_to_the_server(
    key: str,
) -> None:
    """RFC 7523 and https://atproto.com/specs/oauth#confidential-client-authentication:
    iss and sub the client id, aud the issuer, a jti of its own each time (the nonce
    retry too), signed with the key the client's JWKS names."""
    http = NetworkClient(Platform.OPEN_MICROBLOG, timeout_seconds=5, backoff_seconds=0)
    client_key = atproto_oauth.client_key(b"a service secret")
    client = atproto_oauth.client_of(
        "https://pressroom.example.com", open_microblog.SCOPES, (client_key,)
    )
    [public] = atproto_oauth.jwks(client)["keys"]
    server = atproto_oauth.AuthServer(
        ISSUER, f"{ISSUER}/oauth/par", f"{ISSUER}/oauth/authorize", f"{ISSUER}/oauth/token"
    )
    with respx.mock() as router:
        router.post(server.par_endpoint).mock(
            side_effect=[
                httpx.Response(400, headers={"DPoP-Nonce": "n"}, json={"error": "use_dpop_nonce"}),
                httpx.Response(201, json={"request_uri": "urn:ietf:params:oauth:request_uri:r"}),
            ]
        )
        atproto_oauth.push(
            http,
            atproto_oauth.Nonces(),
            server,
            client,
            state="s",
            verifier="v" * 64,
            key=key,
            login_hint="alice.bsky.social",
        )
        forms = [parse_qs(call.request.content.decode()) for call in router.calls]
    seen = []
    for form in forms:
        assert form["client_assertion_type"] == [atproto_oauth.ASSERTION_TYPE]
        decoded = jwt.decode(
            form["client_assertion"][0], ECKey.import_key(public), algorithms=["ES256"]
        )
        assert decoded.header["kid"] == public["kid"]
        claims = decoded.claims
        assert claims["iss"] == claims["sub"] == client.client_id
        assert claims["aud"] == ISSUER and claims["exp"] > claims["iat"]
        seen.append(claims["jti"])
    assert len(set(seen)) == 2


def test_a_confidential_grant_is_refreshed_with_its_own_client_key(key: str) -> None:
    first, second = atproto_oauth.client_key(b"old secret"), atproto_oauth.client_key(b"new")
    http = NetworkClient(Platform.OPEN_MICROBLOG, timeout_seconds=5, backoff_seconds=0)
    held = Session(
        PDS,
        DID,
        "pressroom.bsky.social",
        "a-refresh-token",
        key,
        f"{ISSUER}/oauth/token",
        "https://pressroom.example.com/oauth/open_microblog/client-metadata.json",
        ISSUER,
        atproto_oauth.kid_of(first),
    )
    answer = {
        "access_token": "new-access",
        "refresh_token": "next-refresh",
        "token_type": "DPoP",
        "expires_in": 3600,
        "sub": DID,
        "scope": "atproto transition:generic",
    }
    # The service's secret was replaced and the old one kept: the grant's key still signs.
    driver = BlueskyDriver(SERVICE, PLC, Tokens(key), http, NoFiles(), client_keys=(second, first))
    with respx.mock() as router:
        router.post(f"{ISSUER}/oauth/token").respond(json=answer)
        tokens = driver.refresh(held.dumps())
        form = parse_qs(router.calls[0].request.content.decode())
    assert form["grant_type"] == ["refresh_token"] and form["refresh_token"] == ["a-refresh-token"]
    header = json.loads(base64.urlsafe_b64decode(form["client_assertion"][0].split(".")[0] + "=="))
    assert header["kid"] == atproto_oauth.kid_of(first)
    assert tokens.refresh_token is not None
    assert Session.loads(tokens.refresh_token).client_kid == atproto_oauth.kid_of(first)
    # Without the old secret the grant cannot be refreshed: the connection turns inactive.
    gone = BlueskyDriver(SERVICE, PLC, Tokens(key), http, NoFiles(), client_keys=(second,))
    with pytest.raises(TokenRefused, match="client_key_gone"):
        gone.refresh(held.dumps())


def test_the_reference_server_accepts_the_client_pressroom_is(
    atproto_lexicons: LexiconCheck,
) -> None:
    """The client metadata document, its keys and the localhost client id, judged by
    the pinned ``@atproto/oauth-provider``'s own checks (tests/atproto/client_metadata.mjs):
    what a PDS runs on the document it fetches at the client id."""
    keys = (atproto_oauth.client_key(b"a service secret"),)
    on_https = atproto_oauth.client_of("https://pressroom.example.com", open_microblog.SCOPES, keys)
    loopback = atproto_oauth.client_of("http://127.0.0.1:8000", open_microblog.SCOPES, keys)
    script = install_script(atproto_lexicons.directory, "client_metadata.mjs")
    done = subprocess.run(
        [str(atproto_lexicons.home / "bin" / "node"), script],
        input=json.dumps(
            {
                "metadata": atproto_oauth.client_metadata(on_https),
                "jwks": atproto_oauth.jwks(on_https),
                "loopback": loopback.client_id,
            }
        ),
        cwd=atproto_lexicons.directory,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == {"metadata": None, "jwks": None, "loopback": None}
