"""Metrics rounds: the service asks the networks for its posts' figures itself.

The tokens never leave the service, so the pipeline (or anyone) starts a round with
``POST /api/posts/metrics/refresh`` and reads the stored snapshots back. A round:

- holds one lease per account and network (``pressroom.service.leases``, named by
  both): a second call while a round of the account runs is answered with the running
  round, across every API process on the database;
- asks, per network, the posts never asked first and then the longest unasked, no more
  than the network's budget (``budgets``); the rest wait for the next round;
- asks each network only through ``MetricsDriver``: a driver without it, or one that
  raises ``MetricsUnsupported``, makes the post "not available" with the reason; a
  refused token does too, until a reconnect; a network that cannot answer now leaves
  the post for a later round, and a rate limit ends that network's part of the round;
- keeps each post's answers (its first part's and a thread's replies') as snapshots
  and announces ``post.metrics``, with the parts and totals, in the same transaction;
- holds a lease of its own (``round_lease``), written with its row and renewed, with
  its networks' leases, by a heartbeat of the process running it every third of
  ``PRESSROOM_JOB_LEASE_SECONDS``. A round whose process died stops being renewed: once
  its lease has run out, the next reader of the round or start of the account's rounds
  finds it abandoned, marks it ``failed`` (its figures read so far are kept) and frees
  its networks' leases, so a new round starts at once. A round found abandoned while
  its process was only stalled stops at its next post and stays ``failed``.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from sqlalchemy.orm import Session, sessionmaker

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service import leases
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import Connection, MetricRound, PeriodicLease, Post
from pressroom.service.db.session import transaction
from pressroom.service.drivers import Drivers, drivers_of
from pressroom.service.drivers import base as driver
from pressroom.service.errors import ServiceError
from pressroom.service.events import outbox
from pressroom.service.events.catalog import EventType
from pressroom.service.lifespan import run_with_app
from pressroom.service.metrics.budgets import budget_of
from pressroom.service.metrics.repository import (
    DONE,
    FAILED,
    FIGURES,
    RUNNING,
    MetricsRepository,
    PostFilter,
)
from pressroom.service.metrics.service import latest_readings
from pressroom.service.schemas import iso_utc

log = logging.getLogger(__name__)

ATTEMPTS = 100
"""Starts tried, 50 ms apart, while another call of the account is starting a round or
the round found running ends before it is read."""
START_GATE = timedelta(seconds=10)
"""How long one call may hold the account's start gate (a process dying with it holds
the account's starts back no longer than this)."""
NO_DRIVER = "pressroom cannot read {network}'s figures yet"


def lease_name(account_id: str, platform: Platform) -> str:
    """The lease of an account's round on one network (the lease name's 60 characters
    hold no account id and label in clear, so a digest of both)."""
    digest = hashlib.sha256(f"{account_id}:{platform.value}".encode()).hexdigest()[:40]
    return f"metrics:{digest}"


def round_lease(round_id: str) -> str:
    """The round's own lease: live while the process running the round renews it."""
    return f"metrics-round:{round_id}"


class RoundAbandoned(Exception):
    """The round's lease was found run out and the round failed: its process stops it."""


def gate_name(account_id: str) -> str:
    """The lease one call holds while it starts a round of the account: starts never
    interleave, so no call is ever answered with a round another start then drops."""
    digest = hashlib.sha256(f"{account_id}:start".encode()).hexdigest()[:40]
    return f"metrics:{digest}"


@dataclass
class NetworkCounts:
    refreshed: int = 0
    unavailable: int = 0
    failed: int = 0
    budget: int = 0
    asked: int = 0
    """Calls made to the network: never more than ``budget``."""
    stopped: str | None = None

    def json(self) -> dict[str, Any]:
        return {
            "refreshed": self.refreshed,
            "unavailable": self.unavailable,
            "failed": self.failed,
            "budget": self.budget,
            "asked": self.asked,
            "stopped": self.stopped,
        }


