"""Fixtures for the client: the real app over HTTP, real media, and the hosted service's recordings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from pressroom.client import Client
from tests.client.hosted import API_KEY, BASE_URL, Hosted, hosted_service
from tests.conftest import AccountHandle, Service
from tests.support.media import make_fake_video, make_image, make_video

POLL = 0.02
"""Seconds between status polls in contract tests: processing here takes a fraction of one."""


@pytest.fixture
def client_for(service: Service) -> Callable[..., Client]:
    """A real ``Client`` talking HTTP to the real app (TestClient is an httpx.Client)."""

    def make(
        account: AccountHandle, *, connections_ttl: float = 300.0, max_retries: int = 0
    ) -> Client:
        return Client(
            api_key=account.key,
            http_client=service.client,
            connections_ttl=connections_ttl,
            poll_interval=POLL,
            ready_timeout=30,
            max_retries=max_retries,
        )

    return make


@dataclass(frozen=True)
class Media:
    """Real files to upload: an H.264 video of 4 s, a PNG, a JPEG, and text named .mp4."""

    video: Path
    png: Path
    jpeg: Path
    fake_mp4: Path


@pytest.fixture(scope="session")
def media(tmp_path_factory: pytest.TempPathFactory) -> Media:
    directory = tmp_path_factory.mktemp("client-media")
    return Media(
        video=make_video(directory / "launch.mp4", 4),
        png=make_image(directory / "cover.png", size=(64, 36)),
        jpeg=make_image(directory / "photo.jpg", size=(40, 30), fmt="JPEG"),
        fake_mp4=make_fake_video(directory / "fake.mp4"),
    )


@pytest.fixture
def hosted() -> Hosted:
    return hosted_service()


@pytest.fixture
def hosted_client(hosted: Hosted) -> Iterator[Client]:
    http = httpx.Client(transport=hosted.transport())
    with Client(base_url=BASE_URL, api_key=API_KEY, http_client=http, poll_interval=0) as client:
        yield client
    http.close()
