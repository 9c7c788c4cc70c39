"""The presigned upload's rules, on local storage and on S3 (SeaweedFS).

What may be uploaded is refused at presign time with a 400 naming the field. The PUT
carries no API key; a bad signature, an expired URL, another Content-Type, a second PUT
and an oversized body are refused and leave nothing stored. On s3 the store itself
refuses the first three; the last two it cannot, so the service applies them when it
notices the upload (DESIGN, "Resolved details").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

from pressroom.service.db.models import File
from pressroom.service.db.session import transaction

if TYPE_CHECKING:
    from tests.support.library import Library, MediaFiles

pytest_plugins = ("tests.support.library",)

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def error(response: object) -> dict[str, str]:
    body = response.json()  # type: ignore[attr-defined]
    assert body["success"] is False
    detail: dict[str, str] = body["error"]
    return detail


REFUSED = [
    # filename, contentType, field named, code, words in the message
    ("notes.txt", "text/plain", "contentType", "unsupported_media_type", "not accepted"),
    ("clip.avi", "video/x-msvideo", "contentType", "unsupported_media_type", "video/mp4"),
    ("clip", "video/mp4", "filename", "validation_error", "no extension"),
    ("clip.", "video/mp4", "filename", "validation_error", "no extension"),
    (".mp4", "video/mp4", "filename", "validation_error", "no extension"),
    ("clip.png", "video/mp4", "filename", "validation_error", "does not match"),
    ("photo.mp4", "image/jpeg", "filename", "validation_error", ".jpg or .jpeg"),
    ("bad\nname.png", "image/png", "filename", "validation_error", "control characters"),
    ("x" * 300 + ".png", "image/png", "filename", "validation_error", "at most 255"),
]


def test_presign_refuses_what_is_not_media_naming_the_field(library: Library) -> None:
    account = library.account()
    for filename, content_type, field, code, words in REFUSED:
        response = library.client.post(
            "/api/upload/presigned-url",
            json={"filename": filename, "contentType": content_type},
            headers=account.headers,
        )
        assert response.status_code == 400, filename
        detail = error(response)
        assert (detail["code"], detail["field"]) == (code, field), filename
        assert words in detail["message"], detail


def test_presign_needs_both_fields_and_a_key(library: Library) -> None:
    account = library.account()
    missing = library.client.post(
        "/api/upload/presigned-url", json={"filename": "a.png"}, headers=account.headers
    )
    assert missing.status_code == 400 and error(missing)["field"] == "contentType"
    anonymous = library.client.post(
        "/api/upload/presigned-url", json={"filename": "a.png", "contentType": "image/png"}
    )
    assert anonymous.status_code == 401


ACCEPTED = [
    ("photo.JPG", "image/jpeg"),
    ("photo.jpeg", "image/jpeg"),
    ("anim.gif", "image/gif"),
    ("pic.webp", "image/webp"),
    ("clip.mov", "video/quicktime"),
    ("clip.webm", "video/webm"),
    ("clip.m4v", "video/mp4"),
]


def test_every_accepted_kind_gets_a_url(library: Library) -> None:
    account = library.account()
    for filename, content_type in ACCEPTED:
        issued = library.presign(account, filename, content_type)
        assert issued["success"] is True
        assert issued["fileId"].startswith("file_") and issued["uploadUrl"].startswith("http")
        assert issued["expiresAt"].endswith("Z")


def test_upload_url_needs_no_api_key_and_filenames_are_only_data(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    sneaky = "../../../../../../tmp/escaped/../../etc/owned.png"
    issued = library.presign(account, sneaky, "image/png")
    assert "owned" not in issued["uploadUrl"] and ".." not in issued["uploadUrl"]
    put = library.put(issued["uploadUrl"], media_files.png.read_bytes(), "image/png")
    assert put.status_code == 200
    status = library.wait(account, issued["fileId"])
    assert status["status"] == "ready" and status["filename"] == sneaky
    assert library.stored() == {f"files/{issued['fileId']}"}
    download = library.client.get(f"/api/upload/direct/{issued['fileId']}", headers=account.headers)
    assert download.content == media_files.png.read_bytes()
    fallback = download.headers["content-disposition"].split('filename="', 1)[1].split('"')[0]
    assert "/" not in fallback and fallback.endswith("owned.png")
    assert list(library.settings.data_dir.parent.rglob("*owned*")) == []


def tampered(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    for name, value in changes.items():
        key = next(k for k in query if k.lower() == name.lower())
        query[key] = value
    return urlunsplit(parts._replace(query=urlencode(query)))


def signature_param(url: str) -> str:
    return "X-Amz-Signature" if "X-Amz-Signature" in url else "signature"


def assert_nothing_kept(library: Library, account: object, file_id: str) -> None:
    status = library.status(account, file_id)  # type: ignore[arg-type]
    assert status["status"] in ("pending_upload", "failed"), status
    assert library.stored() == set()


def test_bad_signature_is_refused_and_nothing_is_stored(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    issued = library.presign(account, "clip.mp4")
    url = issued["uploadUrl"]
    forged = tampered(url, **{signature_param(url): "0" * 64})
    response = library.put(forged, media_files.video4.read_bytes(), "video/mp4")
    assert response.status_code == 403
    if library.backend == "local":
        assert error(response)["code"] == "invalid_upload_signature"
    assert_nothing_kept(library, account, issued["fileId"])


def test_another_content_type_than_the_signed_one_is_refused(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    issued = library.presign(account, "clip.mp4")
    body = media_files.video4.read_bytes()
    for content_type in ("application/octet-stream", "video/quicktime", None):
        response = library.put(issued["uploadUrl"], body, content_type)
        assert response.status_code == 403, content_type
    assert_nothing_kept(library, account, issued["fileId"])
    # The same URL with the signed type still works: refusals used nothing up.
    assert library.put(issued["uploadUrl"], body, "video/mp4").status_code == 200
    assert library.wait(account, issued["fileId"])["status"] == "ready"


def test_a_url_for_one_file_cannot_upload_another(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    first = library.presign(account, "a.png")
    second = library.presign(account, "b.png")
    swapped = first["uploadUrl"].replace(first["fileId"], second["fileId"])
    response = library.put(swapped, media_files.png.read_bytes(), "image/png")
    assert response.status_code == 403
    assert library.stored() == set()


def test_expired_url_is_refused_and_the_file_ends_failed(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    library = library_factory(upload_url_ttl_seconds=1, upload_grace_seconds=0)
    account = library.account()
    issued = library.presign(account, "clip.mp4")
    expires = issued["expiresAt"]
    time.sleep(2.1)  # signatures carry whole seconds
    response = library.put(issued["uploadUrl"], media_files.video4.read_bytes(), "video/mp4")
    assert response.status_code == 403
    if library.backend == "local":
        assert expires[:19] in error(response)["message"].replace("+00:00", "Z")
    status = library.status(account, issued["fileId"])
    assert status["status"] == "failed"
    assert "expired" in status["failureReason"]
    assert library.stored() == set()


def test_second_put_to_a_used_url_changes_nothing(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    issued = library.presign(account, "clip.mp4")
    first = media_files.video4.read_bytes()
    assert library.put(issued["uploadUrl"], first, "video/mp4").status_code == 200
    assert library.wait(account, issued["fileId"])["status"] == "ready"

    again = library.put(issued["uploadUrl"], media_files.video2.read_bytes(), "video/mp4")
    if library.backend == "local":
        assert again.status_code == 409
        assert error(again)["code"] == "upload_url_used"
    status = library.status(account, issued["fileId"])  # on s3 this notices the second PUT
    assert status["status"] == "ready" and status["size"] == len(first)
    assert library.stored() == {f"files/{issued['fileId']}"}
    download = library.client.get(f"/api/upload/direct/{issued['fileId']}", headers=account.headers)
    assert download.content == first


def test_body_over_the_size_limit_is_refused_and_nothing_is_kept(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    library = library_factory(max_upload_bytes=2000)
    account = library.account()
    body = media_files.video4.read_bytes()
    assert len(body) > 2000
    issued = library.presign(account, "clip.mp4")
    response = library.put(issued["uploadUrl"], body, "video/mp4")
    if library.backend == "local":
        assert response.status_code == 413
        assert error(response)["code"] == "upload_too_large"
    status = library.status(account, issued["fileId"])
    assert status["status"] == "failed"
    assert "over the 1.95 KiB limit (2000 bytes)" in status["failureReason"]
    assert library.stored() == set()


def test_a_body_of_exactly_the_limit_is_accepted_and_one_byte_more_is_refused(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    png = media_files.png.read_bytes()
    library = library_factory(max_upload_bytes=len(png))
    account = library.account()

    at_limit = library.presign(account, "image.png")
    assert library.put(at_limit["uploadUrl"], png, "image/png").status_code == 200
    ready = library.wait(account, at_limit["fileId"])
    assert (ready["status"], ready["size"]) == ("ready", len(png))

    over = library.presign(account, "over.png")
    response = library.put(over["uploadUrl"], png + b"\0", "image/png")
    if library.backend == "local":
        assert response.status_code == 413
        assert error(response)["code"] == "upload_too_large"
    else:
        assert response.status_code == 200  # S3 cannot refuse it: the status call's HEAD does
    status = library.status(account, over["fileId"])
    assert status["status"] == "failed"
    assert f"limit ({len(png)} bytes) and was refused" in status["failureReason"]
    assert library.stored() == {f"files/{at_limit['fileId']}"}


def _expired(library: Library, file_id: str, ago: timedelta) -> None:
    """Move a file's upload URL expiry into the past, as if that much time had gone by."""
    with transaction(library.service.sessions) as db:
        file = db.get(File, file_id)
        assert file is not None
        file.upload_expires_at = datetime.now(UTC) - ago


