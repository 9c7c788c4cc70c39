"""Processing uploads off the request path: a thread pool, probing in worker processes.

The same workers make the files fitted for a network (``derive`` jobs, see
``media.deriving``): one queue of media jobs, claimed oldest first.

A file reaches ``processing`` once its bytes are in; a job then (on s3) moves the bytes
from ``incoming/`` to ``files/``, checks their size, probes them and records ``ready``
with the media facts, or ``failed`` with a reason and without the bytes. Every state
change is a compare-and-swap on the status, so a file deleted meanwhile, or processed
twice by two worker processes after a restart, ends consistent.

Surviving restarts and replicas: the work is job rows (``media.jobs``), not a queue in
memory. Each file in ``processing`` has one; workers in any process claim them under a
lease, so a job is worked on by one worker at a time, and a worker that dies leaves its
jobs to be taken again once their leases run out. A housekeeping pass (one process at a
time, every ``PRESSROOM_SWEEP_INTERVAL_SECONDS``) looks for uploads nobody reported and
sweeps bytes no record owns.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from pressroom.platforms import MediaKind
from pressroom.probe import MediaInfo, Probed, ProbeError, poster_frame
from pressroom.service import leases
from pressroom.service.db.base import utcnow
from pressroom.service.db.session import transaction
from pressroom.service.media import deriving, fitting, jobs, states
from pressroom.service.media.intake import (
    delete_bytes,
    notice_in_own_transaction,
    too_large_reason,
)
from pressroom.service.media.probing import probe_isolated, run_isolated
from pressroom.service.media.repository import DerivativeRepository, FileRepository
from pressroom.service.ops import metrics
from pressroom.service.storage import ObjectMissing, StorageError
from pressroom.service.storage.base import poster_key

if TYPE_CHECKING:
    from pressroom.service.media.library import MediaLibrary

log = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 1.0
"""How often an idle worker looks for jobs another process committed (its own process
wakes it at once)."""
MAX_RETRY_DELAY_SECONDS = 300
PARTIAL_UPLOAD_MAX_AGE = timedelta(hours=1)


@dataclass(frozen=True)
class Ready:
    info: Probed
    size: int
    sha256: str | None = None
    """Taken here only where the upload did not pass through the service (s3)."""
    poster: str | None = None
    """Storage key of the video's poster frame, when one could be made."""


@dataclass(frozen=True)
class Failed:
    reason: str


