"""Serving a file's bytes: streamed from storage, whole or one byte range (RFC 9110)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import quote

from pressroom import error_codes
from pressroom.service.db.models import Derivative, File
from pressroom.service.errors import ServiceError
from pressroom.service.media import states
from pressroom.service.media.library import MediaLibrary
from pressroom.service.storage import ObjectMissing, StorageError
from pressroom.statuses import DerivativeState

_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


@dataclass(frozen=True)
class ByteRange:
    start: int
    stop: int
    """Exclusive."""


@dataclass
class Download:
    status: int
    body: Iterator[bytes]
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/octet-stream"


def parse_range(header: str | None, size: int) -> ByteRange | None:
    """The one range asked for, or None for the whole file.

    Malformed and multi-range headers are ignored (the whole file is sent), as RFC 9110
    allows; a well-formed range that lies wholly past the end is a 416.
    """
    if not header:
        return None
    match = _RANGE.fullmatch(header.strip())
    if match is None:
        return None
    first, last = match.groups()
    if not first and not last:
        return None
    if not first:  # suffix: the last N bytes
        length = int(last)
        if length == 0 or size == 0:
            raise _unsatisfiable(size)
        return ByteRange(max(0, size - length), size)
    start = int(first)
    stop = size if not last else int(last) + 1
    if last and int(last) < start:
        return None
    if start >= size:
        raise _unsatisfiable(size)
    return ByteRange(start, min(stop, size))


def _unsatisfiable(size: int) -> ServiceError:
    return ServiceError(
        error_codes.RANGE_NOT_SATISFIABLE,
        f"The range is outside the file, which has {size} bytes.",
        headers={"Content-Range": f"bytes */{size}"},
    )


def open_download(library: MediaLibrary, file: File, range_header: str | None) -> Download:
    if file.status == states.FAILED:
        raise ServiceError(
            error_codes.FILE_FAILED,
            f"File {file.id!r} failed processing and has no bytes: {file.failure_reason}",
        )
    if file.status != states.READY or file.size is None:
        raise ServiceError(
            error_codes.FILE_NOT_READY,
            f"File {file.id!r} is {file.status.replace('_', ' ')}; it can be downloaded "
            "once it is ready.",
        )
    return _serve(
        library,
        file.storage_key,
        file.size,
        file.content_type,
        range_header,
        what=f"File {file.id!r}",
        filename=file.filename,
    )


def open_derived(
    library: MediaLibrary, derivative: Derivative, filename: str, range_header: str | None
) -> Download:
    """A ready derived file's bytes (what a network that fetches media is linked to)."""
    if (
        derivative.status != DerivativeState.READY
        or derivative.storage_key is None
        or derivative.size is None
        or derivative.content_type is None
    ):
        raise ServiceError(
            error_codes.FILE_NOT_FOUND, f"Derived file {derivative.id!r} has no bytes."
        )
    return _serve(
        library,
        derivative.storage_key,
        derivative.size,
        derivative.content_type,
        range_header,
        what=f"Derived file {derivative.id!r}",
        filename=filename,
    )


def _serve(
    library: MediaLibrary,
    key: str,
    size: int,
    content_type: str,
    range_header: str | None,
    *,
    what: str,
    filename: str,
) -> Download:
    wanted = parse_range(range_header, size)
    span = wanted or ByteRange(0, size)
    try:
        body = library.storage.read(key, span.start, span.stop)
    except ObjectMissing:
        raise ServiceError(error_codes.FILE_NOT_FOUND, f"{what} has no bytes any more.") from None
    except StorageError:
        raise ServiceError(
            error_codes.STORAGE_UNAVAILABLE,
            "The file store did not answer; try again shortly.",
            headers={"Retry-After": "5"},
        ) from None
    headers = {
        "Content-Length": str(span.stop - span.start),
        "Accept-Ranges": "bytes",
        "Content-Disposition": content_disposition(filename),
        "Cache-Control": "private, no-store",
    }
    if wanted is not None:
        headers["Content-Range"] = f"bytes {span.start}-{span.stop - 1}/{size}"
    return Download(206 if wanted else 200, body, headers, content_type)


def content_disposition(filename: str) -> str:
    """``inline`` with the name as data: an ASCII fallback and the exact UTF-8 form."""
    fallback = "".join(ch if 32 <= ord(ch) < 127 and ch not in '"\\/' else "_" for ch in filename)
    return f"inline; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


def open_poster(library: MediaLibrary, file: File) -> Download:
    """A ready video's poster frame (JPEG), made during processing."""
    if file.status != states.READY or file.poster_key is None:
        raise ServiceError(error_codes.FILE_NOT_FOUND, f"File {file.id!r} has no poster.")
    try:
        found = library.storage.stat(file.poster_key)
        if found is None:
            raise ObjectMissing(file.poster_key)
        body = library.storage.read(file.poster_key, 0, found.size)
    except ObjectMissing:
        raise ServiceError(error_codes.FILE_NOT_FOUND, f"File {file.id!r} has no poster.") from None
    except StorageError as exc:
        raise ServiceError(
            error_codes.STORAGE_UNAVAILABLE, str(exc), headers={"Retry-After": "2"}
        ) from None
    headers = {"Content-Length": str(found.size), "Cache-Control": "private, max-age=3600"}
    return Download(200, body, headers, "image/jpeg")
