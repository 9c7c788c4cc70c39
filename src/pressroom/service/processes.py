"""Each ``pressroom api`` process registers itself in the database and keeps a heartbeat.

Why: a database can be shared by processes on several hosts, and local file storage
cannot be (a file uploaded to one host's disk is missing on the other's: readiness,
downloads and publishing would fail at random). So a process refuses to start, saying
why, when it would use local storage beside a live process on another host, or share
the database with another host's process that does. Processes on one host may share a
local data dir. S3 is the store for several hosts.

A process is live while its heartbeat is fresher than four beats
(``PRESSROOM_PROCESS_HEARTBEAT_SECONDS``, 15 s): a killed process stops counting after
that, and its row is removed by the next process that starts. The same liveness frees
what a dead process held: a publish it had claimed (``publishing.idempotency``) is given
up as an unknown outcome once its claimer is no longer live.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from fastapi import FastAPI
from sqlalchemy import delete, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.db.base import utcnow
from pressroom.service.db.models import ServiceProcess
from pressroom.service.db.session import transaction
from pressroom.service.lifespan import run_with_app

log = logging.getLogger(__name__)

HEARTBEAT = timedelta(seconds=15)
BEATS_MISSED = 4
"""A process silent for this many beats is dead."""
STALE_AFTER = BEATS_MISSED * HEARTBEAT


def is_live(db: Session, process_id: str, stale_after: timedelta) -> bool:
    """Whether the process registered as ``process_id`` beat within ``stale_after``."""
    beat = db.scalar(select(ServiceProcess.heartbeat_at).where(ServiceProcess.id == process_id))
    return beat is not None and beat > utcnow() - stale_after


LOCAL = "local"


class StorageNotShared(RuntimeError):
    """Local file storage on a database shared with another host."""


def refusal(me: ServiceProcess, others: list[ServiceProcess]) -> str | None:
    """Why ``me`` may not run beside the live ``others``, or None."""
    elsewhere = [p for p in others if p.host != me.host]
    if me.storage == LOCAL and elsewhere:
        p = elsewhere[0]
        return (
            f"local file storage cannot be shared across hosts, and a pressroom process "
            f"on {p.host} (pid {p.pid}) uses this database: set PRESSROOM_STORAGE=s3 "
            f"on every host, or give this one a database of its own"
        )
    local_elsewhere = [p for p in elsewhere if p.storage == LOCAL]
    if local_elsewhere:
        p = local_elsewhere[0]
        return (
            f"a pressroom process on {p.host} (pid {p.pid}) keeps its files on local "
            f"storage with this database: move it to PRESSROOM_STORAGE=s3 before "
            f"adding processes on other hosts"
        )
    return None


@dataclass
class Registration:
    """This process's row, kept fresh by a heartbeat thread for the app's lifetime."""

    sessions: sessionmaker[Session]
    storage: str
    kind: str = "api"
    host: str = field(default_factory=socket.gethostname)
    id: str = field(default_factory=lambda: f"proc_{uuid.uuid4().hex}")
    heartbeat: timedelta = HEARTBEAT
    registered: bool = False
    """Whether this process's row is in the database: only then may others judge its
    claims by its heartbeat."""
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _lifespans: int = 0
    """One app can be started more than once at a time (nested test clients): one row."""

    def start(self) -> None:
        self._lifespans += 1
        if self._lifespans > 1:
            return
        now = utcnow()
        me = self._row()
        try:
            with transaction(self.sessions) as db:
                db.execute(
                    delete(ServiceProcess).where(
                        ServiceProcess.heartbeat_at < now - self.stale_after
                    )
                )
                reason = refusal(me, list(db.scalars(select(ServiceProcess))))
                if reason is None:
                    db.add(me)
        except SQLAlchemyError as exc:
            # A database that does not answer, or is not migrated yet, does not stop the
            # start: /readyz says what is wrong. Unregistered, this process is not seen.
            log.warning("this process is not registered: %s", exc)
            return
        if reason is not None:
            self._lifespans = 0
            raise StorageNotShared(reason)
        self.registered = True
        self._stop.clear()
        self._thread = threading.Thread(target=self._beat, name="pressroom-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._lifespans -= 1
        if self._lifespans > 0:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.registered = False
        try:
            with transaction(self.sessions) as db:
                db.execute(delete(ServiceProcess).where(ServiceProcess.id == self.id))
        except Exception:  # the database may be gone at shutdown; the row goes stale
            log.warning("could not remove this process's registration", exc_info=True)

    def _row(self) -> ServiceProcess:
        now = utcnow()
        return ServiceProcess(
            id=self.id,
            host=self.host,
            pid=os.getpid(),
            kind=self.kind,
            storage=self.storage,
            started_at=now,
            heartbeat_at=now,
        )

    @property
    def stale_after(self) -> timedelta:
        return BEATS_MISSED * self.heartbeat

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat.total_seconds()):
            try:
                with transaction(self.sessions) as db:
                    beat = db.execute(
                        update(ServiceProcess)
                        .where(ServiceProcess.id == self.id)
                        .values(heartbeat_at=utcnow())
                    )
                    if getattr(beat, "rowcount", 1) == 0:
                        # Silent so long that another process removed us as dead: back in,
                        # so our claims count as a live process's again.
                        log.warning("this process's registration was gone; registered again")
                        db.add(self._row())
            except Exception:  # a busy database skips a beat; the next one counts
                log.warning("heartbeat not recorded", exc_info=True)


def install_registry(app: FastAPI, kind: str = "api") -> Registration:
    """Register with the app's lifespan: refused at start when storage cannot be shared."""
    settings = app.state.settings
    registration = Registration(
        app.state.session_factory,
        settings.store.storage,
        kind=kind,
        heartbeat=timedelta(seconds=settings.process_heartbeat_seconds),
    )
    run_with_app(app, registration.start, registration.stop)
    app.state.registration = registration
    return registration
