"""Connections through a real OAuth 2.0 authorization-code flow with PKCE and state."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

import httpx
import respx
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, text

from pressroom.service.app import create_app
from pressroom.service.db.models import OAuthState
from pressroom.service.db.session import normalise_url, transaction
from pressroom.settings import Settings
from tests.drivers.contract import held_to
from tests.drivers.contracts import facebook as facebook_contract
from tests.service.web.conftest import Browser, connect, consent_fields, csrf_of


def _unified(browser: Browser, key: str) -> list[dict[str, str]]:
    response = browser.client.get("/api/connections/unified", headers={"X-API-Key": key})
    assert response.status_code == 200
    return response.json()  # type: ignore[no-any-return]


def test_connect_microblog_and_photo_sharing_brings_the_twin(browser: Browser) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    done = connect(browser, "microblog", "@acme")
    assert done.status_code == 200 and "Connected microblog account @acme" in done.text  # type: ignore[attr-defined]
    connect(browser, "photo_sharing", "acme.photos", account_type="creator")
    found = {(c["platform"], c["name"], c["status"]) for c in _unified(browser, key)}
    assert found == {
        ("microblog", "@acme", "active"),
        ("photo_sharing", "acme.photos", "active"),
        ("text_thread", "acme.photos", "active"),
    }
    published = browser.client.post(
        "/api/v2/microblog/publish",
        headers={"X-API-Key": key},
        json={"connectionId": _id(browser, key, "microblog"), "text": "hello"},
    )
    assert published.status_code == 200, published.text


def _id(browser: Browser, key: str, platform: str) -> str:
    return next(c["id"] for c in _unified(browser, key) if c["platform"] == platform)


def test_tokens_are_encrypted_at_rest(browser: Browser, settings: Settings) -> None:
    browser.sign_up()
    connect(browser, "microblog", "@acme")
    engine = create_engine(normalise_url(settings.database_url))
    with engine.connect() as conn:
        row = conn.execute(
            text("SELECT access_token_enc, refresh_token_enc FROM connections")
        ).one()
    engine.dispose()
    assert row[0] and row[1] and row[0].startswith("gAAAA")  # Fernet tokens


def test_denied_consent_creates_nothing(browser: Browser) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    denied = connect(browser, "microblog", "@acme", decision="deny")
    assert denied.status_code == 400  # type: ignore[attr-defined]
    assert "You denied pressroom access" in denied.text  # type: ignore[attr-defined]
    assert _unified(browser, key) == []


def _consent(browser: Browser, platform: str = "microblog") -> dict[str, str | list[str]]:
    """Press Connect and return the consent page's fields (state, challenge, ...)."""
    page = browser.client.get("/connections").text
    started = browser.client.post(
        f"/connections/connect/{platform}",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    consent = browser.client.get(started.headers["location"])
    assert consent.status_code == 200, consent.text
    return consent_fields(consent.text)


def _allow(
    browser: Browser, fields: dict[str, str | list[str]], name: str, platform: str = "microblog"
) -> str:
    """Allow on the consent page; the callback URL it sends the browser to, not followed."""
    back = browser.client.post(
        f"/sandbox/{platform}/oauth/authorize",
        data={**fields, "decision": "allow", "name": name},
        follow_redirects=False,
    )
    assert back.status_code == 303, back.text
    return str(back.headers["location"])


def _authorize(browser: Browser, platform: str = "microblog") -> str:
    """Allow on the consent page and return the callback URL, not yet followed."""
    return _allow(browser, _consent(browser, platform), "@acme", platform)


def test_replayed_or_forged_state_creates_nothing(browser: Browser) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    callback = _authorize(browser)
    forged = re.sub(r"state=[^&]+", "state=forged", callback)
    refused = browser.client.get(forged)
    assert refused.status_code == 400 and "nothing was connected" in refused.text
    assert browser.client.get(callback).status_code == 200  # the real one works once
    replay = browser.client.get(callback)
    assert replay.status_code == 400 and "already used" in replay.text
    assert len(_unified(browser, key)) == 1


def _states(browser: Browser) -> list[OAuthState]:
    sessions = browser.client.app.state.session_factory  # type: ignore[attr-defined]
    with transaction(sessions, write=False) as db:
        return list(db.scalars(select(OAuthState)))


def test_a_callback_carrying_another_accounts_state_is_refused(
    browser: Browser, other_browser: Browser
) -> None:
    """A state belongs to the account that started the flow: another signed-in account that
    opens the link back (a link passed on, or planted) connects nothing, and the state
    stays usable by its own account."""
    browser.sign_up()
    key = browser.api_key_shown()
    callback = _authorize(browser)
    other_browser.sign_up()
    other_key = other_browser.api_key_shown()
    refused = other_browser.client.get(callback)
    assert refused.status_code == 400 and "nothing was connected" in refused.text
    assert _unified(other_browser, other_key) == []
    assert [s.used_at for s in _states(browser)] == [None]
    assert browser.client.get(callback).status_code == 200
    assert [c["name"] for c in _unified(browser, key)] == ["@acme"]


def test_a_state_older_than_its_lifetime_is_refused(browser: Browser) -> None:
    """The person came back after the state's lifetime (the platform's code itself is still
    valid): nothing is connected."""
    from pressroom.service.oauth.service import STATE_TTL

    browser.sign_up()
    key = browser.api_key_shown()
    callback = _authorize(browser)
    aged = STATE_TTL + timedelta(seconds=1)
    sessions = browser.client.app.state.session_factory  # type: ignore[attr-defined]
    with transaction(sessions) as db:
        [state] = db.scalars(select(OAuthState))
        state.created_at -= aged
        state.expires_at -= aged
    refused = browser.client.get(callback)
    assert refused.status_code == 400 and "expired" in refused.text
    assert _unified(browser, key) == []


def test_a_state_is_spent_by_its_callback_even_for_a_fresh_valid_code(browser: Browser) -> None:
    """The callback marks its state used in the database; the same state with a new code
    the platform issued for the same request (same PKCE challenge, so the exchange itself
    would succeed) is refused, and nothing more is connected."""
    browser.sign_up()
    key = browser.api_key_shown()
    fields = _consent(browser)
    first = _allow(browser, fields, "@acme")
    assert browser.client.get(first).status_code == 200
    [state] = _states(browser)
    assert state.used_at is not None
    again = _allow(browser, fields, "@acme2")  # the consent page sent again: a new code
    first_query, again_query = parse_qs(urlparse(first).query), parse_qs(urlparse(again).query)
    assert again_query["state"] == first_query["state"]
    assert again_query["code"] != first_query["code"]
    replay = browser.client.get(again)
    assert replay.status_code == 400 and "already used" in replay.text
    assert [c["name"] for c in _unified(browser, key)] == ["@acme"]


def test_a_wrong_code_verifier_is_refused(browser: Browser, settings: Settings) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    callback = _authorize(browser)
    # Swap the stored verifier for another: the platform must refuse the exchange.
    from pressroom.service.oauth.vault import Vault

    engine = create_engine(normalise_url(settings.database_url))
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE oauth_states SET code_verifier_enc = :v"),
            {"v": Vault.from_settings(settings).encrypt("x" * 64)},
        )
    engine.dispose()
    refused = browser.client.get(callback)
    assert refused.status_code == 400 and "refused to issue tokens" in refused.text
    assert _unified(browser, key) == []


