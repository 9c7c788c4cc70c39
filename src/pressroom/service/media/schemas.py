"""Request and response bodies of the media library."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ConfigDict, Field, JsonValue

from pressroom.platforms import Platform
from pressroom.probe import DOCUMENT_TYPES, IMAGE_TYPES, VIDEO_TYPES, FileKind
from pressroom.service.db.models import Derivative, File
from pressroom.service.media import states
from pressroom.service.schemas import CamelModel, RequestModel, Timestamp
from pressroom.service.text_rules import filename_pattern
from pressroom.statuses import DerivativeState

ACCEPTED_TYPES = {**IMAGE_TYPES, **VIDEO_TYPES, **DOCUMENT_TYPES}
"""Content type -> (its format's name, the filename extensions that fit it). PDFs are our
extension: the file of a document post (``format: document`` on professional_network)."""
MAX_FILENAME = 255


def _extension_fits_content_type() -> JsonValue:
    """The rule across the two fields, as JSON Schema states it: one branch per
    contentType, with the filename extensions that fit it (the table the service checks).
    Exactly one branch holds for any contentType, so a generator picks one and needs no
    retries; an ``if``/``then`` per type says the same, but a generator must then satisfy
    every pair at once and discards nearly all it draws (schemathesis gave up on it)."""
    return [
        {
            "properties": {
                "contentType": {"const": content_type},
                "filename": {"pattern": filename_pattern(list(exts))},
            }
        }
        for content_type, (_, exts) in ACCEPTED_TYPES.items()
    ]


class PresignRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra={"oneOf": _extension_fits_content_type()})

    filename: str = Field(
        description=f"The file's name, at most {MAX_FILENAME} characters, without control "
        "characters, with an extension that fits contentType.",
        json_schema_extra={
            "minLength": 1,
            "maxLength": MAX_FILENAME,
        },
    )
    content_type: str = Field(
        description="image/jpeg, image/png, image/gif, image/webp, video/mp4, "
        "video/quicktime or video/webm; or (our extension) application/pdf, the file of a "
        "professional_network document post (`format: document`).",
        json_schema_extra={"enum": list(ACCEPTED_TYPES)},
    )
    folder_id: str | None = Field(None, description="Put the file in this folder.")


class PresignResponse(CamelModel):
    success: bool = True
    file_id: str
    upload_url: str = Field(
        description="PUT the raw bytes here with the same Content-Type and no X-API-Key."
    )
    expires_at: Timestamp


class DerivedFile(CamelModel):
    """The file converted for one network (our extension): made when a post first needs
    it, sent in the original's place to that network, the original left as it is."""

    network: str = Field(
        description="The label it is made for.",
        json_schema_extra={"enum": [p.value for p in Platform]},
    )
    profile: str = Field(
        description="What it is made to meet, `{label}.{image|video|thumbnail}`, with "
        "`.pad` or `.crop` when its shape was changed: `photo_sharing.image`."
    )
    status: str = Field(
        description="pending (being made: a publish answers 409 `file_not_ready` with "
        "`Retry-After`), ready, or failed (with failureReason).",
        json_schema_extra={"enum": list(DerivativeState)},
    )
    content_type: str | None = Field(description="Once ready: image/jpeg, video/mp4, ...")
    size: int | None = Field(description="Bytes, once ready.")
    width: int | None
    height: int | None
    failure_reason: str | None = Field(
        description="Why it could not be made: the bound it hit, or the rule it could not meet."
    )

    @classmethod
    def of(cls, derivative: Derivative) -> DerivedFile:
        return cls(
            network=derivative.network,
            profile=derivative.profile,
            status=derivative.status,
            content_type=derivative.content_type,
            size=derivative.size,
            width=derivative.width,
            height=derivative.height,
            failure_reason=derivative.failure_reason,
        )


class FileStatus(CamelModel):
    """A file record: media facts are null until the file is probed."""

    file_id: str
    status: str = Field(
        description="pending_upload, processing, ready or failed.",
        json_schema_extra={"enum": list(states.ALL)},
    )
    kind: str = Field(
        description="image or video; document for a PDF (our extension).",
        json_schema_extra={"enum": list(FileKind)},
    )
    content_type: str
    size: int | None = Field(description="Bytes, once the upload has arrived.")
    filename: str
    folder_id: str | None
    created_at: Timestamp
    duration_seconds: float | None
    width: int | None
    height: int | None
    media_format: str | None = Field(
        description="What probing found: the image format, the video's container / codec, "
        "or a document's format and version (`PDF 1.7`)."
    )
    pages: int | None = Field(
        None,
        description="Our extension: a document's page count, once read; null for images "
        "and videos.",
    )
    failure_reason: str | None
    sha256: str | None = Field(
        description="Our extension: hex SHA-256 of the bytes, once they have arrived "
        "(local storage) or been processed (S3)."
    )
    derivatives: list[DerivedFile] = Field(
        default_factory=list,
        description="Our extension: the file converted for networks that would refuse it "
        "as it is (a PNG made JPEG for photo_sharing), one per network profile, made by the "
        "first post that needs it.",
    )

    @classmethod
    def of(cls, file: File, derivatives: Sequence[Derivative] = ()) -> FileStatus:
        return cls(
            file_id=file.id,
            status=file.status,
            kind=file.kind,
            content_type=file.content_type,
            size=file.size,
            filename=file.filename,
            folder_id=file.folder_id,
            created_at=file.created_at,
            duration_seconds=file.duration_seconds,
            width=file.width,
            height=file.height,
            media_format=file.media_format,
            pages=file.pages,
            failure_reason=file.failure_reason,
            sha256=file.sha256,
            derivatives=[DerivedFile.of(d) for d in derivatives],
        )


class Success(CamelModel):
    success: bool = True


class FileStatusResponse(FileStatus, Success):
    @classmethod
    def of(cls, file: File, derivatives: Sequence[Derivative] = ()) -> FileStatusResponse:
        return cls(success=True, **FileStatus.of(file, derivatives).model_dump())


class FileList(CamelModel):
    success: bool = True
    files: list[FileStatus]
    next_cursor: str | None = Field(
        description="Pass as `cursor` for the next page; null at the end."
    )


class MoveFileRequest(RequestModel):
    folder_id: str | None = Field(description="The folder to put the file in; null takes it out.")


class DeletedFile(CamelModel):
    success: bool = True
    file_id: str
    deleted: bool = True
