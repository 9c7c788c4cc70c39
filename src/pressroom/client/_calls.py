"""Every endpoint of the spec (and pressroom's extensions), described once as a ``Call``."""

from __future__ import annotations

from urllib.parse import quote

from pressroom.client._base import (
    Call,
    model_parser,
    page_params,
    parse_connections,
    with_meta,
)
from pressroom.client.models import (
    ApiKey,
    Connection,
    Deleted,
    FilePage,
    FileStatus,
    Folder,
    FolderNameRequest,
    FolderPage,
    MicroblogConnections,
    MoveFileRequest,
    Post,
    PostPage,
    PresignedUpload,
    PresignRequest,
    PublishRequest,
    PublishResult,
    ThumbnailRequest,
    ThumbnailResult,
)
from pressroom.platforms import THUMBNAIL_PATH, Platform


def _seg(value: str) -> str:
    return quote(str(value), safe="")


def _idempotency(key: str | None) -> dict[str, str]:
    return {"Idempotency-Key": key} if key is not None else {}


# --- media (spec 4.1) ----------------------------------------------------------------


def presign(*, filename: str, content_type: str, folder_id: str | None) -> Call[PresignedUpload]:
    body = PresignRequest(filename=filename, content_type=content_type, folder_id=folder_id)
    return Call(
        "POST", "/api/upload/presigned-url", model_parser(PresignedUpload), json=body.body()
    )


def file_status(file_id: str) -> Call[FileStatus]:
    return Call(
        "GET",
        f"/api/upload/status/{_seg(file_id)}",
        model_parser(FileStatus, key="file", defaults={"fileId": file_id}),
    )


def list_files(*, limit: int | None, cursor: str | None) -> Call[FilePage]:
    return Call(
        "GET",
        "/api/upload/files",
        model_parser(FilePage),
        params=page_params(limit=limit, cursor=cursor),
    )


FIND_BY_CONTENT_PAGE = 200
"""One page is asked for: a service without the look-up lists every file, newest first,
and none of them carries a matching ``sha256``."""


def find_files(*, sha256: str) -> Call[FilePage]:
    return Call(
        "GET",
        "/api/upload/files",
        model_parser(FilePage),
        params={"sha256": sha256, "limit": FIND_BY_CONTENT_PAGE},
    )


def latest_file() -> Call[FileStatus]:
    return Call("GET", "/api/upload/latest", model_parser(FileStatus, key="file"))


def download_path(file_id: str) -> str:
    return f"/api/upload/direct/{_seg(file_id)}"


def delete_file(file_id: str) -> Call[Deleted]:
    return Call("DELETE", f"/api/upload/file/{_seg(file_id)}", model_parser(Deleted))


def move_file(file_id: str, *, folder_id: str | None) -> Call[FileStatus]:
    return Call(
        "PATCH",
        f"/api/upload/file/{_seg(file_id)}",
        model_parser(FileStatus, key="file", defaults={"fileId": file_id, "folderId": folder_id}),
        json=MoveFileRequest(folder_id=folder_id).body(),
    )


# --- folders (spec 4.2) --------------------------------------------------------------


def list_folders(*, limit: int | None, cursor: str | None) -> Call[FolderPage]:
    return Call(
        "GET",
        "/api/upload/folders",
        model_parser(FolderPage),
        params=page_params(limit=limit, cursor=cursor),
    )


def create_folder(*, name: str) -> Call[Folder]:
    return Call(
        "POST",
        "/api/upload/folders",
        model_parser(Folder, key="folder", defaults={"name": name}),
        json=FolderNameRequest(name=name).body(),
    )


def folder_files(folder_id: str, *, limit: int | None, cursor: str | None) -> Call[FilePage]:
    return Call(
        "GET",
        f"/api/upload/folders/{_seg(folder_id)}/files",
        model_parser(FilePage),
        params=page_params(limit=limit, cursor=cursor),
    )


def rename_folder(folder_id: str, *, name: str) -> Call[Folder]:
    return Call(
        "PATCH",
        f"/api/upload/folders/{_seg(folder_id)}",
        model_parser(Folder, key="folder", defaults={"id": folder_id, "name": name}),
        json=FolderNameRequest(name=name).body(),
    )


def delete_folder(folder_id: str) -> Call[Deleted]:
    return Call("DELETE", f"/api/upload/folders/{_seg(folder_id)}", model_parser(Deleted))


# --- connections (spec 4.3) ----------------------------------------------------------


def unified_connections() -> Call[list[Connection]]:
    return Call("GET", "/api/connections/unified", parse_connections)


def microblog_connections() -> Call[MicroblogConnections]:
    return Call("GET", "/api/v2/microblog/connections", model_parser(MicroblogConnections))


# --- publishing (spec 4.4) -----------------------------------------------------------


def publish(request: PublishRequest, *, idempotency_key: str | None) -> Call[PublishResult]:
    parse = model_parser(
        PublishResult,
        defaults={"platform": request.platform_label.value, "connectionId": request.connection_id},
    )
    return Call(
        "POST",
        request.path,
        with_meta(parse, idempotency_key),
        json=request.body(),
        headers=_idempotency(idempotency_key),
    )


def set_thumbnail(
    video_id: str, *, thumbnail_file_id: str, idempotency_key: str | None
) -> Call[ThumbnailResult]:
    parse = model_parser(ThumbnailResult, defaults={"videoId": video_id})
    return Call(
        "POST",
        THUMBNAIL_PATH.format(videoId=_seg(video_id)),
        with_meta(parse, idempotency_key),
        json=ThumbnailRequest(thumbnail_file_id=thumbnail_file_id).body(),
        headers=_idempotency(idempotency_key),
    )


# --- posts read-back (pressroom's extension) -----------------------------------------


def list_posts(
    *,
    connection_id: str | None,
    platform: Platform | str | None,
    idempotency_key: str | None,
    limit: int | None,
    cursor: str | None,
) -> Call[PostPage]:
    params = page_params(
        connection_id=connection_id,
        platform=Platform(platform).value if platform is not None else None,
        idempotency_key=idempotency_key,
        limit=limit,
        cursor=cursor,
    )
    return Call("GET", "/api/posts", model_parser(PostPage), params=params)


def get_post(record_id: str) -> Call[Post]:
    return Call(
        "GET",
        f"/api/posts/{_seg(record_id)}",
        model_parser(Post, key="post", defaults={"recordId": record_id}),
    )


# --- API key (spec 4.5) --------------------------------------------------------------


def get_api_key() -> Call[ApiKey]:
    return Call("GET", "/api/user/api-key", model_parser(ApiKey))


def rotate_api_key() -> Call[ApiKey]:
    return Call("POST", "/api/user/api-key", model_parser(ApiKey))
