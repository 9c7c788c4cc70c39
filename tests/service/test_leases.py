"""Periodic tasks run in one process at a time across replicas sharing the database."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

from pressroom.service import leases
from pressroom.service.publishing.unknowns import Reconciler
from tests.conftest import Service

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
    service: Service,
) -> None:
    passes: dict[str, int] = {"first": 0, "second": 0}
    lock = threading.Lock()

    class Counting(Reconciler):
        name = ""

        def reconcile(self, *, limit: int = 100) -> int:
            with lock:
                passes[self.name] += 1
            return 0

    first = Counting(service.sessions, {}, 0.05)
    second = Counting(service.sessions, {}, 0.05)
    first.name, second.name = "first", "second"
    first.start()
    time.sleep(0.3)  # first takes the lease
    second.start()
    time.sleep(0.6)
    with lock:
        ran = dict(passes)
    assert ran["first"] >= 3 and ran["second"] == 0, ran

    first.stop()  # a clean stop releases the lease: second takes over without waiting
    time.sleep(0.5)
    second.stop()
    with lock:
        assert passes["second"] >= 3, passes
