"""Periodic tasks run in one process at a time across replicas sharing the database."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any

import pytest

from pressroom.service import leases
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import PeriodicLease
from pressroom.service.db.session import transaction
from pressroom.service.publishing.unknowns import Reconciler
from tests.conftest import Service
from tests.support.waiting import wait_until

MINUTE = timedelta(minutes=1)


def test_a_lease_is_held_until_it_runs_out_and_a_lost_one_cannot_be_renewed(
    service: Service,
) -> None:
    sessions = service.sessions
    assert leases.claim(sessions, "sweep", "a", MINUTE)
    assert leases.claim(sessions, "sweep", "a", MINUTE), "its owner renews it"
    assert not leases.claim(sessions, "sweep", "b", MINUTE), "held by a"
    assert leases.claim(sessions, "other", "b", MINUTE), "each task has its own"

    assert leases.claim(sessions, "sweep", "a", timedelta(seconds=-1))  # runs out at once
    assert leases.claim(sessions, "sweep", "b", MINUTE), "taken once it ran out"
    assert not leases.claim(sessions, "sweep", "a", MINUTE), "a lost it and cannot renew"

    leases.release(sessions, "sweep", "a")  # not a's: nothing happens
    assert not leases.claim(sessions, "sweep", "a", MINUTE)
    leases.release(sessions, "sweep", "b")
    assert leases.claim(sessions, "sweep", "a", MINUTE), "released: free at once"


def test_of_two_reconcilers_on_one_database_one_runs_and_the_other_takes_over(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the first holds the lease, the second's every try is refused and it runs no
    pass (seen in its refused claims and the lease row, not in how long it waited); once
    the first stops, the second takes over without waiting for the lease to run out."""
    passes: dict[str, int] = {"first": 0, "second": 0}
    tries: list[tuple[str, bool]] = []
    lock = threading.Lock()
    claim = leases.claim

    def watched(sessions: Any, name: str, owner: str, ttl: timedelta) -> bool:
        """The real claim, recording who asked for the reconciler's lease and the answer."""
        taken = claim(sessions, name, owner, ttl)
        if name == Reconciler.LEASE:
            with lock:
                tries.append((owner, taken))
        return taken

    monkeypatch.setattr(leases, "claim", watched)

    class Counting(Reconciler):
        name = ""

        def reconcile(self, *, limit: int = 100) -> int:
            with lock:
                passes[self.name] += 1
            return 0

    first = Counting(service.sessions, {}, 0.05)
    second = Counting(service.sessions, {}, 0.05)
    first.name, second.name = "first", "second"

    def refused(owner: str) -> int:
        with lock:
            return sum(1 for who, taken in tries if who == owner and not taken)

    def held_by() -> tuple[str, datetime] | None:
        with transaction(service.sessions, write=False) as db:
            row = db.get(PeriodicLease, Reconciler.LEASE)
            return (row.owner, row.expires_at) if row is not None else None

    try:
        first.start()
        wait_until(lambda: passes["first"] >= 1, "the first reconciler's first pass")
        second.start()
        wait_until(
            lambda: refused(second.owner) >= 3 and passes["first"] >= 3,
            "three passes by the first and three refused tries by the second",
        )
        with lock:
            assert passes["second"] == 0, passes
        holder = held_by()
        assert holder is not None and holder[0] == first.owner
        assert holder[1] > utcnow(), "the first's lease is live: it renews it every pass"

        first.stop()  # a clean stop releases the lease: second takes over without waiting
        holder = held_by()
        assert holder is None or holder[0] == second.owner, "the first released its lease"
        # Well before the released lease would have run out (the wait's deadline is shorter).
        wait_until(lambda: passes["second"] >= 3, "three passes by the second")
        holder = held_by()
        assert holder is not None and holder[0] == second.owner
    finally:
        first.stop()
        second.stop()