@dataclass(frozen=True)
class Started:
    round: MetricRound
    running_already: bool


@dataclass
class RoundRunner:
    """Runs rounds on worker threads of the API process that started them."""

    sessions: sessionmaker[Session]
    drivers: Drivers
    lease_seconds: int
    pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(2, thread_name_prefix="pressroom-metrics")
    )
    held: set[str] = field(default_factory=set)
    """Rounds of this process not finished yet (queued or running): the heartbeat
    renews their leases."""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _beat: threading.Thread | None = None

    def begin(self) -> None:
        """Start the heartbeat that keeps this process's rounds' leases live."""
        if self._beat is not None and self._beat.is_alive():
            return  # the app started again inside its own lifespan (nested clients)
        self._stop.clear()
        self._beat = threading.Thread(
            target=self._heartbeat, name="pressroom-metrics-heartbeat", daemon=True
        )
        self._beat.start()

    def _heartbeat(self) -> None:
        while not self._stop.wait(self.lease_seconds / 3):
            try:
                self.renew()
            except Exception:  # a busy database skips a beat; the lease outlasts three
                log.warning("metrics rounds' leases not renewed", exc_info=True)

    def renew(self, only: str | None = None) -> set[str]:
        """Extend the leases of this process's rounds (or of ``only``); the rounds whose
        own lease is gone, found abandoned meanwhile (each stops at its next post)."""
        with self._lock:
            rounds = {only} if only is not None else set(self.held)
        if not rounds:
            return set()
        names = {round_lease(r): r for r in rounds}
        with transaction(self.sessions) as db:
            kept = MetricsRepository(db).renew_leases(
                rounds, names, utcnow() + timedelta(seconds=self.lease_seconds)
            )
        return {r for name, r in names.items() if name not in kept}

    def start(self, account_id: str, chosen: PostFilter, filters: dict[str, Any]) -> Started:
        """A new round for the account, or the one running (a lease on any network)."""
        caller = new_id("mstart")
        for _ in range(ATTEMPTS):
            if leases.claim(self.sessions, gate_name(account_id), caller, START_GATE):
                try:
                    started = self._try_start(account_id, chosen, filters)
                finally:
                    leases.release(self.sessions, gate_name(account_id), caller)
                if started is not None:
                    return started
            time.sleep(0.05)
        raise ServiceError(error_codes.DATABASE_BUSY, "Metrics rounds kept ending; try again.")

    def _try_start(
        self, account_id: str, chosen: PostFilter, filters: dict[str, Any]
    ) -> Started | None:
        """The round's row is written before its leases are taken, so whoever finds a
        lease held finds its round too; None when the round holding one ended between
        the claim and the look (try again)."""
        ttl = timedelta(seconds=self.lease_seconds)
        now = utcnow()
        with transaction(self.sessions) as db:
            repo = MetricsRepository(db)
            for other in repo.running_rounds(account_id):
                if repo.abandon_if_dead(other, round_lease(other), now):
                    log.warning("metrics round %s abandoned: its lease ran out", other)
        made = MetricRound(
            id=new_id("mrnd"),
            account_id=account_id,
            status=RUNNING,
            filters=filters,
            networks={},
            started_at=now,
        )
        with transaction(self.sessions) as db:
            repo = MetricsRepository(db)
            repo.add_round(made)
            repo.add_round_lease(made.id, round_lease(made.id), now + ttl)
            db.expunge(made)
        with self._lock:
            self.held.add(made.id)
        taken: list[Platform] = []
        for platform in Platform:
            if leases.claim(self.sessions, lease_name(account_id, platform), made.id, ttl):
                taken.append(platform)
                continue
            for held in taken:
                leases.release(self.sessions, lease_name(account_id, held), made.id)
            with transaction(self.sessions) as db:
                MetricsRepository(db).drop_round(made.id)
            self._forget(made.id)
            running = self._running(account_id, platform)
            return None if running is None else Started(running, running_already=True)
        self.pool.submit(self._run, made.id, account_id, chosen)
        return Started(made, running_already=False)

    def _running(self, account_id: str, platform: Platform) -> MetricRound | None:
        with transaction(self.sessions, write=False) as db:
            lease = db.get(PeriodicLease, lease_name(account_id, platform))
            if lease is None:
                return None
            found = MetricsRepository(db).get_round(account_id, lease.owner)
            if found is not None:
                db.expunge(found)
            return found

    def _run(self, round_id: str, account_id: str, chosen: PostFilter) -> None:
        networks: dict[str, Any] = {}
        status = DONE
        try:
            for platform in Platform:
                counts = self.refresh_network(round_id, account_id, platform, chosen)
                if counts.asked or counts.unavailable or counts.failed:
                    networks[platform.value] = counts.json()
                leases.release(self.sessions, lease_name(account_id, platform), round_id)
        except RoundAbandoned:
            log.warning("metrics round %s stopped: found abandoned (its lease ran out)", round_id)
            status = FAILED
        except Exception:
            log.exception("metrics round %s failed", round_id)
            status = FAILED
        finally:
            # Leases first: a call that finds one held is answered with its round,
            # which must still be running then. The round's own lease last, once its
            # status is written: a reader that finds it gone finds the round finished.
            for platform in Platform:
                leases.release(self.sessions, lease_name(account_id, platform), round_id)
            with transaction(self.sessions) as db:
                MetricsRepository(db).finish_round(round_id, status, networks, utcnow())
            leases.release(self.sessions, round_lease(round_id), round_id)
            self._forget(round_id)

    def _forget(self, round_id: str) -> None:
        with self._lock:
            self.held.discard(round_id)

    def refresh_network(
        self, round_id: str, account_id: str, platform: Platform, chosen: PostFilter
    ) -> NetworkCounts:
        counts = NetworkCounts(budget=budget_of(platform))
        with transaction(self.sessions, write=False) as db:
            posts = MetricsRepository(db).candidates(
                account_id, platform.value, chosen, counts.budget
            )
            for post in posts:
                db.expunge(post)
        reader = self.drivers[platform]
        for post in posts:
            if counts.asked >= counts.budget:
                break  # a thread's replies spent it: the rest wait for the next round
            if self.renew(round_id):  # never a lease taken back from a newer round
                raise RoundAbandoned(round_id)
            if not isinstance(reader, driver.MetricsDriver):
                self._unavailable(post, NO_DRIVER.format(network=platform.value), final=False)
                counts.unavailable += 1
                continue
            with transaction(self.sessions, write=False) as db:
                connection = db.get(Connection, post.connection_id)
                assert connection is not None  # connections are soft-deleted, never removed
                who = driver.Account(connection.id, connection.name)
            counts.asked += 1
            assert post.platform_post_id is not None  # a candidate has one
            try:
                metrics = reader.fetch_metrics(who, post.platform_post_id)
            except driver.MetricsUnsupported as exc:
                self._unavailable(post, str(exc), final=True)
                counts.unavailable += 1
            except (driver.AccessRevoked, driver.TokenRefused) as exc:
                self._unavailable(post, f"the connection's token was refused: {exc}", final=False)
                counts.unavailable += 1
            except driver.PlatformRateLimited as exc:
                self._asked(post)
                counts.failed += 1
                counts.stopped = f"rate limited: {exc}"
                break
            except driver.PlatformUnavailable:
                self._asked(post)
                counts.failed += 1
            else:
                replies, stopped = self._read_replies(reader, who, post, counts)
                self._keep(post, metrics, replies)
                counts.refreshed += 1
                if stopped:
                    break
        return counts

    def _read_replies(
        self, reader: driver.MetricsDriver, who: driver.Account, post: Post, counts: NetworkCounts
    ) -> tuple[list[tuple[int, driver.PostMetrics]], bool]:
        """A thread's replies are posts of their own on the network, each read with a
        call of the budget's (those past it wait for the next round); a carousel's items
        and a first comment are not read: the carousel is one post, and a comment's
        figures are not the post's. A reply the network cannot answer for now is left
        uncounted this round (the post's standing is its first part's). The figures
        read, by part index, and True when a rate limit ends the network's part of the
        round."""
        with transaction(self.sessions, write=False) as db:
            replies = MetricsRepository(db).measured_parts(post.id)
        read: list[tuple[int, driver.PostMetrics]] = []
        for index, reply_id in replies:
            if counts.asked >= counts.budget:
                break
            counts.asked += 1
            try:
                read.append((index, reader.fetch_metrics(who, reply_id)))
            except driver.PlatformRateLimited as exc:
                counts.stopped = f"rate limited: {exc}"
                return read, True
            except (
                driver.MetricsUnsupported,
                driver.AccessRevoked,
                driver.TokenRefused,
                driver.PlatformUnavailable,
            ):
                continue
        return read, False

    def _keep(
        self,
        post: Post,
        metrics: driver.PostMetrics,
        replies: list[tuple[int, driver.PostMetrics]],
    ) -> None:
        """The post's figures and its replies' read this round, kept together with the
        one ``post.metrics`` that tells of them: part 0's as ``metrics``, and, as
        ``GET /api/posts/{recordId}/metrics`` shows them, each reply's newest reading
        (``parts``, one not read this round keeps its last) and the post's ``totals``."""
        now = utcnow()
        with transaction(self.sessions) as db:
            MetricsRepository(db).add_snapshot(post.id, metrics, now)
            for index, figures in replies:
                MetricsRepository(db).add_snapshot(post.id, figures, now, part_index=index)
            parts, totals = latest_readings(db, post.id)
            outbox.emit(
                db,
                post.account_id,
                EventType.POST_METRICS,
                f"post:{post.id}",
                {
                    "postId": post.id,
                    "platform": post.platform,
                    "connectionId": post.connection_id,
                    "campaign": post.campaign_name,
                    "takenAt": iso_utc(now),
                    "metrics": {name: getattr(metrics, name) for name in FIGURES},
                    "parts": [part.model_dump(mode="json", by_alias=True) for part in parts],
                    "totals": totals.model_dump(mode="json", by_alias=True) if totals else None,
                },
            )

    def _unavailable(self, post: Post, reason: str, *, final: bool) -> None:
        with transaction(self.sessions) as db:
            MetricsRepository(db).mark_unavailable(post.id, reason, utcnow(), final=final)

    def _asked(self, post: Post) -> None:
        with transaction(self.sessions) as db:
            MetricsRepository(db).mark_asked(post.id, utcnow())

    def settle(self, round_id: str) -> None:
        """Fail the round if its lease ran out unrenewed (its process died). A read
        first: a live lease, the usual answer to a client polling its round, takes no
        write lock."""
        now = utcnow()
        with transaction(self.sessions, write=False) as db:
            lease = db.get(PeriodicLease, round_lease(round_id))
            if lease is not None and lease.expires_at >= now:
                return
        with transaction(self.sessions) as db:
            if MetricsRepository(db).abandon_if_dead(round_id, round_lease(round_id), utcnow()):
                log.warning("metrics round %s abandoned: its lease ran out", round_id)

    def stop(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=5)


def install_rounds(app: FastAPI) -> RoundRunner:
    """Run metrics rounds with the app's lifespan: a round still running at shutdown is
    waited for (its calls are read-only and bounded by the budgets)."""
    runner = RoundRunner(
        app.state.session_factory, drivers_of(app), app.state.settings.job_lease_seconds
    )
    run_with_app(app, runner.begin, runner.stop)
    app.state.metrics_rounds = runner
    return runner


def runner_of(app: Any) -> RoundRunner:
    runner: RoundRunner = app.state.metrics_rounds
    return runner
