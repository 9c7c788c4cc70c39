"""Platform tokens: refreshed before publishing, inactive when the platform refuses,
encrypted with keys that can rotate, and the sandbox token endpoint's refusals."""

from __future__ import annotations

from datetime import timedelta

import pytest
from cryptography.fernet import Fernet
from fastapi.testclient import TestClient

from pressroom.platforms import Platform
from pressroom.service.app import create_app
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Connection, SandboxGrant
from pressroom.service.db.session import transaction
from pressroom.service.drivers import sandbox_oauth
from pressroom.service.oauth import service as oauth
from pressroom.service.oauth.vault import Vault, VaultError
from pressroom.settings import Settings
from tests.service.web.conftest import Browser, connect


def _ids(browser: Browser, key: str) -> dict[str, str]:
    unified = browser.client.get("/api/connections/unified", headers={"X-API-Key": key}).json()
    return {c["platform"]: c["id"] for c in unified}


def _lapse(flow: oauth.Flow, connection_id: str) -> str:
    """Make the access token lapse; returns the encrypted refresh token before."""
    with transaction(flow.sessions) as db:
        row = db.get(Connection, connection_id)
        assert row is not None and row.refresh_token_enc
        row.access_expires_at = utcnow() - timedelta(seconds=1)
        return row.refresh_token_enc


def test_publishing_refreshes_a_lapsed_token_first(browser: Browser) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    connect(browser, "photo_sharing", "acme.photos")
    ids = _ids(browser, key)
    flow = oauth.flow_of(browser.client.app)
    before = _lapse(flow, ids["photo_sharing"])
    published = browser.client.post(
        "/api/v2/text_thread/publish",
        headers={"X-API-Key": key},
        json={"connectionId": ids["text_thread"], "text": "still here"},
    )
    assert published.status_code == 200, published.text
    with transaction(flow.sessions, write=False) as db:
        row = db.get(Connection, ids["photo_sharing"])
        assert row is not None and row.refresh_token_enc != before  # rotated
        assert row.access_expires_at is not None and row.access_expires_at > utcnow()


def test_a_refused_refresh_makes_the_publish_a_409_and_the_twin_inactive(
    browser: Browser,
) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    connect(browser, "photo_sharing", "acme.photos")
    ids = _ids(browser, key)
    flow = oauth.flow_of(browser.client.app)
    _lapse(flow, ids["photo_sharing"])
    with transaction(flow.sessions) as db:  # the platform revoked access meanwhile
        for grant in db.query(SandboxGrant).filter(SandboxGrant.kind == "refresh"):
            grant.revoked_at = utcnow()
    refused = browser.client.post(
        "/api/v2/text_thread/publish",
        headers={"X-API-Key": key},
        json={"connectionId": ids["text_thread"], "text": "gone"},
    )
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "connection_inactive"
    unified = browser.client.get("/api/connections/unified", headers={"X-API-Key": key}).json()
    assert {c["status"] for c in unified} == {"inactive"}


def test_old_keys_still_decrypt_after_rotation(tmp_path: object) -> None:
    old = Vault(b"old secret")
    secret = old.encrypt("token-1")
    rotated = Vault(b"new secret", [b"old secret"])
    assert rotated.decrypt(secret) == "token-1"
    assert Vault(b"new secret").decrypt(rotated.rotate(secret)) == "token-1"
    with pytest.raises(VaultError):
        Vault(b"new secret").decrypt(secret)
    assert Fernet.generate_key()  # the format is Fernet's own


def test_vault_key_comes_from_settings_or_the_data_dir(settings: Settings) -> None:
    with_key = settings.model_copy(update={"secret_key": None, "old_secret_keys": ""})
    first = Vault.from_settings(with_key).encrypt("t")
    assert (settings.data_dir / "secret_key").exists()
    assert Vault.from_settings(with_key).decrypt(first) == "t"
    moved = settings.model_copy(update={"secret_key": "brand new", "old_secret_keys": ""})
    with pytest.raises(VaultError):
        Vault.from_settings(moved).decrypt(first)
    old = (settings.data_dir / "secret_key").read_text().strip()
    kept = moved.model_copy(update={"old_secret_keys": f"x, {old}"})
    assert Vault.from_settings(kept).decrypt(first) == "t"


