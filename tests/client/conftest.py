"""Fixtures for the client: the real app over HTTP, and the hosted service's recordings."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from pressroom.client import Client
from tests.client.hosted import API_KEY, BASE_URL, Hosted, hosted_service
from tests.conftest import AccountHandle, Service


@pytest.fixture
def client_for(service: Service) -> Callable[[AccountHandle], Client]:
    """A real ``Client`` talking HTTP to the real app (TestClient is an httpx.Client)."""

    def make(account: AccountHandle, *, connections_ttl: float = 300.0) -> Client:
        return Client(
            api_key=account.key, http_client=service.client, connections_ttl=connections_ttl
        )

    return make


@pytest.fixture
def hosted() -> Hosted:
    return hosted_service()


@pytest.fixture
def hosted_client(hosted: Hosted) -> Iterator[Client]:
    http = httpx.Client(transport=hosted.transport())
    with Client(base_url=BASE_URL, api_key=API_KEY, http_client=http, poll_interval=0) as client:
        yield client
    http.close()
