"""Media jobs in the database: claimed by one worker at a time, under a lease.

Two kinds of job share the queue: ``process`` (an upload's bytes probed into ``ready``
or ``failed``) and ``derive`` (a file converted for one network profile, see
``media.derivatives``). A processing job row is written in the same transaction that
moves its file to ``processing``, so a file is never in ``processing`` without one, and
a job never exists for a change that rolled back; a derive job is written with its
derived file's row, the same way. Any process with the media worker running (``pressroom api`` by default,
``pressroom worker`` on its own) claims the oldest available job:

- on PostgreSQL the claim's inner ``SELECT … FOR UPDATE SKIP LOCKED`` lets concurrent
  workers pass each other's rows instead of queueing on them; on SQLite writes are
  serialised, so the same conditional ``UPDATE`` is a single claimer;
- the claim is a lease (``PRESSROOM_JOB_LEASE_SECONDS``): the worker renews it while it
  works, and once a worker stops renewing (it died, or lost the database) the job is
  claimed again by another after the lease runs out;
- a finished job is deleted by its claimer only; the file's outcome is a compare-and-swap
  on its status (``processing``), so even a job run twice records one outcome;
- a job that failed on storage is put back with a delay (its ``attempts`` count grows);
  a worker that stops cleanly puts its claimed jobs back at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, select, tuple_, update
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql import ColumnElement

from pressroom.service.db.base import utcnow
from pressroom.service.db.models import MediaJob
from pressroom.service.db.session import transaction

PROCESS = "process"
DERIVE = "derive"


@dataclass(frozen=True)
class Job:
    file_id: str
    kind: str = PROCESS
    target: str = ""
    """The network profile a ``derive`` job makes a file for."""

    def where(self) -> list[ColumnElement[bool]]:
        return [
            MediaJob.file_id == self.file_id,
            MediaJob.kind == self.kind,
            MediaJob.target == self.target,
        ]


def enqueue(db: Session, file_id: str, *, kind: str = PROCESS, target: str = "") -> None:
    """Add a job on the file, in the caller's transaction (a processing job for a file
    moving to ``processing`` unless ``kind`` says otherwise)."""
    if db.get(MediaJob, (file_id, kind, target)) is None:
        now = utcnow()
        db.add(
            MediaJob(
                file_id=file_id,
                kind=kind,
                target=target,
                available_at=now,
                attempts=0,
                created_at=now,
            )
        )


def claim(sessions: sessionmaker[Session], owner: str, lease: timedelta) -> Job | None:
    """Claim the oldest available job for ``owner``, or None when none is."""
    now = utcnow()
    key = tuple_(MediaJob.file_id, MediaJob.kind, MediaJob.target)
    available = (
        select(MediaJob.file_id, MediaJob.kind, MediaJob.target)
        .where(
            MediaJob.available_at <= now,
            or_(MediaJob.claimed_by.is_(None), MediaJob.lease_expires_at < now),
        )
        .order_by(MediaJob.available_at, MediaJob.created_at)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    with transaction(sessions) as db:
        claimed = db.execute(
            update(MediaJob)
            .where(
                key.in_(available),
                # checked again on the row itself: on SQLite the subquery is no lock
                or_(MediaJob.claimed_by.is_(None), MediaJob.lease_expires_at < now),
            )
            .values(claimed_by=owner, lease_expires_at=now + lease, attempts=MediaJob.attempts + 1)
            .returning(MediaJob.file_id, MediaJob.kind, MediaJob.target)
            .execution_options(synchronize_session=False)
        ).one_or_none()
    return Job(claimed.file_id, claimed.kind, claimed.target) if claimed else None


def renew(sessions: sessionmaker[Session], owner: str, lease: timedelta) -> int:
    """Extend every lease ``owner`` holds; how many it still holds."""
    with transaction(sessions) as db:
        result = db.execute(
            update(MediaJob)
            .where(MediaJob.claimed_by == owner)
            .values(lease_expires_at=utcnow() + lease)
            .execution_options(synchronize_session=False)
        )
    return int(getattr(result, "rowcount", 0))


def complete(sessions: sessionmaker[Session], job: Job, owner: str) -> bool:
    """The job is done: gone, if ``owner`` still held it."""
    with transaction(sessions) as db:
        result = db.execute(delete(MediaJob).where(*job.where(), MediaJob.claimed_by == owner))
    return bool(getattr(result, "rowcount", 0) == 1)


def put_back(
    sessions: sessionmaker[Session],
    owner: str,
    *,
    job: Job | None = None,
    delay: timedelta = timedelta(0),
) -> int:
    """Unclaim ``owner``'s job (or all its jobs), available again after ``delay``."""
    conditions = [MediaJob.claimed_by == owner]
    if job is not None:
        conditions.extend(job.where())
    with transaction(sessions) as db:
        result = db.execute(
            update(MediaJob)
            .where(*conditions)
            .values(claimed_by=None, lease_expires_at=None, available_at=utcnow() + delay)
            .execution_options(synchronize_session=False)
        )
    return int(getattr(result, "rowcount", 0))


def waiting(
    sessions: sessionmaker[Session], kind: str = PROCESS
) -> list[tuple[str, str | None, datetime | None, int]]:
    """Every job of a kind: (file id, claimer, lease end, attempts), oldest first (for
    tests and ops)."""
    with transaction(sessions, write=False) as db:
        return [
            (row.file_id, row.claimed_by, row.lease_expires_at, row.attempts)
            for row in db.execute(
                select(
                    MediaJob.file_id,
                    MediaJob.claimed_by,
                    MediaJob.lease_expires_at,
                    MediaJob.attempts,
                )
                .where(MediaJob.kind == kind)
                .order_by(MediaJob.created_at)
            )
        ]


def attempts_of(sessions: sessionmaker[Session], job: Job) -> int:
    """How often the job was claimed (1 once claimed; 0 when it is gone)."""
    with transaction(sessions, write=False) as db:
        found = db.scalar(select(MediaJob.attempts).where(*job.where()))
    return int(found or 0)
