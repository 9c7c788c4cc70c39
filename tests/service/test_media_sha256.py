"""Each file's SHA-256, and finding ready files by content (our extension)."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.support.library import Library, MediaFiles

from tests.support.backends import ON_BOTH_BACKENDS

pytest_plugins = ("tests.support.library",)
pytestmark = ON_BOTH_BACKENDS


def test_a_ready_file_carries_the_sha256_of_its_bytes(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    body = media_files.png.read_bytes()
    file_id = library.upload(account, body, filename="a.png", content_type="image/png")
    status = library.wait(account, file_id)
    assert status["status"] == "ready"
    assert status["sha256"] == hashlib.sha256(body).hexdigest()


def test_ready_files_are_found_by_their_bytes_and_nothing_else(
    library: Library, media_files: MediaFiles
) -> None:
    account, other = library.account(), library.account()
    body = media_files.png.read_bytes()
    digest = hashlib.sha256(body).hexdigest()
    first = library.upload(account, body, filename="a.png", content_type="image/png")
    second = library.upload(account, body, filename="b.png", content_type="image/png")
    library.upload(account, media_files.video2.read_bytes(), filename="c.mp4")
    theirs = library.upload(other, body, filename="a.png", content_type="image/png")
    pending = library.presign(account, "d.png")["fileId"]  # no bytes yet
    for file_id in (first, second):
        library.wait(account, file_id)
    library.wait(other, theirs)

    found = library.client.get(
        "/api/upload/files", params={"sha256": digest.upper()}, headers=account.headers
    ).json()
    assert [f["fileId"] for f in found["files"]] == [second, first]
    assert all(f["sha256"] == digest and f["status"] == "ready" for f in found["files"])
    assert pending not in {f["fileId"] for f in found["files"]}

    nothing = library.client.get(
        "/api/upload/files", params={"sha256": "0" * 64}, headers=account.headers
    ).json()
    assert nothing["files"] == []


def test_a_malformed_sha256_is_a_400(library: Library) -> None:
    account = library.account()
    response = library.client.get(
        "/api/upload/files", params={"sha256": "abc"}, headers=account.headers
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "sha256"
