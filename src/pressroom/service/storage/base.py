"""The storage interface both backends implement, and its errors."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

KEY_PATTERN = re.compile(r"(files|incoming|posters)/file_[0-9a-f]{24}|derived/drv_[0-9a-f]{24}")
"""Every key the media library writes; anything else is refused before it touches a path."""


class StorageError(Exception):
    """The store failed or could not be reached; the operation may succeed later."""


class ObjectMissing(StorageError):
    """No bytes under this key."""


@dataclass(frozen=True)
class StoredObject:
    key: str
    size: int
    modified: datetime | None = None


def check_key(key: str) -> str:
    if not KEY_PATTERN.fullmatch(key):
        raise ValueError(f"not a storage key: {key!r}")
    return key


def final_key(file_id: str) -> str:
    """Where a file's verified bytes live."""
    return check_key(f"files/{file_id}")


def poster_key(file_id: str) -> str:
    """Where a video's poster frame (a JPEG made during processing) lives."""
    return check_key(f"posters/{file_id}")


def derived_key(derivative_id: str) -> str:
    """Where a file converted for a network lives, beside the original's bytes."""
    return check_key(f"derived/{derivative_id}")


PROBE_KEY = final_key("file_" + "0" * 24)
"""Looked up by readiness to see that the store answers; no file is ever given this id."""


class Storage(Protocol):
    backend: str

    def upload_key(self, file_id: str) -> str:
        """Where a presigned PUT for this file lands."""
        ...

    def presign_upload(self, file_id: str, content_type: str, expires_at: datetime) -> str:
        """A URL that takes exactly one file's bytes with this Content-Type until expiry."""
        ...

    def stat(self, key: str) -> StoredObject | None: ...

    def promote(self, source: str, target: str) -> None:
        """Move the bytes at ``source`` to ``target`` (a no-op when they are the same)."""
        ...

    def put(self, key: str, data: bytes, content_type: str) -> None:
        """Store a small object the service made itself (a poster), replacing any."""
        ...

    def put_file(self, key: str, path: Path, content_type: str) -> None:
        """Store a file the service made itself (a derived video), replacing any; read
        from disk in pieces, never whole in memory."""
        ...

    def local_copy(self, key: str) -> AbstractContextManager[Path]:
        """A file on local disk holding the bytes, for as long as the context lasts."""
        ...

    def read(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        """Bytes ``start`` up to (not including) ``stop``, in chunks."""
        ...

    def delete(self, key: str) -> None:
        """Remove the bytes; a missing key is not an error."""
        ...

    def list(self, prefix: str) -> Iterator[StoredObject]:
        """Every object whose key starts with ``prefix`` (``files/``, ``incoming/``,
        ``posters/`` or ``derived/``)."""
        ...

    def sweep_partials(self, older_than: timedelta) -> int:
        """Drop half-written uploads untouched for ``older_than``; returns how many."""
        ...

    def check(self) -> None:
        """Raise StorageError unless the store can take bytes now (``/readyz`` asks)."""
        ...
