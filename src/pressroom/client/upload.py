"""Uploads: what is sent (a file streamed from disk, or bytes), progress, and the wait.

The bytes go to the presigned address in chunks with an explicit ``Content-Length``:
S3 refuses chunked transfer encoding on a presigned PUT, and a large file never sits
in memory. Waiting for readiness polls the status at once, then after 0.5 s, 1 s, 2 s,
... up to the poll interval (5 s by default, as the spec suggests for video): a small
image is ready within a second, and a long video is still polled only every 5 s.
``ready``, ``completed`` and ``uploaded`` all count as ready, ``failed`` raises
``FileProcessingFailed`` with the reason, and a transient error while polling is waited
out rather than ending the wait.
"""

from __future__ import annotations

import mimetypes
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pressroom.client import errors
from pressroom.client.models import FileStatus
from pressroom.probe import content_type_for

CHUNK_BYTES = 1024 * 1024
FIRST_POLL_DELAY = 0.5
"""Seconds before the second status poll; each later pause doubles, up to the interval."""

Source = str | os.PathLike[str] | bytes
"""A path to stream from disk, or the bytes themselves."""


@dataclass(frozen=True)
class UploadProgress:
    """One step of an upload, given to the ``on_progress`` callback.

    ``phase`` is ``uploading`` (after each chunk; ``bytes_sent`` grows to
    ``total_bytes``), ``waiting`` (after each status poll that was not yet ready;
    ``status`` is that answer) or ``ready`` (once, at the end).
    """

    phase: Literal["uploading", "waiting", "ready"]
    file_id: str
    bytes_sent: int
    total_bytes: int
    status: FileStatus | None = None


ProgressCallback = Callable[[UploadProgress], None]


@dataclass(frozen=True)
class UploadSource:
    filename: str
    content_type: str
    size: int
    path: Path | None = None
    data: bytes | None = None

    @classmethod
    def of(cls, source: Source, *, filename: str | None, content_type: str | None) -> UploadSource:
        """The file name, content type and size of what will be sent."""
        if isinstance(source, bytes | bytearray | memoryview):
            if not filename:
                raise ValueError("uploading bytes needs filename= (with its extension)")
            data = bytes(source)
            return cls(filename, content_type or guess_content_type(filename), len(data), data=data)
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"no file to upload at {path}")
        name = filename or path.name
        return cls(name, content_type or guess_content_type(name), path.stat().st_size, path=path)

    def chunks(self, sent: Callable[[int], None]) -> Iterator[bytes]:
        """The bytes in chunks, calling ``sent`` with the running total after each."""
        total = 0
        if self.data is not None:
            for start in range(0, len(self.data), CHUNK_BYTES):
                chunk = self.data[start : start + CHUNK_BYTES]
                yield chunk
                total += len(chunk)
                sent(total)
            return
        assert self.path is not None
        with self.path.open("rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                yield chunk
                total += len(chunk)
                sent(total)

    async def achunks(self, sent: Callable[[int], None]) -> AsyncIterator[bytes]:
        # Local disk reads of one chunk are short; no thread hop per chunk.
        for chunk in self.chunks(sent):
            yield chunk


def guess_content_type(filename: str) -> str:
    """The content type the service accepts for this extension, else the usual guess."""
    found = content_type_for(filename) or mimetypes.guess_type(filename)[0]
    if found is None:
        raise ValueError(f"cannot tell the content type of {filename!r}: pass content_type=")
    return found


class ReadyWait:
    """The rules of waiting for a file, shared by the sync and async clients."""

    def __init__(
        self,
        file_id: str,
        *,
        interval: float,
        timeout: float,
        on_progress: ProgressCallback | None,
        size: int = 0,
    ) -> None:
        self.file_id = file_id
        self.interval = interval
        self.timeout = timeout
        self.on_progress = on_progress
        self.size = size
        self.started = time.monotonic()
        self.last_status: str | None = None
        self.next_pause = min(FIRST_POLL_DELAY, interval)

    def after_status(self, status: FileStatus) -> float | None:
        """None when ready; else the seconds to sleep. Raises when failed or out of time."""
        self.last_status = status.status
        if status.is_ready:
            self._report("ready", status)
            return None
        if status.is_failed:
            raise errors.FileProcessingFailed(
                file_id=self.file_id, status=status.status, reason=status.failure_reason
            )
        self._report("waiting", status)
        pause = self.next_pause
        self.next_pause = min(pause * 2, self.interval)
        return self._delay(pause)

    def after_error(self, exc: errors.PressroomError) -> float:
        """A poll failed: re-raise unless it is transient and time remains."""
        if not exc.transient:
            raise exc
        retry_after = exc.retry_after if isinstance(exc, errors.APIError) else None
        return self._delay(max(self.interval, retry_after or 0.0), cause=exc)

    def _delay(self, wanted: float, cause: BaseException | None = None) -> float:
        waited = time.monotonic() - self.started
        remaining = self.timeout - waited
        if remaining <= 0:
            raise errors.UploadTimeout(
                file_id=self.file_id, status=self.last_status, waited=waited
            ) from cause
        return min(wanted, remaining)

    def _report(self, phase: Literal["waiting", "ready"], status: FileStatus) -> None:
        if self.on_progress is not None:
            size = status.size if status.size is not None else self.size
            self.on_progress(UploadProgress(phase, self.file_id, size, size, status))


def bytes_reporter(
    file_id: str, total: int, on_progress: ProgressCallback | None
) -> Callable[[int], None]:
    def sent(count: int) -> None:
        if on_progress is not None:
            on_progress(UploadProgress("uploading", file_id, count, total))

    return sent
