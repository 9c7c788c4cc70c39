"""One runner per periodic task across every process that shares the database.

A periodic task (the reconciler of unknown posts, for one) runs in each ``pressroom api``
process; with several replicas each would run it, looking the same posts up on the
platforms several times over. So before each pass a process claims the task's lease: a
row naming its owner until ``expires_at``. The owner renews it with every pass; another
process takes it only once it has run out (its owner stopped or died), and a process
that lost it cannot renew it. The claim is one conditional ``UPDATE`` (or the first
``INSERT``) in a write transaction, atomic on SQLite and on PostgreSQL alike.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, or_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.db.base import utcnow
from pressroom.service.db.models import PeriodicLease
from pressroom.service.db.session import transaction


def claim(sessions: sessionmaker[Session], name: str, owner: str, ttl: timedelta) -> bool:
    """Take or renew the lease of ``name`` for ``ttl``; False while another owner holds it."""
    now = utcnow()
    with transaction(sessions) as db:
        taken = db.execute(
            update(PeriodicLease)
            .where(
                PeriodicLease.name == name,
                or_(PeriodicLease.owner == owner, PeriodicLease.expires_at < now),
            )
            .values(owner=owner, expires_at=now + ttl)
        )
        if taken.rowcount == 1:  # type: ignore[attr-defined]  # a CursorResult
            return True
        if db.get(PeriodicLease, name) is not None:
            return False
    try:
        with transaction(sessions) as db:
            db.add(PeriodicLease(name=name, owner=owner, expires_at=now + ttl))
    except IntegrityError:  # another process made the row first: it holds the lease
        return False
    return True


def release(sessions: sessionmaker[Session], name: str, owner: str) -> None:
    """Give the lease up at once (a clean stop), so another process need not wait it out."""
    with transaction(sessions) as db:
        db.execute(
            delete(PeriodicLease).where(PeriodicLease.name == name, PeriodicLease.owner == owner)
        )
