"""``pressroom drivers`` says which driver serves each label and what would change it."""

from __future__ import annotations

import json
import re

import httpx
import pytest
import respx
from typer.testing import CliRunner

from pressroom.cli.main import app
from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from pressroom.service.oauth.vault import Vault
from pressroom.settings import get_settings
from tests.conftest import Service

runner = CliRunner()


def rows(output: str) -> dict[str, str]:
    """Each label's table row, keyed by the label."""
    found = {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if len(cells) == 4 and cells[0] and cells[0] != "label":
            found[cells[0]] = " | ".join(cells[1:])
    return found


def introspected(router: respx.MockRouter, scope: str = "openid,profile,w_member_social") -> None:
    """LinkedIn's token introspection, answering an active token with ``scope``."""
    router.post("https://www.linkedin.com/oauth/v2/introspectToken").respond(
        200,
        json={
            "active": True,
            "client_id": "id",
            "authorized_at": 1764000000,
            "created_at": 1764000000,
            "status": "active",
            "expires_at": 1769000000,
            "scope": scope,
            "auth_type": "3L",
        },
    )


def test_every_label_is_sandbox_without_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MICROBLOG", "PIN_BOARD"):
        monkeypatch.delenv(f"PRESSROOM_{name}_CLIENT_ID", raising=False)
    get_settings.cache_clear()
    done = runner.invoke(app, ["drivers"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    table = rows(done.output)
    assert len(table) == 8
    assert all(row.startswith("sandbox") for row in table.values())
    assert "PRESSROOM_MICROBLOG_CLIENT_ID" in table["microblog"]
    assert "/oauth/callback/<label>" in done.output


def test_a_configured_label_names_its_network_and_the_others_stay_sandbox() -> None:
    env = {
        "COLUMNS": "200",
        "PRESSROOM_MICROBLOG_CLIENT_ID": "id",
        "PRESSROOM_MICROBLOG_CLIENT_SECRET": "secret",
        "PRESSROOM_PIN_BOARD_CLIENT_ID": "id",  # no secret: not configured
    }
    get_settings.cache_clear()
    done = runner.invoke(app, ["drivers"], env=env)
    get_settings.cache_clear()
    assert done.exit_code == 0, done.output
    table = rows(done.output)
    assert table["microblog"].startswith("X (API v2) | set")
    assert table["pin_board"].startswith("sandbox | -")
    assert "PRESSROOM_PIN_BOARD_CLIENT_ID and _CLIENT_SECRET" in table["pin_board"]
    assert (
        table["text_thread"]
        == "sandbox | - | set PRESSROOM_TEXT_THREAD_CLIENT_ID and _CLIENT_SECRET to publish to Threads (Threads API)"
    )


def test_check_reads_each_connections_profile_with_its_stored_token(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``drivers check`` proves credentials, consent and vault end to end, posting nothing
    (X played by respx; run by hand against the real network)."""
    account = service.account()
    vault = Vault.from_settings(service.settings)
    tokens = {"@good": "token-good", "@gone": "token-gone"}
    ids = {}
    for name, token in tokens.items():
        ids[name] = account.connect("microblog", name)
        with transaction(service.sessions) as db:
            connection = db.get(Connection, ids[name])
            assert connection is not None
            connection.access_token_enc = vault.encrypt(token)
    env = {
        "COLUMNS": "200",
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_MICROBLOG_CLIENT_ID": "id",
        "PRESSROOM_MICROBLOG_CLIENT_SECRET": "secret",
    }

    def users_me(request: httpx.Request) -> httpx.Response:
        if request.headers["Authorization"] == "Bearer token-gone":
            return httpx.Response(401, json={"title": "Unauthorized", "status": 401})
        return httpx.Response(200, json={"data": {"id": "1", "name": "Good", "username": "good"}})

    get_settings.cache_clear()
    with respx.mock(assert_all_called=True) as x:
        x.get("https://api.x.com/2/users/me").mock(side_effect=users_me)
        done = runner.invoke(app, ["drivers", "check", "--platform", "microblog"], env=env)
    get_settings.cache_clear()
    assert done.exit_code == 1, done.output
    assert f"{ids['@good']}  @good: ok, X (API v2) says '@good'" in done.output
    assert f"{ids['@gone']}  @gone: refused by X (API v2)" in done.output
    assert "token-" not in done.output


def test_check_refuses_a_label_on_the_sandbox() -> None:
    get_settings.cache_clear()
    done = runner.invoke(
        app, ["drivers", "check", "--platform", "pin_board"], env={"COLUMNS": "200"}
    )
    assert done.exit_code == 1
    assert "pin_board is on the sandbox" in done.output


def test_check_makes_a_draft_where_the_network_has_drafts(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LinkedIn drafts: ``--draft`` posts in ``DRAFT``, published to nobody."""
    account = service.account()
    connection_id = account.connect("professional_network", "Ada Lovelace")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("AQV")
    env = {
        "COLUMNS": "200",
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_ID": "id",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_SECRET": "secret",
    }
    get_settings.cache_clear()
    with respx.mock(assert_all_called=True) as linkedin:
        introspected(linkedin)
        linkedin.get("https://api.linkedin.com/v2/userinfo").respond(
            200, json={"sub": "782bbtaQ", "name": "Ada Lovelace"}
        )
        drafted = linkedin.post("https://api.linkedin.com/rest/posts").respond(
            201, headers={"x-restli-id": "urn:li:share:1"}
        )
        done = runner.invoke(
            app,
            [
                "drivers",
                "check",
                "--platform",
                "professional_network",
                "--draft",
                "pressroom check",
            ],
            env=env,
        )
    get_settings.cache_clear()
    assert done.exit_code == 0, done.output
    assert "draft urn:li:share:1 made on LinkedIn (Posts API)" in done.output
    body = json.loads(drafted.calls.last.request.content)
    assert (body["lifecycleState"], body["commentary"]) == ("DRAFT", "pressroom check")
    shipped = drafted.calls.last.request.headers["LinkedIn-Version"]
    assert re.search(rf"^LinkedIn-Version {shipped} is \d+ months old; served$", done.output, re.M)


def test_a_linkedin_version_past_its_year_is_reported_and_fails_the_check(
    service: Service,
) -> None:
    """LinkedIn serves a version a year: ``drivers`` warns, ``drivers check`` says so and
    fails, and nothing is sent with it."""
    account = service.account()
    connection_id = account.connect("professional_network", "Ada Lovelace")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("AQV")
    env = {
        "COLUMNS": "200",
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_ID": "id",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_SECRET": "secret",
        "PRESSROOM_PROFESSIONAL_NETWORK_API_VERSION": "202501",
    }
    get_settings.cache_clear()
    listed = runner.invoke(app, ["drivers"], env=env)
    with respx.mock(assert_all_called=True) as linkedin:
        introspected(linkedin)
        linkedin.get("https://api.linkedin.com/v2/userinfo").respond(
            200, json={"sub": "782bbtaQ", "name": "Ada Lovelace"}
        )
        done = runner.invoke(
            app,
            ["drivers", "check", "--platform", "professional_network", "--draft", "x"],
            env=env,
        )
    get_settings.cache_clear()
    assert listed.exit_code == 0, listed.output
    assert "warning: professional_network: LinkedIn-Version 202501 is" in listed.output
    assert done.exit_code == 1, done.output
    assert "warning: LinkedIn-Version 202501 is" in done.output
    assert "PRESSROOM_PROFESSIONAL_NETWORK_API_VERSION" in done.output
    assert "refused the draft" in done.output  # refused here: no POST reached LinkedIn


def linkedin_env(service: Service) -> dict[str, str]:
    account = service.account()
    connection_id = account.connect("professional_network", "Ada Lovelace")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("AQV")
    return {
        "COLUMNS": "200",
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_ID": "id",
        "PRESSROOM_PROFESSIONAL_NETWORK_CLIENT_SECRET": "secret",
    }


def test_check_says_what_the_network_granted_and_what_it_means_for_publishing(
    service: Service,
) -> None:
    """A LinkedIn grant without ``w_member_social``: the table says the scope is missing
    and that the connection cannot publish; the JSON carries the same report; nothing
    is posted (no route but the reads is mocked) and the exit code is 1."""
    env = linkedin_env(service)
    get_settings.cache_clear()
    with respx.mock(assert_all_called=True, assert_all_mocked=True) as linkedin:
        introspected(linkedin, scope="openid,profile")
        linkedin.get("https://api.linkedin.com/v2/userinfo").respond(
            200, json={"sub": "782bbtaQ", "name": "Ada Lovelace"}
        )
        table = runner.invoke(
            app, ["drivers", "check", "--platform", "professional_network"], env=env
        )
        as_json = runner.invoke(
            app, ["drivers", "check", "--platform", "professional_network", "--json"], env=env
        )
        called = {(c.request.method, c.request.url.path) for c in linkedin.calls}
    get_settings.cache_clear()
    assert called == {("POST", "/oauth/v2/introspectToken"), ("GET", "/v2/userinfo")}
    assert table.exit_code == 1, table.output
    assert "ok, LinkedIn (Posts API) says 'Ada Lovelace'" in table.output
    assert re.search(r"scopes .*publishing needs w_member_social, not granted", table.output)
    assert "scopes openid=granted profile=granted w_member_social=missing" in table.output
    assert "cannot publish until each blocked line is dealt with" in table.output
    assert "AQV" not in table.output + as_json.output

    assert as_json.exit_code == 1, as_json.output
    [report] = json.loads(as_json.output)
    inspection = report["inspection"]
    assert inspection["scopes"] == {
        "openid": "granted",
        "profile": "granted",
        "w_member_social": "missing",
    }
    assert inspection["missingScopes"] == ["w_member_social"]
    assert (inspection["accountType"], inspection["canPublish"]) == ("member", False)
    assert inspection["scopesSource"] == "LinkedIn's token introspection"
    topics = {f["topic"]: f["standing"] for f in inspection["findings"]}
    assert topics == {
        "scopes": "blocked",
        "account type": "ok",
        "api version": "ok",
        "quota": "unknown",
    }


def test_check_reports_instagrams_quota_left_as_json(service: Service) -> None:
    """Instagram's ``content_publishing_limit`` is the quota line; nothing is posted."""
    account = service.account()
    connection_id = account.connect("photo_sharing", "acme.bakery", account_type="business")
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt("IGAA")
    env = {
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_SECRET_KEY": service.settings.secret_key or "",
        "PRESSROOM_PHOTO_SHARING_CLIENT_ID": "id",
        "PRESSROOM_PHOTO_SHARING_CLIENT_SECRET": "secret",
    }
    graph = "https://graph.instagram.com/v23.0"
    get_settings.cache_clear()
    with respx.mock(assert_all_called=True, assert_all_mocked=True) as instagram:
        instagram.get(f"{graph}/me").respond(
            200, json={"user_id": "1784", "username": "acme.bakery", "account_type": "BUSINESS"}
        )
        instagram.get(f"{graph}/1784/content_publishing_limit").respond(
            200,
            json={
                "data": [
                    {"quota_usage": 40, "config": {"quota_total": 100, "quota_duration": 86400}}
                ]
            },
        )
        done = runner.invoke(
            app, ["drivers", "check", "--platform", "photo_sharing", "--json"], env=env
        )
    get_settings.cache_clear()
    assert done.exit_code == 0, done.output  # nothing blocks publishing
    [report] = json.loads(done.output)
    inspection = report["inspection"]
    assert inspection["quota"] == {"used": 40, "total": 100, "windowSeconds": 86400, "left": 60}
    assert inspection["accountType"] == "business"
    assert inspection["canPublish"] is None  # Meta does not say whether the app is reviewed
    assert {f["topic"] for f in inspection["findings"]} == {
        "scopes",
        "account type",
        "audit",
        "quota",
    }
