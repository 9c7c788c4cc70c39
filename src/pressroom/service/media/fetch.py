"""``GET /storage/files/{fileId}``: a file's bytes by signed link, for networks that fetch
(and ``GET /storage/derived/{id}``: a file fitted for the network, the same way).

No API key: the signature (``media.handover``) authorises it, for one file until its
expiry. Whole file or one byte range, as the API's download answers.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse

from pressroom import error_codes
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Derivative, File
from pressroom.service.deps import DbSession
from pressroom.service.errors import ServiceError
from pressroom.service.media.download import open_derived, open_download
from pressroom.service.media.fitting import derived_filename
from pressroom.service.media.handover import DERIVED_PREFIX, FETCH_PREFIX, MediaHandover
from pressroom.service.media.runtime import Library

router = APIRouter(tags=["storage"])


@router.get(FETCH_PREFIX + "{file_id}", response_class=StreamingResponse, include_in_schema=False)
def fetch_file(
    file_id: str,
    request: Request,
    db: DbSession,
    library: Library,
    expires: Annotated[int, Query()],
    signature: Annotated[str, Query()],
    range_: Annotated[str | None, Header(alias="Range")] = None,
) -> StreamingResponse:
    _check_link(request, file_id, expires, signature)
    file = db.get(File, file_id)
    if file is None:
        raise ServiceError(error_codes.FILE_NOT_FOUND, f"File {file_id!r} is gone.")
    found = open_download(library, file, range_)
    return StreamingResponse(
        found.body, status_code=found.status, headers=found.headers, media_type=found.content_type
    )


@router.get(
    DERIVED_PREFIX + "{derivative_id}", response_class=StreamingResponse, include_in_schema=False
)
def fetch_derived(
    derivative_id: str,
    request: Request,
    db: DbSession,
    library: Library,
    expires: Annotated[int, Query()],
    signature: Annotated[str, Query()],
    range_: Annotated[str | None, Header(alias="Range")] = None,
) -> StreamingResponse:
    _check_link(request, derivative_id, expires, signature)
    derivative = db.get(Derivative, derivative_id)
    file = db.get(File, derivative.file_id) if derivative is not None else None
    if derivative is None or file is None:
        raise ServiceError(error_codes.FILE_NOT_FOUND, f"File {derivative_id!r} is gone.")
    found = open_derived(library, derivative, derived_filename(file.filename, derivative), range_)
    return StreamingResponse(
        found.body, status_code=found.status, headers=found.headers, media_type=found.content_type
    )


def _check_link(request: Request, key: str, expires: int, signature: str) -> None:
    """A network fetching media holds a link signed for this file (or copy) that has not
    expired; anything else is refused before the database is read."""
    links = MediaHandover(request.app.state.settings)
    if not links.verify(key, expires, signature, utcnow()):
        raise ServiceError(
            error_codes.MEDIA_LINK_SIGNATURE,
            "This media link is not signed for this file, or it expired.",
        )
