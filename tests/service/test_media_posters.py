"""A video's poster frame, made during processing: the still the dashboard shows."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from PIL import Image

from pressroom.service.db.models import File
from pressroom.service.db.session import transaction
from pressroom.service.storage.base import poster_key
from tests.support.backends import ON_BOTH_BACKENDS

if TYPE_CHECKING:
    from tests.support.library import Library, MediaFiles

pytest_plugins = ("tests.support.library",)
pytestmark = ON_BOTH_BACKENDS


def poster_of(library: Library, file_id: str) -> str | None:
    with transaction(library.service.sessions, write=False) as db:
        found = db.get(File, file_id)
        assert found is not None
        return found.poster_key


def test_a_processed_video_gets_a_poster_frame_and_an_image_none(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    video = library.upload(account, media_files.video2)
    image = library.upload(account, media_files.png)
    assert library.wait(account, video)["status"] == "ready"
    assert library.wait(account, image)["status"] == "ready"

    assert poster_of(library, video) == poster_key(video)
    jpeg = library.stored_bytes(poster_key(video))
    with Image.open(io.BytesIO(jpeg)) as frame:
        assert frame.format == "JPEG"
        assert frame.size == (48, 64)  # the video's own picture size, within 640
    assert poster_of(library, image) is None


def test_deleting_a_video_deletes_its_poster(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    video = library.upload(account, media_files.video2)
    library.wait(account, video)
    assert poster_key(video) in posters(library)
    response = library.client.delete(f"/api/upload/file/{video}", headers=account.headers)
    assert response.status_code == 200
    assert poster_key(video) not in posters(library)


def posters(library: Library) -> set[str]:
    return {obj.key for obj in library.media.storage.list("posters/")}
