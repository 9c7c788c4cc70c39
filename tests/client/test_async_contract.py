"""``AsyncClient`` against the real app over HTTP (httpx.ASGITransport, no mocks)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from pressroom.client import AsyncClient, AuthenticationError
from tests.conftest import Service

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def http(service: Service) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=service.client.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def test_async_client_reads_connections_and_rotates_its_key(
    service: Service, http: httpx.AsyncClient
) -> None:
    account = service.account()
    micro = account.connect("microblog", "@acme")
    async with AsyncClient(api_key=account.key, http_client=http) as client:
        assert [c.id for c in await client.list_connections()] == [micro]
        assert [c.id for c in await client.connections_for("microblog")] == [micro]
        listed = await client.microblog_connections()
        assert [c.connection_id for c in listed.connections] == [micro]

        issued = await client.rotate_api_key()
        new_key = issued.api_key.get_secret_value()
        assert (await client.get_api_key()).api_key.get_secret_value() == new_key

    stale = AsyncClient(api_key=account.key, http_client=http)
    with pytest.raises(AuthenticationError):
        await stale.get_api_key()


async def test_async_connection_cache_fetches_once(
    service: Service, http: httpx.AsyncClient
) -> None:
    account = service.account()
    account.connect("microblog", "@acme")
    sent: list[str] = []

    async def record(request: httpx.Request) -> None:
        sent.append(request.url.path)

    http.event_hooks["request"].append(record)
    client = AsyncClient(api_key=account.key, http_client=http)
    await client.list_connections()
    await client.list_connections()
    await client.list_connections(refresh=True)
    assert sent == ["/api/connections/unified"] * 2
