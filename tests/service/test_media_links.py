"""Signed media links: what networks that fetch media by URL download (Pinterest pins).

On local storage the link is this service's ``/storage/files/{id}``; on S3 a presigned
GET of the object on the real S3 server. Either works without an API key, gives the
file's exact bytes, and stops working when tampered with or expired.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from pressroom.service.db.base import utcnow
from pressroom.service.db.models import File
from pressroom.service.db.session import transaction
from pressroom.service.media.handover import LINK_TTL, MediaHandover
from tests.support.files import make_file

if TYPE_CHECKING:
    from tests.support.library import Library, MediaFiles

pytest_plugins = ("tests.support.library",)

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def link_of(library: Library, file_id: str, **kwargs: object) -> str:
    with transaction(library.service.sessions, write=False) as db:
        file = db.get(File, file_id)
        assert file is not None
        key, content_type = file.storage_key, file.content_type
    return MediaHandover(library.settings).url(file_id, key, content_type, **kwargs)  # type: ignore[arg-type]


def fetch(library: Library, url: str, **headers: str) -> httpx.Response:
    if url.startswith(library.settings.public_base_url):
        return library.client.get(url, headers=headers)
    return httpx.get(url, headers=headers, timeout=30)


def test_a_link_serves_the_exact_bytes_without_a_key(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    file_id = library.upload(account, media_files.jpeg)
    assert library.wait(account, file_id)["status"] == "ready"
    url = link_of(library, file_id)
    whole = fetch(library, url)
    assert whole.status_code == 200, whole.text
    assert whole.content == media_files.jpeg.read_bytes()
    assert whole.headers["content-type"].startswith("image/jpeg")
    part = fetch(library, url, Range="bytes=0-9")
    assert part.status_code == 206 and part.content == media_files.jpeg.read_bytes()[:10]


def test_a_link_expires(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    file_id = library.upload(account, media_files.png)
    library.wait(account, file_id)
    url = link_of(library, file_id, now=utcnow() - LINK_TTL - timedelta(seconds=5))
    if library.backend == "s3":
        time.sleep(2)  # a presigned URL lives at least a second from its signing
    assert fetch(library, url).status_code == 403


@pytest.mark.parametrize("backend", ["local"], indirect=True)  # S3 checks its own
def test_a_tampered_local_link_is_refused_never_a_500(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    file_id = library.upload(account, media_files.png)
    other = library.upload(account, media_files.jpeg)
    library.wait(account, file_id)
    url = urlsplit(link_of(library, file_id))
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    base = f"{url.path}"
    cases = {
        "another file": (f"/storage/files/{other}", query),
        "later expiry": (base, {**query, "expires": str(int(query["expires"]) + 3600)}),
        "non-ASCII signature": (base, {**query, "signature": "é" * 64}),
        "no signature": (base, {"expires": query["expires"]}),
        "not a number": (base, {**query, "expires": "soon"}),
    }
    for name, (path, params) in cases.items():
        response = library.client.get(f"{path}?{urlencode(params)}")
        assert response.status_code in (400, 403), (name, response.status_code, response.text)
        code = response.json()["error"]["code"]
        assert code in ("invalid_media_link", "validation_error"), (name, code)


@pytest.mark.parametrize("backend", ["local"], indirect=True)  # S3 serves objects itself
def test_a_link_to_a_file_not_ready_is_a_409(library: Library) -> None:
    account = library.account()
    file_id = make_file(account, "image", status="processing")
    response = library.client.get(link_of(library, file_id))
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "file_not_ready"
