"""Processing uploads off the request path: a thread pool, probing in worker processes.

A file reaches ``processing`` once its bytes are in; a job then (on s3) moves the bytes
from ``incoming/`` to ``files/``, checks their size, probes them and records ``ready``
with the media facts, or ``failed`` with a reason and without the bytes. Every state
change is a compare-and-swap on the status, so a file deleted meanwhile, or processed
twice by two worker processes after a restart, ends consistent.

Surviving restarts: nothing is queued in memory that the database does not also say.
At start, and at every housekeeping pass (``PRESSROOM_SWEEP_INTERVAL_SECONDS``), files
left in ``processing`` are queued again, pending uploads are looked for, and bytes no
record owns are swept. "Left" means in ``processing`` since before this processor
started (whoever was working on it stopped with its process) or since before the
previous pass (a whole interval without an outcome): a file that reached ``processing``
a moment ago belongs to the job its intake queued, here or on another replica, and
taking it from that job would probe it twice or judge it on bytes still moving.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pressroom.platforms import MediaKind
from pressroom.probe import MediaInfo, ProbeError, poster_frame
from pressroom.service.db.base import utcnow
from pressroom.service.db.session import transaction
from pressroom.service.media import states
from pressroom.service.media.intake import (
    delete_bytes,
    notice_in_own_transaction,
    too_large_reason,
)
from pressroom.service.media.probing import probe_isolated, run_isolated
from pressroom.service.media.repository import FileRepository
from pressroom.service.ops import metrics
from pressroom.service.storage import ObjectMissing, StorageError
from pressroom.service.storage.base import poster_key

if TYPE_CHECKING:
    from pressroom.service.media.runtime import MediaLibrary

log = logging.getLogger(__name__)

STORAGE_RETRIES = 4
PARTIAL_UPLOAD_MAX_AGE = timedelta(hours=1)


@dataclass(frozen=True)
class Ready:
    info: MediaInfo
    size: int
    sha256: str | None = None
    """Taken here only where the upload did not pass through the service (s3)."""
    poster: str | None = None
    """Storage key of the video's poster frame, when one could be made."""


@dataclass(frozen=True)
class Failed:
    reason: str


