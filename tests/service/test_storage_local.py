"""The local backend's pieces: signed URLs, the secret, the upload slot's lock, keys, ranges."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pressroom.service.errors import ServiceError
from pressroom.service.media.download import ByteRange, parse_range
from pressroom.service.storage.base import check_key
from pressroom.service.storage.local import InvalidUploadUrl, LocalStorage, UploadUnavailable
from pressroom.service.storage.signing import load_secret
from pressroom.settings import Settings

FILE_ID = "file_" + "ab" * 12
OTHER_ID = "file_" + "cd" * 12


@pytest.fixture
def storage(tmp_path: Path) -> LocalStorage:
    return LocalStorage(Settings(data_dir=tmp_path, base_url="http://media.example:9000/"))


def url_parts(url: str) -> tuple[str, int, str]:
    path, query = url.split("?")
    params = dict(p.split("=") for p in query.split("&"))
    return path.rsplit("/", 1)[1], int(params["expires"]), params["signature"]


def test_signature_binds_file_content_type_and_expiry(storage: LocalStorage) -> None:
    now = datetime.now(UTC)
    url = storage.presign_upload(FILE_ID, "video/mp4", now + timedelta(minutes=5))
    assert url.startswith(f"http://media.example:9000/storage/upload/{FILE_ID}?expires=")
    file_id, expires, signature = url_parts(url)
    storage.verify_upload(file_id, "video/mp4", expires, signature, now)
    for wrong in (
        (OTHER_ID, "video/mp4", expires, signature),
        (file_id, "video/webm", expires, signature),
        (file_id, "video/mp4", expires + 3600, signature),
        (file_id, "video/mp4", expires, "f" * 64),
    ):
        with pytest.raises(InvalidUploadUrl, match="signature"):
            storage.verify_upload(*wrong, now)
    with pytest.raises(InvalidUploadUrl, match="expired"):
        storage.verify_upload(file_id, "video/mp4", expires, signature, now + timedelta(minutes=6))


def test_secret_is_made_once_kept_private_and_reused(tmp_path: Path) -> None:
    first = load_secret(None, tmp_path)
    assert len(first) >= 48 and load_secret(None, tmp_path) == first
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert load_secret("configured", tmp_path) == b"configured"
    assert list(tmp_path.iterdir()) == [tmp_path / "secret_key"]
    # Two services on one data dir sign alike: a URL from one is good at the other.
    settings = Settings(data_dir=tmp_path)
    url = LocalStorage(settings).presign_upload(
        FILE_ID, "image/png", datetime.now(UTC) + timedelta(minutes=1)
    )
    file_id, expires, signature = url_parts(url)
    LocalStorage(settings).verify_upload(
        file_id, "image/png", expires, signature, datetime.now(UTC)
    )


def test_one_put_at_a_time_and_never_after_success(storage: LocalStorage) -> None:
    slot = storage.claim(FILE_ID)
    with pytest.raises(UploadUnavailable, match="in progress"):
        storage.claim(FILE_ID)
    slot.write(b"hello ")
    slot.write(b"world")
    assert slot.finish() == 11
    with pytest.raises(UploadUnavailable, match="already used"):
        storage.claim(FILE_ID)
    assert b"".join(storage.read(f"files/{FILE_ID}", 6, 11)) == b"world"


def test_pieces_are_stored_in_order_with_the_sha256_of_the_whole(storage: LocalStorage) -> None:
    """The route hands over the pieces as the connection delivered them, unjoined."""
    slot = storage.claim(FILE_ID)
    first, second = [b"spring ", b"", b"collection"], [b" 2026"]
    slot.store(first)
    slot.hash(first)
    slot.hash(second)  # the two halves of a block run on their own threads, in any order
    slot.store(second)
    assert slot.finish() == 22
    assert slot.sha256 == hashlib.sha256(b"spring collection 2026").hexdigest()
    assert b"".join(storage.read(f"files/{FILE_ID}", 0, 22)) == b"spring collection 2026"


def test_a_write_the_kernel_cuts_short_is_carried_on_where_it_stopped(
    storage: LocalStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``writev`` may write less than asked (a signal, a file size limit reached)."""
    real = os.writev

    def at_most_five(fd: int, views: list[memoryview]) -> int:
        return real(fd, [b"".join(bytes(view) for view in views)[:5]])

    monkeypatch.setattr(os, "writev", at_most_five)
    slot = storage.claim(FILE_ID)
    slot.store([b"spring ", b"", b"collection", b" 2026"])
    slot.store([b"!"])
    assert slot.finish() == 23
    assert b"".join(storage.read(f"files/{FILE_ID}", 0, 23)) == b"spring collection 2026!"


