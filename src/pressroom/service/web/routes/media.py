"""The media library: folders, files with their facts and previews, browser upload
straight to the presigned URL, move, delete, download."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Request, Response, UploadFile
from fastapi.responses import JSONResponse, RedirectResponse, StreamingResponse

from pressroom.service.deps import DbSession
from pressroom.service.errors import ServiceError
from pressroom.service.folders import service as folders
from pressroom.service.media import service as media
from pressroom.service.media.download import open_download, open_poster
from pressroom.service.media.runtime import Library
from pressroom.service.media.states import PENDING_UPLOAD, PROCESSING
from pressroom.service.web.security import Actor, Viewer, Visitor, WebRoute
from pressroom.service.web.templating import flash, render_page
from pressroom.statuses import DerivativeState

router = APIRouter(route_class=WebRoute, include_in_schema=False)

PAGE = 100


def _library_page(
    request: Request,
    visitor: Visitor,
    db: DbSession,
    folder: str,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    account = visitor.account
    all_folders = folders.list_folders(db, account, limit=PAGE, cursor=None).items
    current = folders.get_folder(db, account, folder) if folder else None
    files = media.list_files(
        db, account, limit=PAGE, cursor=None, folder_id=current.id if current else None
    ).items
    names = {view.folder.id: view.folder.name for view in all_folders}
    derived = media.derivatives_of(db, files)
    making = any(d.status == DerivativeState.PENDING for found in derived.values() for d in found)
    return render_page(
        request,
        "media.html",
        {
            "title": "Media",
            "visitor": visitor,
            "active": "/media",
            "folders": all_folders,
            "current": current,
            "files": files,
            "derived": derived,
            "folder_names": names,
            "busy": making or any(f.status in (PENDING_UPLOAD, PROCESSING) for f in files),
            "errors": errors or {},
        },
        status=status,
    )


@router.get("/media")
def library(request: Request, visitor: Viewer, db: DbSession, folder: str = "") -> Response:
    return _library_page(request, visitor, db, folder)


UPLOAD_FIELD = "upload-file"
"""The file input's id: where the error summary's link leads."""


@router.post("/media")
def upload_form(
    request: Request,
    visitor: Actor,
    db: DbSession,
    folder_id: Annotated[str, Form()] = "",
    file: Annotated[UploadFile | None, File()] = None,
) -> Response:
    """The upload form as the browser sends it when the page's script did not take it
    over: Upload pressed with no file chosen, or a browser without JavaScript. The bytes
    go to storage from the browser only, so the page says what to do instead."""
    if file is None or not file.filename:
        problem = "Choose an image or video to upload."
    else:
        problem = (
            "Uploading from this page needs JavaScript: turn it on and try again, or "
            "upload through the API's presigned URL."
        )
    return _library_page(request, visitor, db, folder_id, {UPLOAD_FIELD: problem}, 400)


@router.post("/media/uploads")
def request_upload(
    request: Request,
    visitor: Actor,
    db: DbSession,
    library: Library,
    filename: Annotated[str, Form()] = "",
    content_type: Annotated[str, Form()] = "",
    folder_id: Annotated[str, Form()] = "",
) -> Response:
    """For the page's script: a presigned URL the browser PUTs the bytes to (errors are
    the API's JSON bodies, as the script asks for JSON)."""
    issued = media.request_upload(
        db,
        library,
        visitor.account,
        filename=filename,
        content_type=content_type,
        folder_id=folder_id or None,
    )
    return JSONResponse({"fileId": issued.file.id, "uploadUrl": issued.upload_url})


@router.post("/media/folders")
def create_folder(
    request: Request, visitor: Actor, db: DbSession, name: Annotated[str, Form()] = ""
) -> Response:
    try:
        view = folders.create_folder(db, visitor.account, name)
    except ServiceError as exc:  # refused before anything was written
        return _library_page(request, visitor, db, "", {"name": exc.message}, exc.status)
    return flash(
        RedirectResponse(f"/media?folder={view.folder.id}", status_code=303),
        f"Folder {view.folder.name} created.",
    )