class Processor:
    """The pool that takes files from ``processing`` to ``ready`` or ``failed``."""

    def __init__(self, library: MediaLibrary) -> None:
        self.library = library
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._inflight: set[str] = set()
        self._stopping = threading.Event()
        self._housekeeper: threading.Thread | None = None
        self._left_before = utcnow()
        """Files in ``processing`` since before this moment are requeued by the next pass."""

    # --- lifecycle -------------------------------------------------------------
    def start(self) -> None:
        self._stopping.clear()
        self._left_before = utcnow()
        self._housekeeper = threading.Thread(
            target=self._housekeeping_loop, name="pressroom-media-housekeeping", daemon=True
        )
        self._housekeeper.start()

    def stop(self) -> None:
        """Finish running jobs (a held job gives up at once); queued ones wait for next start."""
        self._stopping.set()
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
        if self._housekeeper is not None:
            self._housekeeper.join(timeout=30)
            self._housekeeper = None

    def submit(self, file_id: str) -> None:
        """Queue a file that is ``processing``; a file already queued here is not queued twice."""
        with self._lock:
            if self._stopping.is_set() or file_id in self._inflight:
                return
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=self.library.settings.processing_workers,
                    thread_name_prefix="pressroom-processing",
                )
            self._inflight.add(file_id)
            self._executor.submit(self._run, file_id)

    # --- one file ----------------------------------------------------------------
    def _run(self, file_id: str) -> None:
        try:
            for attempt in range(STORAGE_RETRIES):
                try:
                    self.process(file_id)
                    return
                except StorageError:
                    log.warning("storage failed while processing %s", file_id, exc_info=True)
                    if self._stopping.wait(2**attempt):
                        return
            log.error("leaving %s processing; the next housekeeping pass retries", file_id)
        except Exception:
            log.exception("processing %s failed unexpectedly", file_id)
            self._record(
                file_id,
                Failed(
                    "The file could not be processed because of an internal error; upload it again."
                ),
            )
        finally:
            with self._lock:
                self._inflight.discard(file_id)

    def process(self, file_id: str) -> None:
        library = self.library
        with transaction(library.sessions, write=False) as db:
            file = FileRepository(db).get(file_id)
            if file is None or file.status != states.PROCESSING:
                return
            content_type, hashed = file.content_type, file.sha256 is not None
        delay = library.settings.processing_delay_ms
        if delay and self._stopping.wait(delay / 1000):
            return  # shutting down: the next start picks the file up again
        started = time.perf_counter()
        outcome = self._examine(file_id, content_type, hashed=hashed)
        self._record(file_id, outcome)
        metrics.PROCESSING_SECONDS.labels(
            "ready" if isinstance(outcome, Ready) else "failed"
        ).observe(time.perf_counter() - started)

    def _examine(self, file_id: str, content_type: str, *, hashed: bool) -> Ready | Failed:
        storage = self.library.storage
        limit = self.library.settings.store.max_upload_bytes
        key, upload_key = f"files/{file_id}", storage.upload_key(file_id)
        if upload_key != key:
            if storage.stat(key) is None:
                with contextlib.suppress(ObjectMissing):
                    storage.promote(upload_key, key)
            else:
                storage.delete(upload_key)  # a later PUT: the first upload stands
        found = storage.stat(key)
        if found is None:
            return Failed("The uploaded bytes are missing from storage; upload the file again.")
        if found.size > limit:
            return Failed(too_large_reason(found.size, limit))
        if found.size == 0:
            return Failed("The upload is empty.")
        try:
            with storage.local_copy(key) as path:
                digest = None if hashed else sha256_of(path)
                info = probe_isolated(
                    path,
                    content_type,
                    workers=self.library.settings.processing_workers,
                    timeout=self.library.settings.probe_timeout_seconds,
                )
                poster = self._make_poster(file_id, path, content_type, info)
        except ObjectMissing:
            return Failed("The uploaded bytes are missing from storage; upload the file again.")
        except ProbeError as exc:
            return Failed(_sentence(str(exc)))
        return Ready(info, found.size, digest, poster)

    def _make_poster(
        self, file_id: str, path: Path, content_type: str, info: MediaInfo
    ) -> str | None:
        """A still for the library's preview of a video; without one the file is still
        ready (a preview is a nicety, not a rule)."""
        if info.kind is not MediaKind.VIDEO:
            return None
        settings = self.library.settings
        try:
            jpeg = run_isolated(
                poster_frame,
                path,
                content_type,
                workers=settings.processing_workers,
                timeout=settings.probe_timeout_seconds,
            )
            key = poster_key(file_id)
            self.library.storage.put(key, jpeg, "image/jpeg")
        except (ProbeError, StorageError):
            log.warning("no poster for %s", file_id, exc_info=True)
            return None
        return key

    def _record(self, file_id: str, outcome: Ready | Failed) -> None:
        if isinstance(outcome, Failed):
            # A refused file keeps no bytes, so they go before the record says failed:
            # whoever reads "failed" finds them gone. (A crash in between leaves the file
            # processing; the next pass finds its bytes missing and fails it again.)
            delete_bytes(self.library, file_id, f"files/{file_id}")
        now = utcnow()
        with transaction(self.library.sessions) as db:
            repo = FileRepository(db)
            if isinstance(outcome, Ready):
                info = outcome.info
                moved = repo.move(
                    file_id,
                    states.PROCESSING,
                    status=states.READY,
                    size=outcome.size,
                    processed_at=now,
                    media_format=info.format[:100],
                    width=info.width,
                    height=info.height,
                    duration_seconds=info.duration_seconds,
                    failure_reason=None,
                    poster_key=outcome.poster,
                    **({"sha256": outcome.sha256} if outcome.sha256 else {}),
                )
            else:
                moved = repo.move(
                    file_id,
                    states.PROCESSING,
                    status=states.FAILED,
                    failure_reason=outcome.reason,
                    processed_at=now,
                )
            gone = not moved and repo.get(file_id) is None
        if gone and isinstance(outcome, Ready):
            # Deleted while we worked: no record may keep these bytes.
            delete_bytes(self.library, file_id, f"files/{file_id}")
        if moved:
            log.info("file %s is %s", file_id, "ready" if isinstance(outcome, Ready) else "failed")

    # --- housekeeping ----------------------------------------------------------------
    def _housekeeping_loop(self) -> None:
        interval = self.library.settings.sweep_interval_seconds
        while not self._stopping.is_set():
            try:
                self.housekeep()
            except Exception:
                log.exception("media housekeeping failed; trying again later")
            if self._stopping.wait(interval):
                return

    def housekeep(self) -> None:
        """Requeue left ``processing`` files, look for pending uploads, sweep orphaned bytes."""
        began = utcnow()
        self.recover()
        self.notice_pending()
        self.sweep()
        with self._lock:  # passes may overlap (the loop's, an operator's): never go back
            self._left_before = max(self._left_before, began)

    def recover(self) -> int:
        """Queue again the files left in ``processing`` (see the module's docstring)."""
        with transaction(self.library.sessions, write=False) as db:
            ids = FileRepository(db).ids_processing_since_before(self._left_before)
        for file_id in ids:
            self.submit(file_id)
        return len(ids)

    def notice_pending(self) -> None:
        with transaction(self.library.sessions, write=False) as db:
            ids = FileRepository(db).ids_with_status(states.PENDING_UPLOAD)
        for file_id in ids:
            if self._stopping.is_set():
                return
            notice_in_own_transaction(self.library, file_id)

    def sweep(self) -> int:
        """Delete bytes that no record owns (or whose file failed); returns how many."""
        storage = self.library.storage
        removed = storage.sweep_partials(PARTIAL_UPLOAD_MAX_AGE)
        keep = {
            # prefix: statuses whose files may still hold bytes there
            "files/": {states.PENDING_UPLOAD, states.PROCESSING, states.READY},
            "incoming/": {states.PENDING_UPLOAD, states.PROCESSING},
            "posters/": {states.PROCESSING, states.READY},
        }
        for prefix, keeping in keep.items():
            objects = list(storage.list(prefix))
            if not objects:
                continue
            with transaction(self.library.sessions, write=False) as db:
                status = FileRepository(db).statuses([o.key.split("/", 1)[1] for o in objects])
            for obj in objects:
                if status.get(obj.key.split("/", 1)[1]) in keeping:
                    continue
                try:
                    storage.delete(obj.key)
                    removed += 1
                except StorageError:
                    log.warning("could not sweep %s", obj.key, exc_info=True)
        if removed:
            log.info("swept %d orphaned objects", removed)
        return removed


def sha256_of(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
