"""The media library under test, on either storage backend, with upload helpers.

``library`` runs each test on ``local`` and on ``s3`` (SeaweedFS), crossed with the
database parameter of ``tests/conftest.py``; ``library_factory(**store)`` builds one
with other storage settings (a small size limit, a short URL lifetime). Import the
fixtures into a test module to use them.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from pressroom.plans import Plan
from pressroom.probe import content_type_for
from pressroom.service.app import create_app
from pressroom.service.media.library import MediaLibrary
from pressroom.settings import Settings, StorageSettings
from tests.conftest import AccountHandle, Service
from tests.support.media import make_fake_video, make_image, make_video
from tests.support.seaweed import BUCKET, SeaweedS3, seaweed
from tests.support.uploads import SETTLED

__all__ = [
    "Library",
    "MediaFiles",
    "backend",
    "library",
    "library_factory",
    "media_files",
    "seaweed",
]


@dataclass(frozen=True)
class MediaFiles:
    video4: Path
    video2: Path
    long_video: Path
    png: Path
    jpeg: Path
    fake_mp4: Path
    vertical: Path
    """A video every network takes as it is (H.264, 24 fps, 360x640): what tests of a
    driver send, so that nothing is converted for the network first."""


@pytest.fixture(scope="session")
def media_files(tmp_path_factory: pytest.TempPathFactory) -> MediaFiles:
    """Real media, made once per session: H.264 MP4s, a PNG, a JPEG, and text named .mp4."""
    directory = tmp_path_factory.mktemp("media")
    return MediaFiles(
        video4=make_video(directory / "clip4.mp4", 4),
        video2=make_video(directory / "clip2.mp4", 2, width=48, height=64),
        long_video=make_video(directory / "long.mp4", 12 * 60, width=16, height=16, fps=1),
        png=make_image(directory / "image.png", size=(32, 24)),
        jpeg=make_image(directory / "photo.jpg", size=(40, 30), fmt="JPEG"),
        fake_mp4=make_fake_video(directory / "fake.mp4"),
        vertical=make_video(directory / "vertical.mp4", 4, width=360, height=640, fps=24),
    )


@dataclass
class Library:
    """A running app on one storage backend."""

    service: Service
    backend: str
    seaweed: SeaweedS3 | None
    stack: ExitStack

    def close(self) -> None:
        """Stop the app as a shutdown would (the test's next app may take over its data)."""
        self.stack.close()

    @property
    def client(self) -> TestClient:
        return self.service.client

    @property
    def settings(self) -> Settings:
        return self.service.settings

    @property
    def media(self) -> MediaLibrary:
        app: Any = self.client.app
        media: MediaLibrary = app.state.media
        return media

    def account(self, plan: Plan = Plan.BUSINESS) -> AccountHandle:
        return self.service.account(plan)

    def presign(
        self,
        account: AccountHandle,
        filename: str,
        content_type: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        body = {
            "filename": filename,
            "contentType": content_type or content_type_for(filename),
            **extra,
        }
        response = self.client.post("/api/upload/presigned-url", json=body, headers=account.headers)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result

    def put(
        self, url: str, body: bytes, content_type: str | None, **headers: str
    ) -> httpx.Response:
        """PUT to an upload URL as a client would: no API key, only the signed Content-Type."""
        sent = {**headers}
        if content_type is not None:
            sent["Content-Type"] = content_type
        if url.startswith(self.settings.public_base_url):
            return self.client.put(url, content=body, headers=sent)
        return httpx.put(url, content=body, headers=sent, timeout=30)

    def upload(
        self,
        account: AccountHandle,
        source: Path | bytes,
        *,
        filename: str | None = None,
        content_type: str | None = None,
        folder_id: str | None = None,
    ) -> str:
        """Presign and PUT; returns the file id."""
        name = filename or (source.name if isinstance(source, Path) else "upload.bin")
        content_type = content_type or content_type_for(name)
        extra = {"folderId": folder_id} if folder_id else {}
        issued = self.presign(account, name, content_type, **extra)
        body = source.read_bytes() if isinstance(source, Path) else source
        put = self.put(issued["uploadUrl"], body, content_type)
        assert put.status_code == 200, put.text
        file_id: str = issued["fileId"]
        return file_id

    def status(self, account: AccountHandle, file_id: str) -> dict[str, Any]:
        response = self.client.get(f"/api/upload/status/{file_id}", headers=account.headers)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result

    def wait(
        self, account: AccountHandle, file_id: str, until: tuple[str, ...] = SETTLED
    ) -> dict[str, Any]:
        """Poll the status call, as clients do, until the file reaches one of ``until``."""
        deadline = time.monotonic() + 30
        while True:
            status = self.status(account, file_id)
            if status["status"] in until or time.monotonic() > deadline:
                return status
            time.sleep(0.05)

    def stored(self) -> set[str]:
        """Every key the storage holds, verified or incoming."""
        storage = self.media.storage
        return {obj.key for prefix in ("files/", "incoming/") for obj in storage.list(prefix)}

    def stored_bytes(self, key: str) -> bytes:
        with self.media.storage.local_copy(key) as path:
            return path.read_bytes()


@pytest.fixture(params=["local", "s3"])
def backend(request: pytest.FixtureRequest) -> str:
    param: str = request.param
    return param


@pytest.fixture
def library_factory(
    request: pytest.FixtureRequest, backend: str, settings: Settings
) -> Iterator[Callable[..., Library]]:
    """Build libraries with storage settings of the test's choosing."""
    stack = ExitStack()
    prefix = f"t-{secrets.token_hex(6)}/"  # one per test: its apps share the objects

    def build(**overrides: Any) -> Library:
        """A library whose settings differ by ``overrides`` (storage or top-level fields)."""
        store = dict(overrides)
        own = stack.enter_context(ExitStack())
        server: SeaweedS3 | None = None
        if backend == "s3":
            server = request.getfixturevalue("seaweed")
            store = {
                "storage": "s3",
                "s3_bucket": BUCKET,
                "s3_endpoint_url": server.endpoint_url,
                "s3_access_key_id": server.access_key,
                "s3_secret_access_key": server.secret_key,
                "s3_key_prefix": prefix,
                **store,
            }
        storage_fields = {k: store.pop(k) for k in list(store) if k in StorageSettings.model_fields}
        tuned = settings.model_copy(update={"store": StorageSettings(**storage_fields), **store})
        app = create_app(tuned)
        own.callback(app.state.engine.dispose)  # after the client stopped the app
        client = own.enter_context(TestClient(app))
        return Library(Service(client, app.state.session_factory, tuned), backend, server, own)

    with stack:
        yield build


@pytest.fixture
def library(library_factory: Callable[..., Library]) -> Library:
    return library_factory()
