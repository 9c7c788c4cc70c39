"""``pressroom drivers`` says which driver serves each label and what would change it."""

from __future__ import annotations

import json
import re

import httpx
import pytest
import respx
from typer.testing import CliRunner

from pressroom.cli.main import app
from pressroom.platforms import Platform
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


def test_every_label_is_sandbox_without_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MICROBLOG", "PIN_BOARD"):
        monkeypatch.delenv(f"PRESSROOM_{name}_CLIENT_ID", raising=False)
    get_settings.cache_clear()
    done = runner.invoke(app, ["drivers"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    table = rows(done.output)
    assert set(table) == {p.value for p in Platform}  # the spec's eight and open_microblog
    assert "PRESSROOM_OPEN_MICROBLOG_SERVICE_URL" in table["open_microblog"]
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
