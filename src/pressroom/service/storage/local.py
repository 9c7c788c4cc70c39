"""Bytes on local disk under ``<data dir>/media``, uploaded through the service itself.

An upload URL is ``{PRESSROOM_BASE_URL}/storage/upload/{fileId}?expires=..&signature=..``.
The PUT writes to ``tmp/<fileId>.part`` while holding an exclusive ``flock`` on it, then
renames it to ``files/<fileId>``. The lock is what refuses a second, concurrent PUT (in
any worker process) and it dies with its process, so a crash mid-upload never wedges the
URL; a finished upload is refused because its target exists.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlencode

from pressroom.service.storage.base import (
    ObjectMissing,
    StorageError,
    StoredObject,
    check_key,
    final_key,
)
from pressroom.service.storage.preallocate import reserve
from pressroom.service.storage.signing import UploadSigner, load_secret
from pressroom.settings import Settings

CHUNK = 256 * 1024
IOV_MAX = 1024
"""The most buffers one ``writev`` takes (Linux's ``IOV_MAX``)."""
WRITEBACK_BYTES = 8 * 1024 * 1024
"""How much of an upload is written before the kernel is asked to start putting it on
disk (see :meth:`UploadSlot.store`)."""
UPLOAD_PREFIX = "/storage/upload/"
UPLOAD_PATH = UPLOAD_PREFIX + "{file_id}"


class InvalidUploadUrl(Exception):
    """The signature does not match (file, content type, expiry) or the URL expired."""


class UploadUnavailable(Exception):
    """The URL was used already, or another PUT to it is running."""


class UploadSlot:
    """One PUT in progress: an open, locked ``.part`` file and where it will go.

    :meth:`store` and :meth:`hash` share no state (they could run on two threads at
    once); the upload route runs both, then :meth:`finish` or :meth:`discard`, on one
    thread of its own (``pressroom.service.media.upload_pipeline``).
    """

    def __init__(self, handle: BinaryIO, part: Path, target: Path) -> None:
        self._handle = handle
        self._part = part
        self._target = target
        self._digest = hashlib.sha256()
        self._flushed = 0
        self.size = 0

    def reserve(self, size: int) -> None:
        """Reserve the blocks of an upload of ``size`` bytes up front, when the request
        said its size: fewer, larger allocations than block by block as it is written
        back (:mod:`~pressroom.service.storage.preallocate`; best effort)."""
        reserve(self._handle.fileno(), size)

    def write(self, data: bytes) -> None:
        self.store([data])
        self.hash([data])

    def store(self, pieces: Sequence[bytes]) -> None:
        """Append pieces to the file as they arrived, in one ``writev``: joining them
        first would copy every byte once more, and one system call a piece costs more.

        Every :data:`WRITEBACK_BYTES` the kernel is asked to start writing what came
        before (``POSIX_FADV_DONTNEED`` starts the writeback of dirty pages and drops
        the clean ones), so the disk works while the rest arrives and the fsync of
        :meth:`finish` has little left to wait for; the uploaded bytes are not read
        back through the cache (the hash is taken as they arrive). Where the call does
        not exist (macOS), the fsync does it all.
        """
        fd = self._handle.fileno()
        views = [memoryview(piece) for piece in pieces]
        while views:
            written = os.writev(fd, views[:IOV_MAX])
            self.size += written
            views = _after(views, written)
        if self.size - self._flushed >= WRITEBACK_BYTES and hasattr(os, "posix_fadvise"):
            os.posix_fadvise(fd, self._flushed, self.size - self._flushed, os.POSIX_FADV_DONTNEED)
            self._flushed = self.size

    def hash(self, pieces: Sequence[bytes]) -> None:
        """Add pieces to the SHA-256, in the order :meth:`store` gets them."""
        for piece in pieces:
            self._digest.update(piece)

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of everything written so far."""
        return self._digest.hexdigest()

    def finish(self) -> int:
        """Make the bytes durable and put them in place; returns their size."""
        self._handle.flush()
        os.fsync(self._handle.fileno())
        os.replace(self._part, self._target)
        self._handle.close()  # releases the lock; the target now answers "used"
        return self.size

    def discard(self) -> None:
        if self._handle.closed:
            return
        with contextlib.suppress(FileNotFoundError):
            self._part.unlink()
        self._handle.close()


class LocalStorage:
    backend = "local"

    def __init__(self, settings: Settings) -> None:
        self.root = (settings.data_dir / "media").resolve()
        self._files = self.root / "files"
        self._tmp = self.root / "tmp"
        self._base_url = settings.public_base_url
        self._signer = UploadSigner(load_secret(settings.secret_key, settings.data_dir))
        for directory in (self._files, self._tmp):
            directory.mkdir(parents=True, exist_ok=True)

    # --- uploads -------------------------------------------------------------------
    def upload_key(self, file_id: str) -> str:
        return final_key(file_id)

    def presign_upload(self, file_id: str, content_type: str, expires_at: datetime) -> str:
        expires = int(expires_at.timestamp())
        query = urlencode(
            {"expires": expires, "signature": self._signer.sign(file_id, content_type, expires)}
        )
        return f"{self._base_url}{UPLOAD_PATH.format(file_id=file_id)}?{query}"

    def verify_upload(
        self, file_id: str, content_type: str, expires: int, signature: str, now: datetime
    ) -> None:
        """Raise InvalidUploadUrl unless the URL was signed for this file and type and is live."""
        if not self._signer.matches(file_id, content_type, expires, signature):
            raise InvalidUploadUrl(
                "The upload URL's signature does not match this file and Content-Type; "
                "send the Content-Type given when the URL was requested."
            )
        if now.timestamp() > expires:
            expired = datetime.fromtimestamp(expires, UTC).isoformat().replace("+00:00", "Z")
            raise InvalidUploadUrl(f"The upload URL expired at {expired}; request a new one.")

    def claim(self, file_id: str) -> UploadSlot:
        """Lock this file's upload slot, or raise UploadUnavailable."""
        target = self._path(final_key(file_id))
        if target.exists():
            raise UploadUnavailable("This upload URL was already used.")
        part = self._tmp / f"{file_id}.part"
        try:
            fd = os.open(part, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:  # the media directory is gone, or the disk refuses files
            raise StorageError(f"cannot start an upload: {_why(exc)}") from exc
        handle = os.fdopen(fd, "r+b")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise UploadUnavailable("Another upload to this URL is in progress.") from None
        # The inode we locked may have been renamed into place by the PUT that held it.
        try:
            same = os.fstat(fd).st_ino == os.stat(part).st_ino
        except FileNotFoundError:
            same = False
        if not same or target.exists():
            if same:  # we made this .part (the first one became the file): remove it
                with contextlib.suppress(FileNotFoundError):
                    part.unlink()
            handle.close()
            raise UploadUnavailable("This upload URL was already used.")
        handle.truncate(0)
        return UploadSlot(handle, part, target)

    def sweep_partials(self, older_than: timedelta) -> int:
        cutoff = datetime.now(UTC).timestamp() - older_than.total_seconds()
        removed = 0
        for part in self._tmp.glob("*.part"):
            with contextlib.suppress(OSError), open(part, "rb") as handle:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # an upload is writing it right now
                if os.fstat(handle.fileno()).st_mtime < cutoff:
                    part.unlink()
                    removed += 1
        return removed

    def check(self) -> None:
        """Both directories are there, and a small file can be made and removed in them.

        A missing directory is not made again, here or anywhere after start-up: the
        usual cause is a volume that did not mount or was unmounted, and recreating it
        would send uploads to the disk beneath while every earlier file stays missing.
        Readiness fails and uploads answer ``storage_unavailable`` until an operator
        mounts it or restarts the service (which makes the directories of an empty
        store, as on first start).
        """
        for directory in (self._files, self._tmp):
            if not directory.is_dir():
                raise StorageError(f"the media store's {directory.name}/ directory is missing")
        # A .part name: a probe left by a crash between write and unlink is swept.
        probe = self._tmp / f"readiness-{os.getpid()}-{threading.get_ident()}.part"
        try:
            with open(probe, "wb") as handle:
                handle.write(b"ready")
            probe.unlink()
        except OSError as exc:
            raise StorageError(f"cannot write in the media store: {_why(exc)}") from exc

    # --- objects -------------------------------------------------------------------
    def stat(self, key: str) -> StoredObject | None:
        try:
            info = self._path(key).stat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"cannot read {key}: {exc}") from exc
        return StoredObject(key, info.st_size, datetime.fromtimestamp(info.st_mtime, UTC))

    def promote(self, source: str, target: str) -> None:
        if source != target:
            os.replace(self._path(source), self._path(target))

    def put(self, key: str, data: bytes, content_type: str) -> None:
        path = self._path(key)
        aside = self._tmp / f"{path.name}.{os.getpid()}.put"
        try:
            path.parent.mkdir(exist_ok=True)  # posters/, made on first use; never the root
            aside.write_bytes(data)
            os.replace(aside, path)  # readers see the old poster or the new one, whole
        except OSError as exc:
            raise StorageError(f"cannot write {key}: {exc}") from exc

    def put_file(self, key: str, path: Path, content_type: str) -> None:
        target = self._path(key)
        aside = self._tmp / f"{target.name}.{os.getpid()}.put"
        try:
            target.parent.mkdir(exist_ok=True)  # derived/, made on first use
            shutil.copyfile(path, aside)
            os.replace(aside, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                aside.unlink()
            raise StorageError(f"cannot write {key}: {_why(exc)}") from exc

    @contextlib.contextmanager
    def local_copy(self, key: str) -> Iterator[Path]:
        path = self._path(key)
        if not path.is_file():
            raise ObjectMissing(key)
        yield path

    def read(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        try:
            handle = open(self._path(key), "rb")  # noqa: SIM115 - closed by the generator
        except FileNotFoundError:
            raise ObjectMissing(key) from None
        return _read_range(handle, start, stop)

    def delete(self, key: str) -> None:
        try:
            self._path(key).unlink(missing_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot delete {key}: {exc}") from exc

    def list(self, prefix: str) -> Iterator[StoredObject]:
        directory = self.root / prefix.strip("/")
        if not directory.is_dir():
            return
        for entry in os.scandir(directory):
            key = f"{prefix.strip('/')}/{entry.name}"
            if entry.is_file() and self._is_key(key):
                info = entry.stat()
                yield StoredObject(key, info.st_size, datetime.fromtimestamp(info.st_mtime, UTC))

    def _path(self, key: str) -> Path:
        return self.root / check_key(key)

    @staticmethod
    def _is_key(key: str) -> bool:
        try:
            check_key(key)
        except ValueError:
            return False
        return True


def _why(exc: OSError) -> str:
    """The operating system's reason without the path it names."""
    return exc.strerror or type(exc).__name__


def _after(views: list[memoryview], count: int) -> list[memoryview]:
    """What is left of ``views`` once the first ``count`` bytes are written."""
    while views and count >= len(views[0]):
        count -= len(views[0])
        views = views[1:]
    if views and count:
        views = [views[0][count:], *views[1:]]
    return views


def _read_range(handle: BinaryIO, start: int, stop: int) -> Iterator[bytes]:
    with handle:
        handle.seek(start)
        remaining = stop - start
        while remaining > 0:
            data = handle.read(min(CHUNK, remaining))
            if not data:
                return
            remaining -= len(data)
            yield data