class Processor:
    """Workers that take files from ``processing`` to ``ready`` or ``failed``, one job at a
    time each (``media.jobs``), and the housekeeping of the media library."""

    def __init__(self, library: MediaLibrary) -> None:
        self.library = library
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        """This process's name on the jobs it claims."""
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def lease(self) -> timedelta:
        return timedelta(seconds=self.library.settings.job_lease_seconds)

    # --- lifecycle -------------------------------------------------------------
    def start(self, *, work: bool = True) -> None:
        """Housekeeping always; the job workers too unless ``work`` is off (an API whose
        processing runs in ``pressroom worker`` processes)."""
        self._stopping.clear()
        targets = [("pressroom-media-housekeeping", self._housekeeping_loop)]
        if work:
            count = self.library.settings.processing_workers
            targets += [(f"pressroom-processing-{i}", self._work_loop) for i in range(count)]
            targets.append(("pressroom-job-leases", self._renew_loop))
        for name, target in targets:
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        """Finish running jobs (a held job gives up at once) and put back what is left."""
        self._stopping.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout=self.library.settings.probe_timeout_seconds + 30)
        self._threads.clear()
        try:
            jobs.put_back(self.library.sessions, self.owner)
        except SQLAlchemyError:  # the database may be gone at shutdown: the leases run out
            log.warning("could not put back this process's media jobs", exc_info=True)

    def wake(self) -> None:
        """A job was just committed: an idle worker looks now rather than at its next poll."""
        self._wake.set()

    # --- the workers ---------------------------------------------------------------
    def _work_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                job = jobs.claim(self.library.sessions, self.owner, self.lease)
            except SQLAlchemyError:
                log.warning("cannot claim media jobs now", exc_info=True)
                job = None
            if job is None:
                self._wake.wait(IDLE_POLL_SECONDS)
                self._wake.clear()
                continue
            self._run(job)

    def _renew_loop(self) -> None:
        while not self._stopping.wait(self.lease.total_seconds() / 3):
            try:
                jobs.renew(self.library.sessions, self.owner, self.lease)
            except SQLAlchemyError:
                log.warning("cannot renew media job leases now", exc_info=True)

    def _run(self, job: jobs.Job) -> None:
        sessions = self.library.sessions
        what = "processing" if job.kind == jobs.PROCESS else f"converting for {job.target}"
        try:
            if job.kind == jobs.DERIVE:
                done = deriving.derive(self.library, job, self._stopping)
            else:
                done = self.process(job.file_id)
        except StorageError:
            attempts = jobs.attempts_of(sessions, job) or 1
            delay = timedelta(seconds=min(2**attempts, MAX_RETRY_DELAY_SECONDS))
            log.warning(
                "storage failed while %s %s; again in %s", what, job.file_id, delay, exc_info=True
            )
            jobs.put_back(sessions, self.owner, job=job, delay=delay)
            return
        except Exception:
            log.exception("%s %s failed unexpectedly", what, job.file_id)
            if job.kind == jobs.DERIVE:
                deriving.fail(self.library, job)
            else:
                self._record(
                    job.file_id,
                    Failed(
                        "The file could not be processed because of an internal error; "
                        "upload it again."
                    ),
                )
            done = True
        if done:
            jobs.complete(sessions, job, self.owner)
        else:
            jobs.put_back(sessions, self.owner, job=job)

    # --- one file ----------------------------------------------------------------
    def process(self, file_id: str) -> bool:
        """Examine the file and record its outcome. False when stopped first (the job goes
        back); True once there is nothing left to do for it."""
        library = self.library
        with transaction(library.sessions, write=False) as db:
            file = FileRepository(db).get(file_id)
            if file is None or file.status != states.PROCESSING:
                return True
            content_type, hashed = file.content_type, file.sha256 is not None
        delay = library.settings.processing_delay_ms
        if delay and self._stopping.wait(delay / 1000):
            return False  # shutting down: the next worker takes the job
        started = time.perf_counter()
        outcome = self._examine(file_id, content_type, hashed=hashed)
        self._record(file_id, outcome)
        metrics.PROCESSING_SECONDS.labels(
            "ready" if isinstance(outcome, Ready) else "failed"
        ).observe(time.perf_counter() - started)
        return True

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
            # The reason names the rule; the decoder's words may name server paths, so
            # they go to the log only.
            log.info("file %s is refused: %s (%s)", file_id, exc, exc.detail or "no detail")
            return Failed(_sentence(str(exc)))
        return Ready(info, found.size, digest, poster)

    def _make_poster(self, file_id: str, path: Path, content_type: str, info: Probed) -> str | None:
        """A still for the library's preview of a video; without one the file is still
        ready (a preview is a nicety, not a rule)."""
        if not isinstance(info, MediaInfo) or info.kind is not MediaKind.VIDEO:
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
                    **info.facts(),
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
    HOUSEKEEPING_LEASE = "media-housekeeping"

    def _housekeeping_loop(self) -> None:
        interval = self.library.settings.sweep_interval_seconds
        ttl = timedelta(seconds=max(3 * interval, 60))
        while not self._stopping.is_set():
            try:
                if leases.claim(self.library.sessions, self.HOUSEKEEPING_LEASE, self.owner, ttl):
                    self.housekeep()
            except Exception:
                log.exception("media housekeeping failed; trying again later")
            if self._stopping.wait(interval):
                return

    def housekeep(self) -> None:
        """Look for uploads nobody reported, and sweep bytes no record owns."""
        self.notice_pending()
        self.sweep()

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
            # prefix: statuses whose files (or derived files) may still hold bytes there
            "files/": {states.PENDING_UPLOAD, states.PROCESSING, states.READY},
            "incoming/": {states.PENDING_UPLOAD, states.PROCESSING},
            "posters/": {states.PROCESSING, states.READY},
            "derived/": {fitting.PENDING, fitting.READY},
        }
        for prefix, keeping in keep.items():
            objects = list(storage.list(prefix))
            if not objects:
                continue
            ids = [o.key.split("/", 1)[1] for o in objects]
            with transaction(self.library.sessions, write=False) as db:
                if prefix == "derived/":
                    status = DerivativeRepository(db).statuses(ids)
                else:
                    status = FileRepository(db).statuses(ids)
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