def test_a_file_is_awaited_through_the_grace_period_after_its_url_expired(
    library_factory: Callable[..., Library],
) -> None:
    """A PUT begun just before the URL expired may still be arriving: no failing it yet."""
    library = library_factory(upload_grace_seconds=600)
    account = library.account()
    issued = library.presign(account, "clip.mp4")

    _expired(library, issued["fileId"], timedelta(seconds=300))
    assert library.status(account, issued["fileId"])["status"] == "pending_upload"

    _expired(library, issued["fileId"], timedelta(seconds=900))
    status = library.status(account, issued["fileId"])
    assert status["status"] == "failed"
    assert "No upload arrived before the upload URL expired" in status["failureReason"]


def test_status_call_notices_the_upload(library: Library, media_files: MediaFiles) -> None:
    """On s3 the store tells nobody; the next status call looks, so it never says pending."""
    account = library.account()
    file_id = library.upload(account, media_files.jpeg)
    assert library.status(account, file_id)["status"] in ("processing", "ready")


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_local_put_without_content_length_is_counted_as_it_streams(
    library_factory: Callable[..., Library], media_files: MediaFiles
) -> None:
    """A chunked body has no declared size: the limit is applied to the bytes as they come."""
    body = media_files.jpeg.read_bytes()
    library = library_factory(max_upload_bytes=len(body))
    account = library.account()

    def chunks(data: bytes) -> Iterator[bytes]:
        for start in range(0, len(data), 100):
            yield data[start : start + 100]

    fits = library.presign(account, "photo.jpg")  # exactly the limit
    put = library.client.put(
        fits["uploadUrl"], content=chunks(body), headers={"Content-Type": "image/jpeg"}
    )
    assert put.status_code == 200
    done = library.wait(account, fits["fileId"])
    assert (done["status"], done["size"]) == ("ready", len(body))

    big = library.presign(account, "big.jpg")  # one byte more
    put = library.client.put(
        big["uploadUrl"], content=chunks(body + b"\0"), headers={"Content-Type": "image/jpeg"}
    )
    assert put.status_code == 413 and error(put)["code"] == "upload_too_large"
    assert library.status(account, big["fileId"])["status"] == "failed"
    assert library.stored() == {f"files/{fits['fileId']}"}
    assert list((library.settings.data_dir / "media" / "tmp").iterdir()) == []