@router.post("/media/folders/{folder_id}/rename")
def rename_folder(
    request: Request,
    visitor: Actor,
    db: DbSession,
    folder_id: str,
    rename: Annotated[str, Form()] = "",
) -> Response:
    try:
        view = folders.rename_folder(db, visitor.account, folder_id, rename)
    except ServiceError as exc:  # refused before anything was written
        return _library_page(request, visitor, db, folder_id, {"rename": exc.message}, exc.status)
    return flash(
        RedirectResponse(f"/media?folder={folder_id}", status_code=303),
        f"Folder renamed to {view.folder.name}.",
    )


@router.get("/media/folders/{folder_id}/delete")
def delete_folder_confirm(
    request: Request, visitor: Viewer, db: DbSession, folder_id: str
) -> Response:
    folder = folders.get_folder(db, visitor.account, folder_id)
    count = len(
        media.list_files(db, visitor.account, limit=PAGE, cursor=None, folder_id=folder.id).items
    )
    return render_page(
        request,
        "confirm.html",
        {
            "title": f"Delete folder {folder.name}?",
            "visitor": visitor,
            "active": "/media",
            "warning": f"The folder and the {count} file{'s' if count != 1 else ''} in it are "
            "deleted for good, bytes included. This cannot be undone.",
            "action": f"/media/folders/{folder.id}/delete",
            "confirm": "Delete folder and files",
            "cancel": f"/media?folder={folder.id}",
        },
    )


@router.post("/media/folders/{folder_id}/delete")
def delete_folder(visitor: Actor, db: DbSession, library: Library, folder_id: str) -> Response:
    count = folders.delete_folder(db, library, visitor.account, folder_id)
    return flash(
        RedirectResponse("/media", status_code=303),
        f"Folder deleted with {count} file{'s' if count != 1 else ''}.",
    )


@router.post("/media/files/{file_id}/move")
def move_file(
    visitor: Actor, db: DbSession, file_id: str, folder_id: Annotated[str, Form()] = ""
) -> Response:
    file = media.move_file(db, visitor.account, file_id, folder_id or None)
    return flash(
        RedirectResponse(f"/media?folder={folder_id}", status_code=303),
        f"Moved {file.filename}.",
    )


@router.get("/media/files/{file_id}/delete")
def delete_file_confirm(request: Request, visitor: Viewer, db: DbSession, file_id: str) -> Response:
    file = media.get_file(db, visitor.account, file_id)
    return render_page(
        request,
        "confirm.html",
        {
            "title": f"Delete {file.filename}?",
            "visitor": visitor,
            "active": "/media",
            "warning": "The file and its bytes are deleted for good; its download then "
            "answers 404. Posts already published keep their copy on the platform.",
            "action": f"/media/files/{file.id}/delete",
            "confirm": "Delete file",
            "cancel": "/media",
        },
    )


@router.post("/media/files/{file_id}/delete")
def delete_file(visitor: Actor, db: DbSession, library: Library, file_id: str) -> Response:
    file = media.get_file(db, visitor.account, file_id)
    media.delete_file(db, library, visitor.account, file_id)
    return flash(RedirectResponse("/media", status_code=303), f"Deleted {file.filename}.")


@router.get("/media/files/{file_id}/download")
def download(
    request: Request, visitor: Viewer, db: DbSession, library: Library, file_id: str
) -> Response:
    file = media.get_file(db, visitor.account, file_id)
    found = open_download(library, file, request.headers.get("Range"))
    headers = dict(found.headers)
    if request.query_params.get("save"):
        headers["Content-Disposition"] = headers["Content-Disposition"].replace(
            "inline", "attachment", 1
        )
    return StreamingResponse(
        found.body, status_code=found.status, headers=headers, media_type=found.content_type
    )


@router.get("/media/files/{file_id}/poster")
def poster(visitor: Viewer, db: DbSession, library: Library, file_id: str) -> Response:
    """The still shown for a video in the library, made when the video was processed."""
    found = open_poster(library, media.get_file(db, visitor.account, file_id))
    return StreamingResponse(
        found.body, status_code=found.status, headers=found.headers, media_type=found.content_type
    )
