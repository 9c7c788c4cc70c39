"""The client's methods, written once: one method per endpoint, its request beside it.

``_async.py`` (``AsyncClient``, for asyncio or trio) is the source; ``_sync.py``
(``Client``, blocking) is generated from it by ``python scripts/unasync.py``. Edit only
``_async.py``, then run the generator; ``_synchronization.py`` holds what differs in more
than names.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import anyio
import httpx

from pressroom.client import errors, models
from pressroom.client._base import (
    DEFAULT_CONNECTIONS_TTL,
    DEFAULT_POLL_INTERVAL,
    DEFAULT_READY_TIMEOUT,
    Cached,
    ClientCore,
    idempotency_headers,
    instant,
    log_response,
    model_parser,
    page_params,
    parse_connections,
    plain_request,
    resolve_settings,
    segment,
    transport_error,
    with_meta,
)
from pressroom.client._synchronization import AsyncLock, AsyncPageFetch
from pressroom.client.upload import (
    ProgressCallback,
    ReadyWait,
    Source,
    UploadSource,
    bytes_reporter,
)
from pressroom.platforms import THUMBNAIL_PATH, Platform, PostFormat
from pressroom.tls import client_context

T = TypeVar("T")
log = logging.getLogger("pressroom.client")
P = TypeVar("P")
Item = TypeVar("Item")
_MAX_REDIRECTS = 5
FIND_BY_CONTENT_PAGE = 200
"""``find_files`` asks for one page: a service without the look-up lists every file,
newest first, and none of them carries a matching ``sha256``."""


class AsyncClient(ClientCore):
    """The pressroom API, one method per endpoint (awaited on ``AsyncClient``).

    ``base_url`` and ``api_key`` default to ``PRESSROOM_BASE_URL`` and
    ``PRESSROOM_API_KEY``. Pass ``http_client`` to bring your own httpx client of the same
    kind (a proxy, custom TLS, or a transport over the app in tests); it is then yours to
    close. ``max_retries`` (default 0) retries transient errors that are safe to send
    again, after their ``Retry-After``. Use it as a context manager (``async with`` for ``AsyncClient``), or close it
    when done (``close()``; ``aclose()`` on ``AsyncClient``). One blocking ``Client`` may
    be shared between threads.
    """

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        http_client: httpx.AsyncClient | None = None,
        timeout: float | httpx.Timeout | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        ready_timeout: float = DEFAULT_READY_TIMEOUT,
        connections_ttl: float = DEFAULT_CONNECTIONS_TTL,
        max_retries: int = 0,
    ) -> None:
        self._settings = resolve_settings(
            base_url=base_url,
            api_key=api_key,
            http_client=http_client,
            timeout=timeout,
            poll_interval=poll_interval,
            ready_timeout=ready_timeout,
            connections_ttl=connections_ttl,
            max_retries=max_retries,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(
            timeout=self._settings.timeout, verify=client_context()
        )
        self._cache_lock = AsyncLock()
        self._unified: Cached[list[models.Connection]] | None = None
        self._microblog: Cached[models.MicroblogConnections] | None = None

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # --- sending ---------------------------------------------------------------------

    def _timeout(self) -> httpx.Timeout:
        """Ours, or an injected client's own when none was given."""
        return self._settings.timeout or self._http.timeout

    async def _send(self, request: httpx.Request, *, stream: bool = False) -> httpx.Response:
        started = time.monotonic()
        try:
            response = await self._http.send(request, stream=stream, follow_redirects=False)
        except httpx.TransportError as exc:
            raise transport_error(exc, request) from exc
        log_response(response, started)
        return response

    async def _call(
        self,
        method: str,
        path: str,
        parse: Callable[[httpx.Response], T],
        *,
        params: Mapping[str, str | int] | None = None,
        json: object = None,
        headers: Mapping[str, str] | None = None,
    ) -> T:
        """Send one request to the API and read its answer with ``parse``, or raise;
        with ``max_retries``, retry what is transient and safe to send again."""
        attempt = 0
        while True:
            request = self._http.build_request(
                method,
                self._url(path),
                params=params,
                json=json,
                headers=self._headers(headers),
                timeout=self._timeout(),
            )
            try:
                return self._read(parse, await self._send(request))
            except errors.PressroomError as exc:
                delay = self._retry_delay(exc, attempt, request)
                if delay is None:
                    raise
            log.info("retrying %s %s in %.1f s", method, path, delay)
            await anyio.sleep(delay)
            attempt += 1

    async def _pages(
        self,
        page: AsyncPageFetch[P],
        split: Callable[[P], tuple[list[Item], str | None]],
    ) -> AsyncIterator[Item]:
        """Items of every page; stops at a missing or repeated cursor."""
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            items, cursor = split(await page(cursor))
            for item in items:
                yield item
            if not cursor or cursor in seen:
                return
            seen.add(cursor)

    # --- media (spec 4.1) ------------------------------------------------------------

    async def presign(
        self, *, filename: str, content_type: str, folder_id: str | None = None
    ) -> models.PresignedUpload:
        """Step one of an upload: a file id and a short-lived address to PUT the bytes to."""
        body = models.PresignRequest(
            filename=filename, content_type=content_type, folder_id=folder_id
        )
        return await self._call(
            "POST",
            "/api/upload/presigned-url",
            model_parser(models.PresignedUpload),
            json=body.body(),
        )

    async def put_file(
        self,
        upload: models.PresignedUpload,
        source: Source,
        *,
        filename: str | None = None,
        content_type: str | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> None:
        """Step two: stream the bytes to the presigned address (no API key is sent)."""
        what = UploadSource.of(source, filename=filename, content_type=content_type)
        await self._put(upload, what, on_progress)

    async def _put(
        self,
        upload: models.PresignedUpload,
        what: UploadSource,
        on_progress: ProgressCallback | None,
    ) -> None:
        sent = bytes_reporter(upload.file_id, what.size, on_progress)
        request = plain_request(
            self._http,
            "PUT",
            self._absolute(upload.upload_url),
            headers={"Content-Type": what.content_type, "Content-Length": str(what.size)},
            content=what.achunks(sent),
            timeout=self._timeout(),
        )
        response = await self._send(request)
        if not response.is_success:
            raise self._error(response)

    async def upload(
        self,
        source: Source,
        *,
        filename: str | None = None,
        content_type: str | None = None,
        folder_id: str | None = None,
        wait: bool = True,
        poll_interval: float | None = None,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> models.FileStatus:
        """Upload a file (a path, streamed from disk, or bytes with ``filename=``).

        Presigns, PUTs the bytes with their Content-Type (guessed from the name unless
        given), then, with ``wait`` (the default), polls until the file is ready.
        Returns the file's status; raises ``FileProcessingFailed`` or ``UploadTimeout``.
        """
        what = UploadSource.of(source, filename=filename, content_type=content_type)
        upload = await self.presign(
            filename=what.filename, content_type=what.content_type, folder_id=folder_id
        )
        await self._put(upload, what, on_progress)
        if not wait:
            return await self.file_status(upload.file_id)
        return await self.wait_until_ready(
            upload.file_id,
            poll_interval=poll_interval,
            timeout=timeout,
            on_progress=on_progress,
            size=what.size,
        )

    async def wait_until_ready(
        self,
        file_id: str,
        *,
        poll_interval: float | None = None,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        size: int = 0,
    ) -> models.FileStatus:
        """Poll the status until the file is ready; raise if it fails or time runs out."""
        wait = ReadyWait(
            str(file_id),
            interval=self._settings.poll_interval if poll_interval is None else poll_interval,
            timeout=self._settings.ready_timeout if timeout is None else timeout,
            on_progress=on_progress,
            size=size,
        )
        while True:
            try:
                status = await self.file_status(file_id)
            except errors.PressroomError as exc:
                delay = wait.after_error(exc)
            else:
                if (pause := wait.after_status(status)) is None:
                    return status
                delay = pause
            await anyio.sleep(delay)

    async def file_status(self, file_id: str) -> models.FileStatus:
        return await self._call(
            "GET",
            f"/api/upload/status/{segment(file_id)}",
            model_parser(models.FileStatus, key="file", defaults={"fileId": file_id}),
        )

    async def list_files(
        self, *, limit: int | None = None, cursor: str | None = None
    ) -> models.FilePage:
        """One page of the account's files, newest first."""
        return await self._call(
            "GET",
            "/api/upload/files",
            model_parser(models.FilePage),
            params=page_params(limit=limit, cursor=cursor),
        )

    def iter_files(self, *, page_size: int | None = None) -> AsyncIterator[models.FileStatus]:
        """Every file, page by page."""
        return self._pages(
            lambda cursor: self.list_files(limit=page_size, cursor=cursor),
            lambda page: (page.files, page.next_cursor),
        )

    async def find_files(self, *, sha256: str) -> list[models.FileStatus]:
        """Ready files whose bytes have this SHA-256, newest first: how a run finds media it
        uploaded before, from any machine.

        ``GET /api/upload/files?sha256=`` is pressroom's extension; a service without it
        ignores the query and lists every file, so each entry's ``sha256`` is checked here
        and an empty list is the honest answer there.
        """
        wanted = sha256.lower()
        page = await self._call(
            "GET",
            "/api/upload/files",
            model_parser(models.FilePage),
            params={"sha256": wanted, "limit": FIND_BY_CONTENT_PAGE},
        )
        return [f for f in page.files if f.is_ready and (f.sha256 or "").lower() == wanted]

    async def latest_file(self) -> models.FileStatus:
        """The most recent upload; ``NotFoundError`` (``no_files``) when there is none."""
        return await self._call(
            "GET", "/api/upload/latest", model_parser(models.FileStatus, key="file")
        )

    async def download(self, file_id: str) -> bytes:
        """The file's bytes, in memory; see ``download_to`` for large files."""
        response = await self._open_download(file_id)
        try:
            return await response.aread()
        finally:
            await response.aclose()

    async def download_to(self, file_id: str, path: str | os.PathLike[str]) -> Path:
        """Stream the file to ``path`` (written beside it, then moved into place)."""
        target = Path(path)
        partial = target.with_name(target.name + ".part")
        response = await self._open_download(file_id)
        try:
            with partial.open("wb") as out:
                async for chunk in response.aiter_bytes():
                    out.write(chunk)
        except httpx.TransportError as exc:
            partial.unlink(missing_ok=True)
            raise transport_error(exc, response.request) from exc
        finally:
            await response.aclose()
        partial.replace(target)
        return target

    async def _open_download(self, file_id: str) -> httpx.Response:
        request = self._http.build_request(
            "GET",
            self._url(f"/api/upload/direct/{segment(file_id)}"),
            headers=self._headers({"Accept": "*/*"}),
            timeout=self._timeout(),
        )
        response = await self._send(request, stream=True)
        # Redirects are followed by hand, without the key: they may lead to storage.
        for _ in range(_MAX_REDIRECTS):
            if not response.has_redirect_location:
                break
            target = response.request.url.join(response.headers["location"])
            await response.aclose()
            response = await self._send(
                plain_request(self._http, "GET", str(target), timeout=self._timeout()),
                stream=True,
            )
        if not response.is_success:
            await response.aread()
            await response.aclose()
            raise self._error(response)
        return response

    async def delete_file(self, file_id: str) -> models.Deleted:
        """Delete the file and its bytes for good."""
        return await self._call(
            "DELETE", f"/api/upload/file/{segment(file_id)}", model_parser(models.Deleted)
        )

    async def move_file(self, file_id: str, *, folder_id: str | None) -> models.FileStatus:
        """Put the file in a folder, or take it out of any with ``folder_id=None``."""
        parse = model_parser(
            models.FileStatus, key="file", defaults={"fileId": file_id, "folderId": folder_id}
        )
        return await self._call(
            "PATCH",
            f"/api/upload/file/{segment(file_id)}",
            parse,
            json=models.MoveFileRequest(folder_id=folder_id).body(),
        )

    # --- folders (spec 4.2) ----------------------------------------------------------

    async def list_folders(
        self, *, limit: int | None = None, cursor: str | None = None
    ) -> models.FolderPage:
        return await self._call(
            "GET",
            "/api/upload/folders",
            model_parser(models.FolderPage),
            params=page_params(limit=limit, cursor=cursor),
        )

    def iter_folders(self, *, page_size: int | None = None) -> AsyncIterator[models.Folder]:
        return self._pages(
            lambda cursor: self.list_folders(limit=page_size, cursor=cursor),
            lambda page: (page.folders, page.next_cursor),
        )

    async def create_folder(self, *, name: str) -> models.Folder:
        return await self._call(
            "POST",
            "/api/upload/folders",
            model_parser(models.Folder, key="folder", defaults={"name": name}),
            json=models.FolderNameRequest(name=name).body(),
        )

    async def list_folder_files(
        self, folder_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> models.FilePage:
        return await self._call(
            "GET",
            f"/api/upload/folders/{segment(folder_id)}/files",
            model_parser(models.FilePage),
            params=page_params(limit=limit, cursor=cursor),
        )

    def iter_folder_files(
        self, folder_id: str, *, page_size: int | None = None
    ) -> AsyncIterator[models.FileStatus]:
        return self._pages(
            lambda cursor: self.list_folder_files(folder_id, limit=page_size, cursor=cursor),
            lambda page: (page.files, page.next_cursor),
        )

    async def rename_folder(self, folder_id: str, *, name: str) -> models.Folder:
        parse = model_parser(models.Folder, key="folder", defaults={"id": folder_id, "name": name})
        return await self._call(
            "PATCH",
            f"/api/upload/folders/{segment(folder_id)}",
            parse,
            json=models.FolderNameRequest(name=name).body(),
        )

    async def delete_folder(self, folder_id: str) -> models.Deleted:
        """Delete the folder and every file in it, for good."""
        return await self._call(
            "DELETE", f"/api/upload/folders/{segment(folder_id)}", model_parser(models.Deleted)
        )

    # --- connections (spec 4.3), cached ------------------------------------------------

    async def list_connections(self, *, refresh: bool = False) -> list[models.Connection]:
        """Every connection on all platforms, cached for ``connections_ttl`` seconds.

        The call counts against the API quota; ``refresh=True`` fetches anew.
        """
        async with self._cache_lock:
            cached = self._unified
            if refresh or cached is None or not cached.fresh(self._settings.connections_ttl):
                connections = await self._call("GET", "/api/connections/unified", parse_connections)
                cached = Cached(connections, time.monotonic())
                self._unified = cached
            return list(cached.value)

    async def refresh_connections(self) -> list[models.Connection]:
        """Fetch the connection list anew (and cache it)."""
        return await self.list_connections(refresh=True)

    async def connections_for(
        self, platform: Platform | str, *, active_only: bool = True, refresh: bool = False
    ) -> list[models.Connection]:
        """The cached connections of one platform; entries without a status count as active."""
        label = Platform(platform).value
        return [
            c
            for c in await self.list_connections(refresh=refresh)
            if c.platform == label and (c.is_active or not active_only)
        ]

    async def microblog_connections(self, *, refresh: bool = False) -> models.MicroblogConnections:
        """The active microblog connections, cached like ``list_connections``."""
        async with self._cache_lock:
            cached = self._microblog
            if refresh or cached is None or not cached.fresh(self._settings.connections_ttl):
                found = await self._call(
                    "GET",
                    "/api/v2/microblog/connections",
                    model_parser(models.MicroblogConnections),
                )
                cached = Cached(found, time.monotonic())
                self._microblog = cached
            return cached.value.model_copy(deep=True)

    # --- publishing (spec 4.4) ---------------------------------------------------------

    async def publish_request(
        self, request: models.PublishRequest, *, idempotency_key: str | None = None
    ) -> models.PublishResult:
        """Send a publish body built beforehand (see ``build_publish_request``)."""
        parse = model_parser(
            models.PublishResult,
            defaults={
                "platform": request.platform_label.value,
                "connectionId": request.connection_id,
            },
        )
        return await self._call(
            "POST",
            request.path,
            with_meta(parse, idempotency_key),
            json=request.body(),
            headers=idempotency_headers(idempotency_key),
        )

    async def publish(
        self,
        platform: Platform | str,
        *,
        connection_id: str,
        idempotency_key: str | None = None,
        **fields: models.PublishField,
    ) -> models.PublishResult:
        """Publish to any platform with its snake_case fields (``text``, ``file_id``, ...;
        ``thread``, the texts of a thread's later parts, on microblog and text_thread;
        ``file_ids``, a carousel's files in order, where the label takes carousels).

        A field the platform does not take raises ``ValueError`` before anything is sent.
        """
        request = models.build_publish_request(platform, connection_id=connection_id, **fields)
        return await self.publish_request(request, idempotency_key=idempotency_key)

    async def publish_microblog(
        self,
        *,
        connection_id: str,
        text: str,
        thread: Sequence[str] | None = None,
        idempotency_key: str | None = None,
    ) -> models.PublishResult:
        """``thread`` (pressroom's extension) makes the post a thread: the texts of the
        parts after the first, each a reply to the one before; the result's ``parts``
        lists them. A later part refused raises with ``.parts`` and ``.partial``; the
        same call with the same ``idempotency_key`` resumes after the parts that stand."""
        return await self.publish(
            Platform.MICROBLOG,
            connection_id=connection_id,
            idempotency_key=idempotency_key,
            text=text,
            thread=thread,
        )

    async def publish_video_sharing(
        self,
        *,
        connection_id: str,
        file_id: str,
        title: str,
        description: str | None = None,
        privacy_status: str | None = None,
        made_for_kids: bool | None = None,
        idempotency_key: str | None = None,
    ) -> models.PublishResult:
        """``made_for_kids`` is pressroom's extension (the owner's declaration)."""
        return await self.publish(
            Platform.VIDEO_SHARING,
            connection_id=connection_id,
            idempotency_key=idempotency_key,
            file_id=file_id,
            title=title,
            description=description,
            privacy_status=privacy_status,
            made_for_kids=made_for_kids,
        )

    async def set_video_thumbnail(
        self, video_id: str, *, thumbnail_file_id: str, idempotency_key: str | None = None
    ) -> models.ThumbnailResult:
        """Set a published video's thumbnail (verified channels only)."""
        parse = model_parser(models.ThumbnailResult, defaults={"videoId": video_id})
        return await self._call(
            "POST",
            THUMBNAIL_PATH.format(videoId=segment(video_id)),
            with_meta(parse, idempotency_key),
            json=models.ThumbnailRequest(thumbnail_file_id=thumbnail_file_id).body(),
            headers=idempotency_headers(idempotency_key),
        )

    async def publish_short_video(
        self,
        *,
        connection_id: str,
        file_id: str | None = None,
        caption: str | None = None,
        privacy_level: str | None = None,
        allow_comments: bool | None = None,
        allow_duet: bool | None = None,
        allow_stitch: bool | None = None,
        format: PostFormat | None = None,
        file_ids: Sequence[str] | None = None,
        idempotency_key: str | None = None,
    ) -> models.PublishResult:
        """``privacy_level`` and the ``allow_*`` choices are pressroom's extensions (TikTok
        has the owner make them; the hosted service may not take them). ``format``
        ``photo`` (pressroom's extension) makes a photo post of the image ``file_id`` or
        the images ``file_ids``, in order."""
        return await self.publish(
            Platform.SHORT_VIDEO,
            connection_id=connection_id,
            idempotency_key=idempotency_key,
            file_id=file_id,
            file_ids=file_ids,
            format=format,
            caption=caption,
            privacy_level=privacy_level,
            allow_comments=allow_comments,
            allow_duet=allow_duet,
            allow_stitch=allow_stitch,
        )

    async def publish_photo_sharing(
        self,
        *,
        connection_id: str,
        file_id: str | None = None,
        file_ids: Sequence[str] | None = None,
        caption: str | None = None,
        format: PostFormat | None = None,
        file_alts: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> models.PublishResult:
        """``file_ids`` (pressroom's extension) makes the post a carousel: its files in
        order, in place of ``file_id``; the result's ``parts`` lists the carousel, then
        its items where the network names them. ``format`` (pressroom's extension)
        ``story`` or ``reel`` makes a story (one file, no caption) or a reel (one video)."""
        return await self.publish(
            Platform.PHOTO_SHARING,
            connection_id=connection_id,
            idempotency_key=idempotency_key,
            file_id=file_id,
            file_alts=file_alts,
            file_ids=file_ids,
            caption=caption,
            format=format,
        )

    async def publish_page_social(
        self,
        *,
        connection_id: str,
        file_id: str | None = None,
        file_ids: Sequence[str] | None = None,
        message: str | None = None,
        format: PostFormat | None = None,
        file_alts: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> models.PublishResult:
        """``file_ids`` (pressroom's extension) makes the post a carousel: its files in
        order, in place of ``file_id``; the result's ``parts`` lists the carousel, then
        its items where the network names them. ``format`` (pressroom's extension)
        ``story`` or ``reel`` makes a story (one file, no message) or a reel (one video)."""
        return await self.publish(
            Platform.PAGE_SOCIAL,
            connection_id=connection_id,
            idempotency_key=idempotency_key,
            file_id=file_id,
            file_alts=file_alts,
            file_ids=file_ids,
            message=message,
            format=format,
        )

    async def publish_pin_board(
        self,
        *,
        connection_id: str,
        file_id: str | None = None,
        file_ids: Sequence[str] | None = None,
        board_id: str,
        title: str | None = None,
        description: str | None = None,
        file_alts: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> models.PublishResult:
        """``file_ids`` (pressroom's extension) makes the post a carousel: its files in
        order, in place of ``file_id``; the result's ``parts`` lists the carousel, then
        its items where the network names them."""
        return await self.publish(
            Platform.PIN_BOARD,
            connection_id=connection_id,
            idempotency_key=idempotency_key,
            file_id=file_id,
            file_alts=file_alts,
            file_ids=file_ids,
            board_id=board_id,
            title=title,
            description=description,
        )

    async def publish_text_thread(
        self,
        *,
        connection_id: str,
        text: str,
        thread: Sequence[str | models.TextThreadPart] | None = None,
        file_ids: Sequence[str] | None = None,
        file_alts: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> models.PublishResult:
        """``thread`` (pressroom's extension) makes the post a thread: the texts of the
        parts after the first, each a reply to the one before; the result's ``parts``
        lists them. A later part refused raises with ``.parts`` and ``.partial``; the
        same call with the same ``idempotency_key`` resumes after the parts that stand.
        ``file_ids`` (pressroom's extension) makes the first part a carousel of those
        files, in order; a later part given as ``TextThreadPart`` carries its own
        ``file_ids`` (one file, or a carousel)."""
        return await self.publish(
            Platform.TEXT_THREAD,
            connection_id=connection_id,
            idempotency_key=idempotency_key,
            text=text,
            thread=thread,
            file_alts=file_alts,
            file_ids=file_ids,
        )

    async def publish_professional_network(
        self,
        *,
        connection_id: str,
        text: str,
        file_ids: Sequence[str] | None = None,
        format: PostFormat | None = None,
        file_id: str | None = None,
        document_title: str | None = None,
        file_alts: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> models.PublishResult:
        """``file_ids`` (pressroom's extension) makes the post a carousel: its files in
        order, in place of ``file_id``; the result's ``parts`` lists the carousel, then
        its items where the network names them. ``format`` ``document`` (pressroom's
        extension) makes a document post of the PDF ``file_id``, titled
        ``document_title``."""
        return await self.publish(
            Platform.PROFESSIONAL_NETWORK,
            connection_id=connection_id,
            idempotency_key=idempotency_key,
            text=text,
            file_ids=file_ids,
            format=format,
            file_id=file_id,
            document_title=document_title,
            file_alts=file_alts,
        )

    async def publish_open_microblog(
        self,
        *,
        connection_id: str,
        text: str,
        file_id: str | None = None,
        alt_text: str | None = None,
        file_ids: Sequence[str] | None = None,
        file_alts: Mapping[str, str] | None = None,
        thread: Sequence[str | models.TextThreadPart] | None = None,
        idempotency_key: str | None = None,
    ) -> models.PublishResult:
        """pressroom's extension (not on the hosted service): a Bluesky post, with one
        optional image or video and its alt text, or two to four images (``file_ids``)
        each with its alt text by id (``file_alts``); ``thread`` makes it a thread of
        replies, resumed after the parts that stand by the same ``idempotency_key``; a
        part given as ``TextThreadPart`` carries its own images (``file_ids``)."""
        return await self.publish(
            Platform.OPEN_MICROBLOG,
            connection_id=connection_id,
            idempotency_key=idempotency_key,
            text=text,
            file_id=file_id,
            alt_text=alt_text,
            file_ids=file_ids,
            file_alts=file_alts,
            thread=thread,
        )

    # --- posts read-back (pressroom's extension) ---------------------------------------

    async def list_posts(
        self,
        *,
        connection_id: str | None = None,
        platform: Platform | str | None = None,
        idempotency_key: str | None = None,
        campaign: str | None = None,
        edition: str | None = None,
        flow_run_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> models.PostPage:
        """pressroom's record of published posts, newest first; ``campaign``, ``edition``
        and ``flow_run_id`` find the posts whose publish body's ``campaign`` said so.

        The hosted service has no such route: expect ``NotFoundError`` there.
        """
        params = page_params(
            connection_id=connection_id,
            platform=Platform(platform).value if platform is not None else None,
            idempotency_key=idempotency_key,
            campaign=campaign,
            edition=edition,
            flow_run_id=flow_run_id,
            limit=limit,
            cursor=cursor,
        )
        return await self._call("GET", "/api/posts", model_parser(models.PostPage), params=params)

    def iter_posts(
        self,
        *,
        connection_id: str | None = None,
        platform: Platform | str | None = None,
        campaign: str | None = None,
        edition: str | None = None,
        flow_run_id: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[models.Post]:
        return self._pages(
            lambda cursor: self.list_posts(
                connection_id=connection_id,
                platform=platform,
                campaign=campaign,
                edition=edition,
                flow_run_id=flow_run_id,
                limit=page_size,
                cursor=cursor,
            ),
            lambda page: (page.posts, page.next_cursor),
        )

    async def get_post(self, record_id: str) -> models.Post:
        return await self._call(
            "GET",
            f"/api/posts/{segment(record_id)}",
            model_parser(models.Post, key="post", defaults={"recordId": record_id}),
        )

    async def find_post(
        self,
        *,
        idempotency_key: str,
        connection_id: str | None = None,
        platform: Platform | str | None = None,
    ) -> models.Post | None:
        """The newest attempt made with this ``Idempotency-Key``, or None if there was none.

        For the unknown outcome after a timeout: check its ``status`` (``published``;
        ``failed`` never reached the platform; ``unknown`` may be live). ``NotFoundError``
        with code ``not_found`` means the service cannot answer (no read-back route).
        """
        page = await self.list_posts(
            idempotency_key=idempotency_key, connection_id=connection_id, platform=platform, limit=1
        )
        return page.posts[0] if page.posts else None

    # --- metrics (pressroom's extension) ----------------------------------------------

    async def refresh_metrics(
        self,
        *,
        since_days: int | None = None,
        record_ids: Sequence[str] | None = None,
        campaign: str | None = None,
    ) -> models.MetricsRound:
        """Start a metrics round for the account's published posts (or answer with the
        one running: ``running_already``); the service asks the networks itself, within
        each network's budget per round. Wait for it with ``wait_for_metrics_round``."""
        body = models.RefreshMetrics(
            since_days=since_days,
            record_ids=list(record_ids) if record_ids is not None else None,
            campaign=campaign,
        ).body()
        return await self._call(
            "POST",
            "/api/posts/metrics/refresh",
            model_parser(models.MetricsRound, key="round"),
            json=body,
        )

    async def metrics_round(self, round_id: str) -> models.MetricsRound:
        return await self._call(
            "GET",
            f"/api/posts/metrics/rounds/{segment(round_id)}",
            model_parser(models.MetricsRound, key="round"),
        )

    async def wait_for_metrics_round(
        self, round_id: str, *, timeout: float = 600.0, interval: float = 1.0
    ) -> models.MetricsRound:
        """The round once it is no longer running; ``TimeoutError`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            found = await self.metrics_round(round_id)
            if not found.running:
                return found
            if time.monotonic() >= deadline:
                raise TimeoutError(f"metrics round {round_id} still running after {timeout} s")
            await anyio.sleep(interval)

    async def post_metrics(self, record_id: str) -> models.PostMetrics:
        return await self._call(
            "GET",
            f"/api/posts/{segment(record_id)}/metrics",
            model_parser(models.PostMetrics),
        )

    async def campaign_metrics(self, name: str) -> models.CampaignMetrics:
        return await self._call(
            "GET",
            f"/api/campaigns/{segment(name)}/metrics",
            model_parser(models.CampaignMetrics),
        )

    # --- events and redelivery (pressroom's extension) --------------------------------

    async def list_events(
        self,
        *,
        type: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> models.EventPage:
        """The account's events, newest first, for the retention period, whether or not
        an endpoint listened (``since`` inclusive, ``until`` exclusive, both aware).

        The hosted service has no such route: expect ``NotFoundError`` there.
        """
        params = page_params(
            type=type,
            since=instant(since),
            until=instant(until),
            limit=limit,
            cursor=cursor,
        )
        return await self._call("GET", "/api/events", model_parser(models.EventPage), params=params)

    def iter_events(
        self,
        *,
        type: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[models.Event]:
        """Every event matching, page by page, newest first."""
        return self._pages(
            lambda cursor: self.list_events(
                type=type, since=since, until=until, limit=page_size, cursor=cursor
            ),
            lambda page: (page.events, page.next_cursor),
        )

    async def redeliver_event(self, event_id: str, *, webhook_id: str) -> models.WebhookDelivery:
        """Queue the event to the webhook endpoint anew, with the same ``webhook-id``
        (a disabled endpoint is refused: ``ConflictError``, ``webhook_disabled``)."""
        return await self._call(
            "POST",
            f"/api/events/{segment(event_id)}/redeliver",
            model_parser(models.WebhookDelivery, key="delivery"),
            json={"webhookId": webhook_id},
        )

    async def redeliver_webhook(
        self, webhook_id: str, *, since: datetime, state: str = "failed"
    ) -> models.Redelivered:
        """Queue anew every event whose delivery to the endpoint is in ``state``
        (``failed`` or ``delivered``) and was made at or after ``since``; how many."""
        return await self._call(
            "POST",
            f"/api/webhooks/{segment(webhook_id)}/redeliver",
            model_parser(models.Redelivered),
            json={"since": instant(since), "state": state},
        )

    # --- API key (spec 4.5) ------------------------------------------------------------

    async def get_api_key(self) -> models.ApiKey:
        return await self._call("GET", "/api/user/api-key", model_parser(models.ApiKey))

    async def rotate_api_key(self) -> models.ApiKey:
        """A new key; the old one stops working at once, and this client switches to the new one."""
        issued = await self._call("POST", "/api/user/api-key", model_parser(models.ApiKey))
        self._use_key(issued.api_key.get_secret_value())
        return issued
