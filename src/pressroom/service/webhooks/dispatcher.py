"""The sender: threads that claim due deliveries and POST them, in every process that
runs jobs (``pressroom api`` by default, ``pressroom worker``).

Each attempt is signed afresh (its own ``webhook-timestamp``) with the endpoint's secret,
and the previous one during a rotation's grace period; the ``webhook-id`` is the event's
id, the same on every attempt. Redirects are not followed (a 3xx is a failed attempt),
the target's addresses are checked for each connection and the connection made to them
(``transport``), the whole attempt ends by its deadline, and only the first
``READ_AT_MOST`` bytes of an answer are read, raw, of which the first ``EXCERPT_CHARS``
characters are kept, made printable.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy.orm import Session, sessionmaker

from pressroom import retry_after as retry_after_header
from pressroom.service import leases
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import WebhookEndpoint
from pressroom.service.events.outbox import PENDING, body_of
from pressroom.service.lifespan import run_with_app
from pressroom.service.oauth.vault import Vault
from pressroom.service.ops import metrics
from pressroom.service.webhooks import queue, signing
from pressroom.service.webhooks.service import previous_secret_signs
from pressroom.service.webhooks.targets import (
    Resolver,
    TargetPolicy,
    TargetRefused,
    system_resolver,
)
from pressroom.service.webhooks.transport import (
    Connector,
    GuardedBackend,
    deadline,
    guarded_client,
    open_socket,
    past_deadline,
)
from pressroom.settings import Settings

log = logging.getLogger(__name__)

RETENTION_EVERY = timedelta(hours=1)
READ_AT_MOST = 4096
"""Bytes of an answer read at all: the rest is not wanted, and not waited for."""


def policy_of(settings: Settings) -> TargetPolicy:
    return TargetPolicy(
        development=settings.webhook_development,
        allow_private=settings.webhook_allow_private_targets,
    )


def schedule_of(settings: Settings) -> queue.Schedule:
    return queue.Schedule(
        base=timedelta(seconds=settings.webhook_retry_base_seconds),
        max_delay=timedelta(seconds=settings.webhook_retry_max_delay_seconds),
        period=timedelta(seconds=settings.webhook_retry_period_seconds),
    )


class Dispatcher:
    """Claims due deliveries (one thread) and sends each on a pool of senders.

    One claimer looks for work, so an idle process asks the database once per poll
    whatever its number of senders, and claims only when a sender is free. Each attempt
    ends by its deadline (``transport``), which starts when the delivery is claimed and
    ends before its lease does (``Settings.webhook_settings_problem``): no delivery is
    sent by two senders at once. Each endpoint has at most
    ``PRESSROOM_WEBHOOK_ENDPOINT_CONCURRENCY`` deliveries in flight across all processes
    (``queue.claim``), so endpoints that hang to their deadline hold at most that many
    senders each and leave the rest to the others.
    """

    def __init__(
        self,
        sessions: sessionmaker[Session],
        settings: Settings,
        *,
        resolve: Resolver = system_resolver,
        connect: Connector = open_socket,
    ) -> None:
        if problem := settings.webhook_settings_problem():
            raise ValueError(problem)
        self.sessions = sessions
        self.settings = settings
        self.vault = Vault.from_settings(settings)
        self.policy = policy_of(settings)
        self.schedule = schedule_of(settings)
        self.attempt_seconds = settings.webhook_attempt_deadline_seconds
        self.lease = timedelta(seconds=settings.webhook_lease_seconds)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._senders: ThreadPoolExecutor | None = None
        self._free = threading.Semaphore(settings.webhook_senders)
        self._backend = GuardedBackend(self.policy, resolve, connect)
        self._http = guarded_client(
            self._backend,
            timeout=settings.webhook_timeout_seconds,
            # An answer is read raw up to READ_AT_MOST: asking for it uncompressed means
            # nothing is inflated, and a receiver that compresses anyway is kept raw.
            headers={"User-Agent": "pressroom-webhooks", "Accept-Encoding": "identity"},
        )

    def start(self) -> None:
        self._stopping.clear()
        self._senders = ThreadPoolExecutor(
            max_workers=self.settings.webhook_senders, thread_name_prefix="pressroom-webhooks"
        )
        self._threads = [
            threading.Thread(target=self._claim_loop, name="pressroom-webhook-claims", daemon=True),
            threading.Thread(
                target=self._retention_loop, name="pressroom-webhook-retention", daemon=True
            ),
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stopping.set()
        for thread in self._threads:
            thread.join(timeout=self.attempt_seconds + 5)
        self._threads = []
        if self._senders is not None:
            self._senders.shutdown(wait=True)  # each attempt ends by its deadline
            self._senders = None
        try:
            queue.put_back(self.sessions, self.owner)
        except Exception:
            log.warning("could not put back this process's webhook deliveries", exc_info=True)
        self._http.close()
        self._backend.close()

    def _claim_loop(self) -> None:
        while not self._stopping.is_set():
            if not self._free.acquire(timeout=self.settings.webhook_poll_seconds):
                continue  # every sender is busy
            try:
                began = time.monotonic()
                claimed = self.claim()
            except Exception:
                log.exception("claiming a webhook delivery failed; trying again later")
                claimed = None
            if claimed is None:
                self._free.release()
                self._stopping.wait(self.settings.webhook_poll_seconds)
                continue
            try:
                if self._senders is None:
                    raise RuntimeError("stopped")
                self._senders.submit(self._send_claimed, claimed, began)
            except RuntimeError:  # stopped meanwhile: the delivery's lease frees it
                self._free.release()
                return

    def _send_claimed(self, claimed: queue.Claimed, began: float) -> None:
        try:
            self.deliver(claimed, began)
        except Exception:
            log.exception("sending a webhook failed; trying again later")
        finally:
            self._free.release()

    RETENTION_LEASE = "webhook-retention"

    def _retention_loop(self) -> None:
        """Hourly, one process across all: forget what is old and settled."""
        ttl = timedelta(hours=3)
        while not self._stopping.wait(RETENTION_EVERY.total_seconds()):
            try:
                if leases.claim(self.sessions, self.RETENTION_LEASE, self.owner, ttl):
                    self.forget_old()
            except Exception:
                log.exception("forgetting old webhook events failed; trying again later")

    def forget_old(self) -> int:
        days = timedelta(days=self.settings.webhook_retention_days)
        return queue.purge(self.sessions, utcnow() - days)

    def claim(self) -> queue.Claimed | None:
        return queue.claim(
            self.sessions,
            self.owner,
            self.lease,
            per_endpoint=self.settings.webhook_endpoint_concurrency,
        )

    def send_one(self) -> bool:
        """Claim one due delivery and attempt it, on this thread; False when nothing was due."""
        began = time.monotonic()
        claimed = self.claim()
        if claimed is None:
            return False
        self.deliver(claimed, began)
        return True

    def deliver(self, claimed: queue.Claimed, began: float) -> str:
        """Attempt a claimed delivery and record the attempt; the delivery's new state."""
        attempt = self.attempt(claimed, began)
        state = queue.finish(self.sessions, claimed.delivery_id, self.owner, attempt, self.schedule)
        outcome = "retry" if state == PENDING else state
        metrics.WEBHOOK_ATTEMPTS.labels(outcome).observe(attempt.latency_ms / 1000)
        log.info(
            "webhook %s %s to %s: %s (%s)",
            claimed.event.type,
            claimed.event.id,
            claimed.endpoint.id,
            state,
            attempt.status if attempt.status is not None else attempt.excerpt[:80],
        )
        return state

    def attempt(self, claimed: queue.Claimed, began: float | None = None) -> queue.Attempt:
        """One POST of the delivery, ended by the deadline counted from ``began`` (when it
        was claimed, so it ends before the lease does)."""
        started = time.monotonic() if began is None else began
        with deadline(started + self.attempt_seconds):
            return self._attempt(claimed, started)

    def _attempt(self, claimed: queue.Claimed, started: float) -> queue.Attempt:
        endpoint = claimed.endpoint

        def took() -> int:
            return int((time.monotonic() - started) * 1000)

        try:
            self.policy.check_url(endpoint.url)
        except TargetRefused as exc:
            return queue.Attempt(None, took(), f"not sent: {exc}")
        body = json.dumps(body_of(claimed.event), separators=(",", ":"), ensure_ascii=False)
        headers = {
            **signing.headers(claimed.event.id, utcnow(), body, self.secrets(endpoint)),
            "Content-Type": "application/json",
        }
        status: int | None = None
        try:
            with self._http.stream(
                "POST", endpoint.url, content=body.encode(), headers=headers
            ) as answer:
                status = answer.status_code
                retry_after = retry_after_header.seconds(answer.headers.get("Retry-After"))
                raw = _read_raw(answer)
        except TargetRefused as exc:
            return queue.Attempt(None, took(), f"not sent: {exc}")
        except httpx.HTTPError as exc:
            if past_deadline():
                during = "" if status is None else f" (HTTP {status} came, its body did not)"
                why = f"the deadline of {self.attempt_seconds:g} s passed{during}"
            else:
                why = f"{type(exc).__name__}: {exc}"
            return queue.Attempt(None, took(), f"no answer: {why}")
        return queue.Attempt(status, took(), queue.excerpt_of(raw), retry_after)

    def secrets(self, endpoint: WebhookEndpoint) -> list[str]:
        found = [self.vault.decrypt(endpoint.secret)]
        if previous_secret_signs(endpoint) and endpoint.previous_secret:
            found.append(self.vault.decrypt(endpoint.previous_secret))
        return found


def _read_raw(answer: httpx.Response) -> bytes:
    """The answer's first ``READ_AT_MOST`` bytes as they came (never inflated)."""
    data = bytearray()
    for chunk in answer.iter_raw():
        data += chunk
        if len(data) >= READ_AT_MOST:
            break
    return bytes(data[:READ_AT_MOST])


def install_dispatcher(app: FastAPI) -> Dispatcher | None:
    """Send webhooks from this process when it runs jobs (as media processing does)."""
    settings: Settings = app.state.settings
    if not settings.process_in_api:
        return None
    dispatcher = Dispatcher(app.state.session_factory, settings)
    run_with_app(app, dispatcher.start, dispatcher.stop)
    app.state.webhook_dispatcher = dispatcher
    return dispatcher
