"""Request and response bodies of folders."""

from __future__ import annotations

from pydantic import Field

from pressroom.service.media.schemas import Success
from pressroom.service.schemas import CamelModel, RequestModel, Timestamp
from pressroom.service.text_rules import NAME

MAX_NAME = 200


class FolderName(RequestModel):
    name: str = Field(
        description=f"Display name, 1 to {MAX_NAME} characters, not all spaces, without "
        "control characters; surrounding spaces are dropped.",
        json_schema_extra={"minLength": 1, "maxLength": MAX_NAME, "pattern": NAME},
    )


class FolderOut(CamelModel):
    id: str
    name: str
    created_at: Timestamp
    file_count: int


class FolderResponse(FolderOut, Success):
    pass


class FolderList(CamelModel):
    success: bool = True
    folders: list[FolderOut]
    next_cursor: str | None = Field(
        description="Pass as `cursor` for the next page; null at the end."
    )


class DeletedFolder(CamelModel):
    success: bool = True
    folder_id: str
    deleted: bool = True
    deleted_files: int = Field(description="How many files were deleted with the folder.")
