"""Access tokens are renewed in the background before they lapse, each network by its
own margin; a refusal turns the connection inactive, an outage changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import respx
from fastapi.testclient import TestClient

from pressroom.service.app import create_app
from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from pressroom.service.oauth.vault import Vault
from pressroom.settings import NetworkSettings, Settings
from tests.conftest import AccountHandle, Service

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def real(settings: Settings) -> Iterator[Service]:
    configured = settings.model_copy(
        update={
            "networks": NetworkSettings(
                microblog_client_id="x-id",
                microblog_client_secret="x-secret",
                photo_sharing_client_id="ig-id",
                photo_sharing_client_secret="ig-secret",
            )
        }
    )
    app = create_app(configured)
    with TestClient(app) as client:
        yield Service(client, app.state.session_factory, configured)
    app.state.engine.dispose()


def holding(
    service: Service,
    account: AccountHandle,
    platform: str,
    name: str,
    refresh: str,
    lapses_in: timedelta,
) -> str:
    connection_id = (
        account.connect(platform, name, account_type="business")
        if platform == "photo_sharing"
        else account.connect(platform, name)
    )
    vault = Vault.from_settings(service.settings)
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = vault.encrypt(f"access-of-{name}")
        connection.refresh_token_enc = vault.encrypt(refresh)
        connection.access_expires_at = datetime.now(UTC) + lapses_in
    return connection_id


def state(service: Service, connection_id: str) -> tuple[str, str, datetime | None]:
    vault = Vault.from_settings(service.settings)
    with transaction(service.sessions, write=False) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        return (
            connection.status,
            vault.decrypt(connection.access_token_enc or ""),
            connection.access_expires_at,
        )


def test_a_pass_renews_what_is_about_to_lapse_and_nothing_else(real: Service) -> None:
    account = real.account()
    due = holding(real, account, "microblog", "@due", "r-due", timedelta(minutes=5))
    later = holding(real, account, "microblog", "@later", "r-later", timedelta(hours=2))
    refused = holding(real, account, "microblog", "@revoked", "r-revoked", timedelta(minutes=5))
    down = holding(real, account, "microblog", "@down", "r-down", timedelta(minutes=5))
    instagram = holding(real, account, "photo_sharing", "acme.photos", "IG-long", timedelta(days=3))

    def x_token_endpoint(request: httpx.Request) -> httpx.Response:
        refresh = parse_qs(request.content.decode())["refresh_token"][0]
        if refresh == "r-revoked":
            return httpx.Response(400, json={"error": "invalid_request"})
        if refresh == "r-down":
            return httpx.Response(503)
        return httpx.Response(
            200,
            json={
                "access_token": f"new-{refresh}",
                "refresh_token": f"{refresh}+1",
                "expires_in": 7200,
            },
        )

    app: Any = real.client.app
    with respx.mock(assert_all_called=True) as networks:
        x = networks.post("https://api.x.com/2/oauth2/token").mock(side_effect=x_token_endpoint)
        ig = networks.get("https://graph.instagram.com/refresh_access_token").respond(
            200, json={"access_token": "IG-long-2", "token_type": "bearer", "expires_in": 5183944}
        )
        assert app.state.token_refresher.refresh_due() == 2
    asked = sorted(parse_qs(c.request.content.decode())["refresh_token"][0] for c in x.calls)
    assert asked == ["r-down", "r-due", "r-revoked"]  # not r-later: two hours left
    # 3 days left: Meta's margin; the token goes in Authorization (documented on this
    # host), never the URL
    assert ig.calls.last.request.headers["Authorization"] == "Bearer IG-long"
    assert ig.calls.last.request.url.query == b"grant_type=ig_refresh_token"

    status, token, expires = state(real, due)
    assert (status, token) == ("active", "new-r-due")
    assert expires is not None and expires > datetime.now(UTC) + timedelta(hours=1)
    assert state(real, later)[:2] == ("active", "access-of-@later")
    assert state(real, refused)[0] == "inactive"
    assert state(real, down)[:2] == ("active", "access-of-@down")  # tried again next pass
    assert state(real, instagram)[:2] == ("active", "IG-long-2")


def test_two_refreshes_at_once_spend_a_rotating_refresh_token_once(real: Service) -> None:
    """X rotates refresh tokens: a second refresh with the one just used is refused, which
    would turn a healthy connection inactive. Racing refreshes of one connection (the
    background pass and a publish, two replicas) make one call; the other takes its result."""
    import threading
    import time

    from pressroom.service.oauth import service as oauth

    account = real.account()
    connection_id = holding(real, account, "microblog", "@busy", "r1", timedelta(minutes=-1))
    spent: set[str] = set()

    def rotating_token_endpoint(request: httpx.Request) -> httpx.Response:
        refresh = parse_qs(request.content.decode())["refresh_token"][0]
        if refresh in spent:
            return httpx.Response(400, json={"error": "invalid_request"})
        spent.add(refresh)
        time.sleep(0.3)  # long enough for the other refresh to arrive meanwhile
        return httpx.Response(
            200, json={"access_token": "fresh", "refresh_token": "r2", "expires_in": 7200}
        )

    app: Any = real.client.app
    flow = oauth.flow_of(app)
    results: list[bool] = []
    with respx.mock(assert_all_called=True) as networks:
        token = networks.post("https://api.x.com/2/oauth2/token").mock(
            side_effect=rotating_token_endpoint
        )
        racers = [
            threading.Thread(target=lambda: results.append(oauth.refresh(flow, connection_id)))
            for _ in range(3)
        ]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join()
    assert token.call_count == 1
    assert results == [True, True, True]
    assert state(real, connection_id)[:2] == ("active", "fresh")
