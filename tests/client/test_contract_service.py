"""The client against the real app over HTTP: API key, connections and the rate limit.

No mocks here: ``service.client`` is starlette's TestClient (an httpx.Client) over the
real app and database, on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from pressroom.client import (
    AuthenticationError,
    Client,
    Connection,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
)
from pressroom.plans import Plan
from pressroom.service.app import create_app
from pressroom.settings import Settings
from tests.conftest import AccountHandle, Service

MakeClient = Callable[..., Client]


def count_requests(http: httpx.Client) -> list[str]:
    """The paths of requests sent from now on (an event hook on the shared client)."""
    seen: list[str] = []
    http.event_hooks["request"].append(lambda request: seen.append(request.url.path))
    return seen


def test_get_api_key_echoes_the_key_the_client_uses(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    key = client_for(account).get_api_key()
    assert key.success is True
    assert key.api_key.get_secret_value() == account.key
    assert key.created_at is not None and key.created_at.tzinfo is not None


def test_rotating_switches_the_client_to_the_new_key_and_the_old_one_is_refused(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    client = client_for(account)
    issued = client.rotate_api_key()
    new_key = issued.api_key.get_secret_value()
    assert new_key != account.key and new_key.startswith("prk_live_")

    assert client.get_api_key().api_key.get_secret_value() == new_key
    stale = client_for(account)  # still holds the old key
    with pytest.raises(AuthenticationError) as caught:
        stale.get_api_key()
    assert caught.value.status == 401
    assert caught.value.code == "invalid_api_key"
    assert caught.value.transient is False


def test_blogger_plan_is_a_permission_error(service: Service, client_for: MakeClient) -> None:
    client = client_for(service.account(plan=Plan.BLOGGER))
    with pytest.raises(PermissionDeniedError) as caught:
        client.list_connections()
    assert (caught.value.status, caught.value.code) == (403, "plan_without_api_access")
    assert not caught.value.transient


def test_unified_connections_are_models_with_string_ids(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    micro = account.connect("microblog", "@acme")
    video = account.connect("video_sharing", "Acme TV")
    connections = client_for(account).list_connections()
    assert {c.id: (c.platform, c.name) for c in connections} == {
        micro: ("microblog", "@acme"),
        video: ("video_sharing", "Acme TV"),
    }
    assert all(isinstance(c, Connection) and c.is_active for c in connections)


def test_connections_for_a_platform_leave_out_inactive_ones_unless_asked(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    active = account.connect("professional_network", "Acme Ltd")
    expired = account.connect("professional_network", "Old Ltd")
    account.connect("microblog", "@acme")
    account.move("expire_token", expired)
    client = client_for(account)
    assert [c.id for c in client.connections_for("professional_network")] == [active]
    every = client.connections_for("professional_network", active_only=False)
    assert {c.id for c in every} == {active, expired}


def test_the_connection_list_is_fetched_once_until_refreshed(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    first_id = account.connect("microblog", "@first")
    client = client_for(account)
    sent = count_requests(service.client)

    assert [c.id for c in client.list_connections()] == [first_id]
    second_id = account.connect("microblog", "@second")
    assert [c.id for c in client.list_connections()] == [first_id]  # cached
    client.connections_for("microblog")  # also served from the cache
    assert sent == ["/api/connections/unified"]

    refreshed = client.refresh_connections()
    assert {c.id for c in refreshed} == {first_id, second_id}
    assert len(sent) == 2


def test_a_zero_ttl_turns_the_cache_off(service: Service, client_for: MakeClient) -> None:
    account = service.account()
    account.connect("microblog", "@acme")
    client = client_for(account, connections_ttl=0)
    sent = count_requests(service.client)
    client.list_connections()
    client.list_connections()
    assert sent == ["/api/connections/unified"] * 2


def test_the_cached_list_cannot_be_changed_by_the_caller(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    account.connect("microblog", "@acme")
    client = client_for(account)
    client.list_connections().clear()
    assert len(client.list_connections()) == 1


def test_microblog_connections_have_the_spec_shape_and_are_cached(
    service: Service, client_for: MakeClient
) -> None:
    account = service.account()
    active = account.connect("microblog", "@acme", display_name="Acme Corp")
    expired = account.connect("microblog", "@old")
    account.move("expire_token", expired)
    client = client_for(account)
    sent = count_requests(service.client)

    listed = client.microblog_connections()
    assert listed.success is True
    assert [(c.connection_id, c.username, c.display_name) for c in listed.connections] == [
        (active, "@acme", "Acme Corp")
    ]
    assert listed.connections[0].connected_at is not None
    client.microblog_connections()
    assert sent == ["/api/v2/microblog/connections"]


@pytest.fixture
def limited_service(settings: Settings) -> Iterator[Service]:
    """The real app with a rate limit of two requests per minute per key."""
    app = create_app(settings.model_copy(update={"rate_limit_per_minute": 2}))
    with TestClient(app) as http:
        yield Service(http, app.state.session_factory, settings)
    app.state.engine.dispose()


def test_the_rate_limit_is_a_transient_error_with_retry_after(
    limited_service: Service,
) -> None:
    account: AccountHandle = limited_service.account()
    client = Client(api_key=account.key, http_client=limited_service.client)
    client.list_connections()
    client.refresh_connections()
    with pytest.raises(RateLimitError) as caught:
        client.refresh_connections()
    error = caught.value
    assert (error.status, error.code) == (429, "rate_limited")
    assert error.transient is True
    assert error.retry_after is not None and 0 < error.retry_after <= 60


def test_errors_carry_the_services_request_id_code_and_response(
    service: Service, client_for: MakeClient
) -> None:
    client = client_for(service.account())
    with pytest.raises(NotFoundError) as caught:
        client.file_status("file_" + "0" * 24)
    error = caught.value
    assert error.code == "file_not_found"
    assert error.response is not None and error.response.status_code == 404
    assert error.request_id
    assert error.request_id == error.response.headers["X-Request-ID"]
    assert error.request_id == error.response.json()["error"]["requestId"]


def test_the_client_uses_no_private_httpx_module() -> None:
    import pressroom.client

    package = Path(pressroom.client.__file__).parent
    for source in package.glob("*.py"):
        assert "httpx._" not in source.read_text(), source.name