def test_authorization_request_uses_pkce_and_the_registered_callback(browser: Browser) -> None:
    browser.sign_up()
    page = browser.client.get("/connections").text
    started = browser.client.post(
        "/connections/connect/pin_board",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    query = parse_qs(urlparse(started.headers["location"]).query)
    assert query["code_challenge_method"] == ["S256"] and query["code_challenge"][0]
    assert query["redirect_uri"] == ["http://testserver/oauth/callback/pin_board"]
    assert query["state"][0] and query["response_type"] == ["code"]


def test_disconnect_makes_the_twin_inactive_and_reconnect_restores(browser: Browser) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    connect(browser, "photo_sharing", "acme.photos")
    photo = _id(browser, key, "photo_sharing")
    confirm = browser.client.get(f"/connections/{photo}/disconnect")
    assert "text_thread connection turns inactive" in confirm.text
    browser.client.post(
        f"/connections/{photo}/disconnect", data={"csrf_token": csrf_of(confirm.text)}
    )
    assert [(c["platform"], c["status"]) for c in _unified(browser, key)] == [
        ("text_thread", "inactive")
    ]
    connect(browser, "photo_sharing", "acme.photos")
    assert {c["status"] for c in _unified(browser, key)} == {"active"}


def test_profile_cap_is_a_clear_message(browser: Browser) -> None:
    browser.sign_up(plan="blogger")
    refused = connect(browser, "microblog", "@acme")
    assert refused.status_code == 400  # type: ignore[attr-defined]
    assert "includes no social profiles" in refused.text  # type: ignore[attr-defined]
    assert 'href="#connect"' in refused.text  # type: ignore[attr-defined]


def test_expired_unrefreshable_token_turns_inactive_and_reconnect_works(browser: Browser) -> None:
    from pressroom.service.oauth import service as oauth

    browser.sign_up()
    key = browser.api_key_shown()
    connect(browser, "photo_sharing", "acme.photos")
    photo = _id(browser, key, "photo_sharing")
    flow = oauth.flow_of(browser.client.app)
    # A lapsed access token alone is refreshed: the connection stays active.
    from pressroom.service.db.base import utcnow
    from pressroom.service.db.models import Connection
    from pressroom.service.db.session import transaction

    with transaction(flow.sessions) as db:
        row = db.get(Connection, photo)
        assert row is not None
        row.access_expires_at = utcnow()
    assert "status-inactive" not in browser.client.get("/connections").text
    # Expired and revoked at the platform: the refresh fails, both turn inactive.
    oauth.expire_at_platform(flow, photo)
    assert {c["status"] for c in _unified(browser, key)} == {"inactive"}
    page = browser.client.get("/connections").text
    assert "its access token expired and could not be refreshed" in page
    reconnect = browser.client.post(
        f"/connections/{photo}/reconnect",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    consent = browser.client.get(reconnect.headers["location"])
    done = browser.client.post(
        "/sandbox/photo_sharing/oauth/authorize",
        data={**consent_fields(consent.text), "decision": "allow", "name": "acme.photos"},
    )
    assert done.status_code == 200
    assert {c["status"] for c in _unified(browser, key)} == {"active"}


def x_token_endpoint(
    *, challenge: str, code: str, redirect_uri: str
) -> Callable[[httpx.Request], httpx.Response]:
    """X's token endpoint for one authorization, with its checks: the code is exchanged
    once, for the callback it was issued to, and only with the PKCE verifier whose S256
    hash is the challenge the authorization URL carried (RFC 7636 4.6). Anything else is
    refused as X refuses it: 400 with an OAuth error body, e.g. "Value passed for the code
    verifier did not match the code challenge."
    (github.com/xdevplatform/twitter-api-typescript-sdk/issues/26)."""
    spent: list[str] = []

    def refused(description: str) -> httpx.Response:
        return httpx.Response(
            400, json={"error": "invalid_request", "error_description": description}
        )

    def answer(request: httpx.Request) -> httpx.Response:
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        verifier = form.get("code_verifier")
        if verifier is None:
            return refused("Missing required parameter [code_verifier].")
        if form.get("code") != code or spent or form.get("redirect_uri") != redirect_uri:
            return refused("Value passed for the authorization code was invalid.")
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != challenge:
            return refused("Value passed for the code verifier did not match the code challenge.")
        spent.append(code)
        return httpx.Response(
            200, json={"token_type": "bearer", "expires_in": 7200, "access_token": "a"}
        )

    return answer


def test_a_configured_network_is_connected_through_its_own_consent(settings: Settings) -> None:
    """With X's app configured, Connect microblog goes to X and X's callback connects."""
    import respx
    from fastapi.testclient import TestClient

    from pressroom.service.app import create_app
    from pressroom.settings import NetworkSettings

    configured = settings.model_copy(
        update={"networks": NetworkSettings(microblog_client_id="id", microblog_client_secret="s")}
    )
    with TestClient(create_app(configured), base_url="http://testserver") as client:
        browser = Browser(client)
        browser.sign_up()
        page = client.get("/connections").text
        assert re.search(r'data-driver="microblog">on X \(API v2\)<', page)
        assert re.search(r'data-driver="pin_board">sandbox', page)
        started = browser.form("/connections", "/connections/connect/microblog")
        consent = urlparse(started.headers["location"])  # type: ignore[attr-defined]
        assert (consent.netloc, consent.path) == ("x.com", "/i/oauth2/authorize")
        query = {k: v[0] for k, v in parse_qs(consent.query).items()}
        assert query["redirect_uri"] == "http://testserver/oauth/callback/microblog"
        with respx.mock(base_url="https://api.x.com", assert_all_called=True) as x:
            x.post("/2/oauth2/token").mock(
                side_effect=x_token_endpoint(
                    challenge=query["code_challenge"], code="c", redirect_uri=query["redirect_uri"]
                )
            )
            x.get("/2/users/me").respond(
                200, json={"data": {"id": "1", "name": "Acme", "username": "acme"}}
            )
            done = client.get(
                "/oauth/callback/microblog", params={"state": query["state"], "code": "c"}
            )
        assert done.status_code == 200, done.text
        assert "Connected microblog account @acme" in done.text


def test_x_refuses_a_code_verifier_that_does_not_match_the_challenge(settings: Settings) -> None:
    """The verifier sent to X's token endpoint must be the one whose challenge went out in
    the authorization URL: with another one stored, X refuses and nothing is connected."""
    import respx
    from fastapi.testclient import TestClient

    from pressroom.service.app import create_app
    from pressroom.service.oauth.vault import Vault
    from pressroom.settings import NetworkSettings

    configured = settings.model_copy(
        update={"networks": NetworkSettings(microblog_client_id="id", microblog_client_secret="s")}
    )
    app = create_app(configured)
    with TestClient(app, base_url="http://testserver") as client:
        browser = Browser(client)
        browser.sign_up()
        key = browser.api_key_shown()
        started = browser.form("/connections", "/connections/connect/microblog")
        consent = urlparse(started.headers["location"])  # type: ignore[attr-defined]
        query = {k: v[0] for k, v in parse_qs(consent.query).items()}
        with transaction(app.state.session_factory) as db:
            [state] = db.scalars(select(OAuthState))
            state.code_verifier_enc = Vault.from_settings(configured).encrypt("x" * 64)
        with respx.mock(base_url="https://api.x.com", assert_all_called=False) as x:
            token = x.post("/2/oauth2/token").mock(
                side_effect=x_token_endpoint(
                    challenge=query["code_challenge"], code="c", redirect_uri=query["redirect_uri"]
                )
            )
            me = x.get("/2/users/me").respond(
                200, json={"data": {"id": "1", "name": "Acme", "username": "acme"}}
            )
            refused = client.get(
                "/oauth/callback/microblog", params={"state": query["state"], "code": "c"}
            )
        assert refused.status_code == 400, refused.text
        assert "refused to issue tokens (invalid_request)" in refused.text
        assert (token.call_count, me.call_count) == (1, 0)
        assert _unified(browser, key) == []


def test_connecting_instagram_chains_threads_consent_for_the_twin(settings: Settings) -> None:
    """One Connect, two consent screens: Instagram's, then Threads'. The twin keeps the
    Threads token and posts with it; its state still follows the Instagram account."""
    import respx
    from fastapi.testclient import TestClient

    from pressroom.service.app import create_app
    from pressroom.service.db.models import Connection
    from pressroom.service.db.session import transaction
    from pressroom.service.oauth.vault import Vault
    from pressroom.settings import NetworkSettings

    configured = settings.model_copy(
        update={
            "networks": NetworkSettings(
                photo_sharing_client_id="ig-app",
                photo_sharing_client_secret="ig-secret",
                text_thread_client_id="th-app",
                text_thread_client_secret="th-secret",
            )
        }
    )
    app = create_app(configured)
    with TestClient(app, base_url="http://testserver") as client:
        browser = Browser(client)
        browser.sign_up()
        key = browser.api_key_shown()
        started = browser.form("/connections", "/connections/connect/photo_sharing")
        consent = urlparse(started.headers["location"])  # type: ignore[attr-defined]
        assert (consent.netloc, consent.path) == ("www.instagram.com", "/oauth/authorize")
        ig_state = parse_qs(consent.query)["state"][0]
        with respx.mock(assert_all_called=True) as meta:
            meta.post("https://api.instagram.com/oauth/access_token").respond(
                200, json={"access_token": "IGshort", "user_id": "1784"}
            )
            meta.post("https://graph.instagram.com/access_token").respond(
                200, json={"access_token": "IGlong", "expires_in": 5183944}
            )
            meta.get("https://graph.instagram.com/v23.0/me").respond(
                200, json={"user_id": "1784", "username": "acme.photos", "account_type": "BUSINESS"}
            )
            after_instagram = client.get(
                "/oauth/callback/photo_sharing",
                params={"state": ig_state, "code": "ig-code"},
                follow_redirects=False,
            )
        assert after_instagram.status_code == 303
        threads = urlparse(after_instagram.headers["location"])
        assert (threads.netloc, threads.path) == ("threads.net", "/oauth/authorize")
        query = {k: v[0] for k, v in parse_qs(threads.query).items()}
        assert query["redirect_uri"] == "http://testserver/oauth/callback/text_thread"
        with respx.mock(assert_all_called=True) as meta:
            meta.post("https://graph.threads.net/oauth/access_token").respond(
                200, json={"access_token": "THshort", "user_id": "2589"}
            )
            meta.post("https://graph.threads.net/access_token").respond(
                200, json={"access_token": "THlong", "expires_in": 5183944}
            )
            meta.post("https://graph.threads.net/v1.0/me").respond(
                200, json={"id": "2589", "username": "acme.photos"}
            )
            done = client.get(
                "/oauth/callback/text_thread", params={"state": query["state"], "code": "th-code"}
            )
        assert done.status_code == 200, done.text
        found = {(c["platform"], c["name"], c["status"]) for c in _unified(browser, key)}
        assert found == {
            ("photo_sharing", "acme.photos", "active"),
            ("text_thread", "acme.photos", "active"),
        }
        twin_id = _id(browser, key, "text_thread")
        vault = Vault.from_settings(configured)
        with transaction(app.state.session_factory, write=False) as db:
            twin = db.get(Connection, twin_id)
            assert twin is not None and twin.access_token_enc is not None
            assert vault.decrypt(twin.access_token_enc) == "THlong"
        with respx.mock(assert_all_called=True) as meta:
            threads = "https://graph.threads.net/v1.0"
            meta.post(f"{threads}/me").respond(200, json={"id": "2589"})
            meta.post(f"{threads}/2589/threads_publishing_limit").respond(
                200, json={"data": [{"quota_usage": 1, "config": {"quota_total": 250}}]}
            )
            container = meta.post(f"{threads}/2589/threads").respond(200, json={"id": "c1"})
            meta.post(f"{threads}/c1").respond(200, json={"status": "FINISHED", "id": "c1"})
            meta.post(f"{threads}/2589/threads_publish").respond(200, json={"id": "p1"})
            meta.post(f"{threads}/p1").respond(
                200, json={"permalink": "https://www.threads.net/@acme.photos/post/A"}
            )
            published = client.post(
                "/api/v2/text_thread/publish",
                headers={"X-API-Key": key},
                json={"connectionId": twin_id, "text": "hello"},
            )
        assert published.status_code == 200, published.text
        assert b"access_token=THlong" in container.calls.last.request.content
        with respx.mock(assert_all_called=True) as meta:
            meta.post("https://graph.threads.net/v1.0/2589/threads_publishing_limit").respond(
                200, json={"data": [{"quota_usage": 2, "config": {"quota_total": 250}}]}
            )
            meta.post("https://graph.threads.net/v1.0/2589/threads").respond(
                400,
                json={
                    "error": {
                        "message": "Session has expired",
                        "type": "OAuthException",
                        "code": 190,
                    }
                },
            )
            revoked = client.post(
                "/api/v2/text_thread/publish",
                headers={"X-API-Key": key},
                json={"connectionId": twin_id, "text": "again"},
            )
        assert revoked.status_code == 409, revoked.text
        # The twin follows its photo_sharing account: both inactive, one reconnect fixes both.
        states = {c["platform"]: c["status"] for c in _unified(browser, key)}
        assert states == {"photo_sharing": "inactive", "text_thread": "inactive"}


GRAPH = "https://graph.facebook.com/v23.0"


def _facebook_app(settings: Settings) -> Settings:
    from pressroom.settings import NetworkSettings

    return settings.model_copy(
        update={
            "networks": NetworkSettings(page_social_client_id="4242", page_social_client_secret="s")
        }
    )


def _page(page_id: str, name: str) -> dict[str, object]:
    return {
        "id": page_id,
        "name": name,
        "access_token": f"EAA{name[5:]}",
        "tasks": ["CREATE_CONTENT"],
    }


def _accounts(request: httpx.Request) -> httpx.Response:
    """/me/accounts: three granted Pages on two pages of results."""
    if b"after=" not in request.content:
        return httpx.Response(
            200,
            json={
                "data": [_page("101", "Acme Bakery"), _page("102", "Acme Cafe")],
                "paging": {"cursors": {"after": "QVFa"}, "next": f"{GRAPH}/me/accounts?after=QVFa"},
            },
        )
    return httpx.Response(200, json={"data": [_page("103", "Acme Deli")], "paging": {}})


@contextmanager
def _facebook() -> Iterator[respx.MockRouter]:
    """Facebook's answers, every call held to its contract."""
    with (
        respx.mock(assert_all_called=False) as router,
        held_to(router, facebook_contract.contract()),
    ):
        router.post(f"{GRAPH}/oauth/access_token").respond(
            200, json={"access_token": "EAAuser", "token_type": "bearer", "expires_in": 5183944}
        )
        router.post(f"{GRAPH}/me/accounts").mock(side_effect=_accounts)
        router.post(f"{GRAPH}/me/permissions").respond(
            200, json={"data": [{"permission": "pages_manage_posts", "status": "granted"}]}
        )
        yield router


def _to_the_choice(client: TestClient, browser: Browser) -> str:
    """Connect page_social through Facebook's consent; the choice page's address."""
    started = browser.form("/connections", "/connections/connect/page_social")
    consent = urlparse(started.headers["location"])  # type: ignore[attr-defined]
    assert (consent.netloc, consent.path) == ("www.facebook.com", "/v23.0/dialog/oauth")
    state = parse_qs(consent.query)["state"][0]
    back = client.get(
        "/oauth/callback/page_social",
        params={"state": state, "code": "AQD"},
        follow_redirects=False,
    )
    assert back.status_code == 303, back.text
    return str(back.headers["location"])


def test_facebook_pages_granted_are_chosen_after_consent_each_its_own_connection(
    settings: Settings,
) -> None:
    """Facebook's consent granted three Pages (two pages of /me/accounts results): the
    dashboard lists them all, the person picks two, and each is a connection of its own
    with its own Page token; the choice is used once. Every call is held to Facebook's
    contract."""
    from pressroom.service.db.models import Connection
    from pressroom.service.db.session import transaction
    from pressroom.service.oauth.vault import Vault

    configured = _facebook_app(settings)
    app = create_app(configured)
    with TestClient(app, base_url="http://testserver") as client:
        browser = Browser(client)
        browser.sign_up()
        key = browser.api_key_shown()
        with _facebook():
            choose = _to_the_choice(client, browser)
            assert choose.startswith("/connections/pages/")
            assert _unified(browser, key) == []  # nothing connected before the choice
            page_html = client.get(choose).text
            assert [m for m in re.findall(r'data-page="(\d+)"', page_html)] == ["101", "102", "103"]
            assert "Acme Deli" in page_html  # the Page on the second page of results
            none = client.post(choose, data={"csrf_token": csrf_of(page_html)})
            assert none.status_code == 400 and "Choose at least one Page" in none.text
            done = client.post(
                choose,
                data={"csrf_token": csrf_of(page_html), "page": ["101", "103"]},
                follow_redirects=False,
            )
            assert done.status_code == 303, done.text
            again = client.post(choose, data={"csrf_token": csrf_of(page_html), "page": ["102"]})
            assert again.status_code == 400 and "cannot be used" in again.text
        found = sorted((c["platform"], c["name"], c["status"]) for c in _unified(browser, key))
        assert found == [
            ("page_social", "Acme Bakery", "active"),
            ("page_social", "Acme Deli", "active"),
        ]
        vault = Vault.from_settings(configured)
        with transaction(app.state.session_factory, write=False) as db:
            stored = {
                c.name: vault.decrypt(c.access_token_enc or "")
                for c in db.query(Connection).filter(Connection.platform == "page_social")
            }
        assert stored == {"Acme Bakery": "EAABakery", "Acme Deli": "EAADeli"}


def test_a_choice_over_the_plans_cap_is_refused_and_can_be_made_again(settings: Settings) -> None:
    """Each chosen Page counts toward the plan's profiles per platform: over the cap the
    choice page says so (nothing connected) and the choice stays open."""
    from pressroom.plans import PLAN_LIMITS, Plan
    from pressroom.platforms import Platform
    from pressroom.service.accounts.repository import AccountRepository
    from pressroom.service.connections.service import NewConnection
    from pressroom.service.connections.service import connect as add_connection
    from pressroom.service.db.session import transaction

    app = create_app(_facebook_app(settings))
    with TestClient(app, base_url="http://testserver") as client:
        browser = Browser(client)
        email = browser.sign_up()
        key = browser.api_key_shown()
        room = PLAN_LIMITS[Plan.BUSINESS].profiles_per_platform
        with transaction(app.state.session_factory) as db:
            account = AccountRepository(db).get_by_email(email)
            assert account is not None
            for n in range(room - 1):
                add_connection(db, account, NewConnection(Platform.PAGE_SOCIAL, f"Other {n}"))
        with _facebook():
            choose = _to_the_choice(client, browser)
            html = client.get(choose).text
            over = client.post(choose, data={"csrf_token": csrf_of(html), "page": ["101", "102"]})
            assert over.status_code == 400 and "all are in use" in over.text
            assert 'href="#pages"' in over.text  # the error summary links to the choice
            done = client.post(
                choose, data={"csrf_token": csrf_of(html), "page": ["102"]}, follow_redirects=False
            )
            assert done.status_code == 303, done.text
        names = {c["name"] for c in _unified(browser, key) if c["platform"] == "page_social"}
        assert "Acme Cafe" in names and "Acme Bakery" not in names and len(names) == room