def test_a_discarded_put_leaves_nothing_and_frees_the_url(storage: LocalStorage) -> None:
    slot = storage.claim(FILE_ID)
    slot.write(b"partial")
    slot.discard()
    assert storage.stat(f"files/{FILE_ID}") is None
    assert list((storage.root / "tmp").iterdir()) == []
    storage.claim(FILE_ID).discard()


def test_a_put_whose_process_died_does_not_wedge_the_url(storage: LocalStorage) -> None:
    """The lock dies with its holder, so a crash mid-upload leaves the URL usable."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from pressroom.settings import Settings\n"
        "from pressroom.service.storage.local import LocalStorage\n"
        f"slot = LocalStorage(Settings(data_dir=Path({str(storage.root.parent)!r}))).claim({FILE_ID!r})\n"
        "slot.write(b'half')\n"
        "print('claimed', flush=True)\n"
        "time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "claimed"
        with pytest.raises(UploadUnavailable, match="in progress"):
            storage.claim(FILE_ID)
        assert storage.sweep_partials(timedelta(0)) == 0  # a live upload is never swept
    finally:
        holder.kill()
        holder.wait()
    slot = storage.claim(FILE_ID)
    slot.write(b"whole")
    assert slot.finish() == 5


def test_stale_partial_uploads_are_swept(storage: LocalStorage) -> None:
    slot = storage.claim(FILE_ID)
    slot.write(b"abandoned")
    slot._handle.close()  # as if its process had died, leaving the part behind
    part = storage.root / "tmp" / f"{FILE_ID}.part"
    assert part.exists()
    assert storage.sweep_partials(timedelta(hours=1)) == 0
    old = time.time() - 7200
    os.utime(part, (old, old))
    assert storage.sweep_partials(timedelta(hours=1)) == 1
    assert not part.exists()


@pytest.mark.parametrize(
    "key",
    [
        "files/../secret_key",
        "../x",
        "files/file_x",
        "/etc/passwd",
        "files/" + FILE_ID + "/..",
        "tmp/a",
    ],
)
def test_only_keys_the_library_makes_reach_the_disk(storage: LocalStorage, key: str) -> None:
    with pytest.raises(ValueError, match="not a storage key"):
        check_key(key)
    with pytest.raises(ValueError):
        storage.stat(key)
    with pytest.raises(ValueError):
        storage.delete(key)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("bytes=0-0", ByteRange(0, 1)),
        ("bytes=5-", ByteRange(5, 100)),
        ("bytes=-1", ByteRange(99, 100)),
        ("bytes=-500", ByteRange(0, 100)),
        ("bytes=90-1000", ByteRange(90, 100)),
        ("bytes=10-5", None),  # invalid: ignored, the whole file is sent
        ("bytes=0-1,4-5", None),  # several ranges: the whole file
        ("items=0-5", None),
        ("bytes=-", None),
    ],
)
def test_byte_ranges(header: str | None, expected: ByteRange | None) -> None:
    assert parse_range(header, 100) == expected


@pytest.mark.parametrize(
    ("header", "size"), [("bytes=100-", 100), ("bytes=-0", 100), ("bytes=0-", 0)]
)
def test_unsatisfiable_ranges(header: str, size: int) -> None:
    with pytest.raises(ServiceError) as caught:
        parse_range(header, size)
    assert caught.value.status == 416
    assert caught.value.headers["Content-Range"] == f"bytes */{size}"