def test_sandbox_token_endpoint_refusals(browser: Browser) -> None:
    flow = oauth.flow_of(browser.client.app)
    secret = b"test-secret"
    base = {
        "client_id": sandbox_oauth.CLIENT_ID,
        "client_secret": sandbox_oauth.client_secret(secret),
    }
    with transaction(flow.sessions) as db:
        code = sandbox_oauth.approve(
            db,
            platform=Platform.MICROBLOG,
            client_id=sandbox_oauth.CLIENT_ID,
            redirect_uri="http://testserver/oauth/callback/microblog",
            code_challenge=sandbox_oauth.s256("v" * 50),
            profile={"name": "@a"},
        )
    with transaction(flow.sessions) as db:
        wrong_client = sandbox_oauth.token_endpoint(
            db, Platform.MICROBLOG, {**base, "client_secret": "nope"}, secret
        )
        assert wrong_client.status == 401
        odd = sandbox_oauth.token_endpoint(
            db, Platform.MICROBLOG, {**base, "grant_type": "password"}, secret
        )
        assert odd.body["error"] == "unsupported_grant_type"
    form = {
        **base,
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": "http://testserver/oauth/callback/microblog",
        "code_verifier": "v" * 50,
    }
    with transaction(flow.sessions) as db:
        issued = sandbox_oauth.token_endpoint(db, Platform.MICROBLOG, form, secret)
    assert issued.status == 200 and issued.body["expires_in"] == 3600
    with transaction(flow.sessions) as db:
        again = sandbox_oauth.token_endpoint(db, Platform.MICROBLOG, form, secret)
    assert again.body["error"] == "invalid_grant"  # a code is single use
    refresh = {**base, "grant_type": "refresh_token", "refresh_token": issued.body["refresh_token"]}
    with transaction(flow.sessions) as db:
        assert sandbox_oauth.token_endpoint(db, Platform.MICROBLOG, refresh, secret).status == 200
    with transaction(flow.sessions) as db:
        reused = sandbox_oauth.token_endpoint(db, Platform.MICROBLOG, refresh, secret)
    assert reused.body["error"] == "invalid_grant"  # refresh tokens rotate
    over_http = browser.client.post("/sandbox/microblog/oauth/token", data=refresh)
    assert over_http.status_code == 400 and over_http.json()["error"] == "invalid_grant"


def test_consent_refuses_a_foreign_redirect(browser: Browser) -> None:
    page = browser.client.get(
        "/sandbox/microblog/oauth/authorize",
        params={
            "client_id": "pressroom",
            "response_type": "code",
            "redirect_uri": "https://evil.example/cb",
            "state": "s",
            "code_challenge": "c",
            "code_challenge_method": "S256",
        },
    )
    assert page.status_code == 400 and "redirect address is not the one registered" in page.text


def test_signup_closed_and_secure_cookie_over_https(settings: Settings) -> None:
    from fastapi.testclient import TestClient

    from pressroom.service.app import create_app
    from tests.service.web.conftest import csrf_of

    closed = settings.model_copy(
        update={"signup": "closed", "base_url": "https://pressroom.example"}
    )
    with TestClient(create_app(closed), base_url="https://pressroom.example") as client:
        assert client.get("/sign-up").status_code == 403
        assert "Create one" not in client.get("/sign-in").text
        html = client.get("/sign-in").text
        refused = client.post(
            "/sign-in",
            data={"csrf_token": csrf_of(html), "email": "a@b.cd", "password": "nope-nope"},
        )
        assert refused.status_code == 401
        cookie = client.get("/sign-in", headers={"Cookie": ""}).headers.get("set-cookie", "")
        assert "Secure" in cookie and "HttpOnly" in cookie


@pytest.mark.parametrize("lapsed", [False, True], ids=["token", "lapsed-token"])
def test_a_service_without_its_secret_key_refuses_clearly_and_sends_nothing(
    browser: Browser, settings: Settings, lapsed: bool
) -> None:
    """Restored without its secret key, the service cannot read the tokens it stored: a
    publish is a final ``secret_key_missing`` naming the setting, with nothing sent and the
    connection left active, and the same Idempotency-Key publishes once the key is back."""
    browser.sign_up()
    key = browser.api_key_shown()
    connect(browser, "photo_sharing", "acme.photos")
    ids = _ids(browser, key)
    if lapsed:
        _lapse(oauth.flow_of(browser.client.app), ids["photo_sharing"])
    body = {"connectionId": ids["text_thread"], "text": "after the restore"}
    headers = {"X-API-Key": key, "Idempotency-Key": f"restore-{lapsed}"}
    keyless = settings.model_copy(update={"secret_key": "not the key it ran with"})
    with TestClient(create_app(keyless), base_url="http://testserver") as restored:
        refused = restored.post("/api/v2/text_thread/publish", headers=headers, json=body)
        assert refused.status_code == 500, refused.text
        error = refused.json()["error"]
        assert error["code"] == "secret_key_missing"
        assert "PRESSROOM_SECRET_KEY" in error["message"]
        unified = restored.get("/api/connections/unified", headers={"X-API-Key": key}).json()
        assert {c["status"] for c in unified} == {"active"}
        restored.app.state.engine.dispose()
    published = browser.client.post("/api/v2/text_thread/publish", headers=headers, json=body)
    assert published.status_code == 200, published.text
    assert published.json()["success"] is True
