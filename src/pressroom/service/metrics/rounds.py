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
- keeps each answer as a snapshot and announces ``post.metrics`` in the same
  transaction.
"""

from __future__ import annotations

import hashlib
import logging
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
        made = MetricRound(
            id=new_id("mrnd"),
            account_id=account_id,
            status=RUNNING,
            filters=filters,
            networks={},
            started_at=utcnow(),
        )
        with transaction(self.sessions) as db:
            MetricsRepository(db).add_round(made)
            db.expunge(made)
        ttl = timedelta(seconds=self.lease_seconds)
        taken: list[Platform] = []
        for platform in Platform:
            if leases.claim(self.sessions, lease_name(account_id, platform), made.id, ttl):
                taken.append(platform)
                continue
            for held in taken:
                leases.release(self.sessions, lease_name(account_id, held), made.id)
            with transaction(self.sessions) as db:
                MetricsRepository(db).drop_round(made.id)
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
        except Exception:
            log.exception("metrics round %s failed", round_id)
            status = FAILED
        finally:
            # Leases first: a call that finds one held is answered with its round,
            # which must still be running then.
            for platform in Platform:
                leases.release(self.sessions, lease_name(account_id, platform), round_id)
            with transaction(self.sessions) as db:
                MetricsRepository(db).finish_round(round_id, status, networks, utcnow())

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
        ttl = timedelta(seconds=self.lease_seconds)
        for post in posts:
            leases.claim(self.sessions, lease_name(account_id, platform), round_id, ttl)
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
                self._keep(post, metrics)
                counts.refreshed += 1
        return counts

    def _keep(self, post: Post, metrics: driver.PostMetrics) -> None:
        now = utcnow()
        with transaction(self.sessions) as db:
            MetricsRepository(db).add_snapshot(post.id, metrics, now)
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
                },
            )

    def _unavailable(self, post: Post, reason: str, *, final: bool) -> None:
        with transaction(self.sessions) as db:
            MetricsRepository(db).mark_unavailable(post.id, reason, utcnow(), final=final)

    def _asked(self, post: Post) -> None:
        with transaction(self.sessions) as db:
            MetricsRepository(db).mark_asked(post.id, utcnow())

    def stop(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def install_rounds(app: FastAPI) -> RoundRunner:
    """Run metrics rounds with the app's lifespan: a round still running at shutdown is
    waited for (its calls are read-only and bounded by the budgets)."""
    runner = RoundRunner(
        app.state.session_factory, drivers_of(app), app.state.settings.job_lease_seconds
    )
    run_with_app(app, lambda: None, runner.stop)
    app.state.metrics_rounds = runner
    return runner


def runner_of(app: Any) -> RoundRunner:
    runner: RoundRunner = app.state.metrics_rounds
    return runner
