"""open_microblog connected by AT Protocol OAuth, against the real local PDS and its own
authorization server (``@atproto/oauth-provider``): the dashboard's Connect from the
handle, PAR, PKCE, DPoP-bound tokens and the server's nonces, the person's sign-in and
consent on the PDS (tests/support/atproto_oauth.py), the callback, then publishing,
deleting and refreshing with DPoP-signed calls.

pressroom runs at a loopback address here, so it is the spec's localhost client
(https://atproto.com/specs/oauth#localhost-client-development), which the reference
server accepts without fetching a metadata document."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pressroom.service.app import create_app
from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from pressroom.service.drivers import atproto
from pressroom.service.drivers.base import Account as DriverAccount
from pressroom.service.oauth import service as oauth
from pressroom.settings import NetworkSettings, Settings, get_settings
from tests.drivers.test_open_microblog_bluesky import Bluesky
from tests.service.web.conftest import csrf_of
from tests.support.atproto import Account, LocalNetwork
from tests.support.atproto_oauth import allow
from tests.support.media import make_image
from tests.support.uploads import upload_file

LOOPBACK = "http://127.0.0.1:8000"
CALLBACK = "/oauth/callback/open_microblog"
pytestmark = pytest.mark.timeout(900)


@pytest.fixture
def bluesky(settings: Settings, atproto_network: LocalNetwork) -> Iterator[Bluesky]:
    networks = NetworkSettings(
        open_microblog_service_url=atproto_network.pds_url,
        open_microblog_plc_url=atproto_network.plc_url,
        network_timeout_seconds=20,
    )
    configured = settings.model_copy(update={"networks": networks, "base_url": LOOPBACK})
    get_settings.cache_clear()
    app = create_app(configured)
    with TestClient(app, base_url=LOOPBACK) as client:
        yield Bluesky(client, atproto_network)
    app.state.engine.dispose()


def _start(bluesky: Bluesky, handle: str) -> str:
    """The Connect form with the handle alone: where pressroom sends the browser."""
    page = bluesky.client.get("/connections").text
    started = bluesky.client.post(
        "/connections/connect/open_microblog",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    form = bluesky.client.get(started.headers["location"])
    sent = bluesky.client.post(
        "/connections/open_microblog/sign-in",
        data={"csrf_token": csrf_of(form.text), "handle": handle, "password": ""},
        follow_redirects=False,
    )
    assert sent.status_code == 303, sent.text
    return str(sent.headers["location"])


def _connect(bluesky: Bluesky, account: Account, typed: str | None = None) -> str:
    authorize = _start(bluesky, typed or account.handle)
    assert authorize.startswith(f"{bluesky.network.pds_url}/oauth/authorize?")
    back = allow(authorize, account.handle, account.password)
    assert back["iss"] == bluesky.network.pds_url
    done = bluesky.client.get(CALLBACK, params=back, follow_redirects=False)
    assert done.status_code == 303, done.text
    assert done.headers["location"] == "/connections"
    listed = bluesky.client.get("/api/connections/unified", headers=bluesky.headers).json()
    return str(next(c["id"] for c in listed if c["platform"] == "open_microblog"))


def _session(bluesky: Bluesky, connection_id: str) -> tuple[atproto.Session, atproto.Session]:
    flow = oauth.flow_of(bluesky.client.app)
    with transaction(flow.sessions, write=False) as db:
        row = db.get(Connection, connection_id)
        assert row is not None
        access = flow.vault.decrypt(row.access_token_enc or "")
        refresh = flow.vault.decrypt(row.refresh_token_enc or "")
    return atproto.Session.loads(access), atproto.Session.loads(refresh)


def test_oauth_connects_from_the_handle_then_publishes_text_and_an_image_and_refreshes(
    bluesky: Bluesky, tmp_path: Path
) -> None:
    author = bluesky.network.create_account("oauth")
    # Typed as a person might: the connection takes the handle the PDS gives.
    connection_id = _connect(bluesky, author, typed=f"@{author.handle.upper()}")
    listed = bluesky.client.get("/api/connections/unified", headers=bluesky.headers).json()
    assert [c["name"] for c in listed if c["id"] == connection_id] == [f"@{author.handle}"]
    access, held = _session(bluesky, connection_id)
    # The grant is DPoP-bound: its key and its token endpoint are kept with it, and no
    # app password was made or used.
    assert access.by_oauth and access.did == author.did
    assert access.token_endpoint == f"{bluesky.network.pds_url}/oauth/token"
    assert access.client_id is not None and access.client_id.startswith("http://localhost?")

    # `pressroom drivers check` reads the session with a DPoP-signed getSession.
    inspection = bluesky.driver.inspect(DriverAccount(connection_id, f"@{author.handle}"))
    assert inspection.account == f"@{author.handle}" and inspection.can_publish is not False
    assert "OAuth" in inspection.scopes_source

    text = bluesky.publish({"connectionId": connection_id, "text": "Signed with DPoP"})
    assert text.status_code == 200, text.text
    image = make_image(tmp_path / "blue.png", size=(40, 30))
    uploaded = upload_file(bluesky.client, bluesky.headers, image)
    with_image = bluesky.publish(
        {
            "connectionId": connection_id,
            "text": "A blue one",
            "fileId": uploaded["fileId"],
            "altText": "A blue rectangle.",
        }
    )
    assert with_image.status_code == 200, with_image.text
    records = {r["uri"]: r["value"] for r in bluesky.network.records(author.did)}
    assert records[text.json()["postId"]]["text"] == "Signed with DPoP"
    [item] = records[with_image.json()["postId"]]["embed"]["images"]
    assert item["alt"] == "A blue rectangle."

    # Refreshed at the token endpoint with the grant's key: a new access token and the
    # next refresh token (each is used once), still bound to the same key.
    flow = oauth.flow_of(bluesky.client.app)
    assert oauth.refresh(flow, connection_id) is True
    renewed, renewed_held = _session(bluesky, connection_id)
    assert renewed.token != access.token and renewed_held.token != held.token
    assert renewed.dpop_key == access.dpop_key
    after = bluesky.publish({"connectionId": connection_id, "text": "after a refresh"})
    assert after.status_code == 200, after.text
    bluesky.driver.delete(connection_id, after.json()["postId"])
    left = [r["value"]["text"] for r in bluesky.network.records(author.did)]
    assert sorted(left) == ["A blue one", "Signed with DPoP"]
    # The spent refresh token is refused: the rotation really happened at the server.
    with pytest.raises(Exception, match="invalid_grant"):
        bluesky.driver.refresh(held.dumps())


def test_a_callback_naming_another_issuer_connects_nothing(bluesky: Bluesky) -> None:
    author = bluesky.network.create_account("mixup")
    back = allow(_start(bluesky, author.handle), author.handle, author.password)
    forged = {**back, "iss": "https://elsewhere.example"}
    refused = bluesky.client.get(CALLBACK, params=forged, follow_redirects=False)
    assert refused.status_code == 400 and "issuer_mismatch" in refused.text
    listed: list[dict[str, Any]] = bluesky.client.get(
        "/api/connections/unified", headers=bluesky.headers
    ).json()
    assert [c for c in listed if c["platform"] == "open_microblog"] == []


def test_a_connection_whose_grant_ended_is_reconnected_from_the_handle_and_publishes(
    bluesky: Bluesky,
) -> None:
    """A public client's grant ends (two weeks on the reference server): Reconnect goes
    through the same handle form, the same connection comes back with a new grant."""
    from pressroom.service.connections import service as connections
    from pressroom.service.events.catalog import InactiveReason

    author = bluesky.network.create_account("again")
    connection_id = _connect(bluesky, author)
    before, _ = _session(bluesky, connection_id)
    flow = oauth.flow_of(bluesky.client.app)
    with transaction(flow.sessions) as db:
        connections.expire_token(db, connection_id, InactiveReason.REFRESH_FAILED)
    page = bluesky.client.get("/connections").text
    asked = bluesky.client.post(
        f"/connections/{connection_id}/reconnect",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    form = bluesky.client.get(asked.headers["location"])
    assert f'name="reconnect_id" value="{connection_id}"' in form.text
    sent = bluesky.client.post(
        "/connections/open_microblog/sign-in",
        data={
            "csrf_token": csrf_of(form.text),
            "handle": author.handle,
            "reconnect_id": connection_id,
        },
        follow_redirects=False,
    )
    back = allow(sent.headers["location"], author.handle, author.password)
    done = bluesky.client.get(CALLBACK, params=back, follow_redirects=False)
    assert done.status_code == 303, done.text
    after, _ = _session(bluesky, connection_id)
    assert after.token != before.token and after.dpop_key != before.dpop_key
    posted = bluesky.publish({"connectionId": connection_id, "text": "back again"})
    assert posted.status_code == 200, posted.text
    listed = bluesky.client.get("/api/connections/unified", headers=bluesky.headers).json()
    assert [c["id"] for c in listed if c["platform"] == "open_microblog"] == [connection_id]
