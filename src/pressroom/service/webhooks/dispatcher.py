"""The sender: threads that claim due deliveries and POST them, in every process that
runs jobs (``pressroom api`` by default, ``pressroom worker``).

Each attempt is signed afresh (its own ``webhook-timestamp``) with the endpoint's secret,
and the previous one during a rotation's grace period; the ``webhook-id`` is the event's
id, the same on every attempt. Redirects are not followed (a 3xx is a failed attempt),
the target's addresses are checked before each send (``targets``), and only the first
``EXCERPT_CHARS`` characters of an answer are kept.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
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
from pressroom.service.webhooks.targets import TargetPolicy, TargetRefused
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
    def __init__(self, sessions: sessionmaker[Session], settings: Settings) -> None:
        self.sessions = sessions
        self.settings = settings
        self.vault = Vault.from_settings(settings)
        self.policy = policy_of(settings)
        self.schedule = schedule_of(settings)
        # A send never outlives its lease: the lease covers the timeout with room to spare.
        self.lease = timedelta(
            seconds=max(settings.job_lease_seconds, 2 * settings.webhook_timeout_seconds + 5)
        )
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._http = httpx.Client(
            follow_redirects=False,
            timeout=settings.webhook_timeout_seconds,
            headers={"User-Agent": "pressroom-webhooks"},
        )

    def start(self) -> None:
        self._stopping.clear()
        self._threads = [
            threading.Thread(target=self._loop, name=f"pressroom-webhooks-{i}", daemon=True)
            for i in range(self.settings.webhook_senders)
        ]
        self._threads.append(
            threading.Thread(
                target=self._retention_loop, name="pressroom-webhook-retention", daemon=True
            )
        )
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stopping.set()
        for thread in self._threads:
            thread.join(timeout=self.settings.webhook_timeout_seconds + 5)
        self._threads = []
        try:
            queue.put_back(self.sessions, self.owner)
        except Exception:
            log.warning("could not put back this process's webhook deliveries", exc_info=True)
        self._http.close()

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                sent = self.send_one()
            except Exception:
                log.exception("sending a webhook failed; trying again later")
                sent = False
            if not sent:
                self._stopping.wait(self.settings.webhook_poll_seconds)

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

    def send_one(self) -> bool:
        """Claim one due delivery and attempt it; False when nothing was due."""
        claimed = queue.claim(self.sessions, self.owner, self.lease)
        if claimed is None:
            return False
        attempt = self.attempt(claimed)
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
        return True

    def attempt(self, claimed: queue.Claimed) -> queue.Attempt:
        endpoint = claimed.endpoint
        started = time.monotonic()
        try:
            self.policy.check_resolved(endpoint.url)
        except TargetRefused as exc:
            return queue.Attempt(None, 0, f"not sent: {exc}")
        body = json.dumps(body_of(claimed.event), separators=(",", ":"), ensure_ascii=False)
        headers = {
            **signing.headers(claimed.event.id, utcnow(), body, self.secrets(endpoint)),
            "Content-Type": "application/json",
        }
        try:
            with self._http.stream(
                "POST", endpoint.url, content=body.encode(), headers=headers
            ) as answer:
                excerpt = _read_some(answer)
                status = answer.status_code
                retry_after = retry_after_header.seconds(answer.headers.get("Retry-After"))
        except httpx.HTTPError as exc:
            latency = int((time.monotonic() - started) * 1000)
            return queue.Attempt(None, latency, f"no answer: {type(exc).__name__}: {exc}")
        latency = int((time.monotonic() - started) * 1000)
        return queue.Attempt(status, latency, excerpt, retry_after)

    def secrets(self, endpoint: WebhookEndpoint) -> list[str]:
        found = [self.vault.decrypt(endpoint.secret)]
        if previous_secret_signs(endpoint) and endpoint.previous_secret:
            found.append(self.vault.decrypt(endpoint.previous_secret))
        return found


def _read_some(answer: httpx.Response) -> str:
    data = b""
    for chunk in answer.iter_bytes():
        data += chunk
        if len(data) >= READ_AT_MOST:
            break
    return data[:READ_AT_MOST].decode("utf-8", errors="replace")[: queue.EXCERPT_CHARS]


def install_dispatcher(app: FastAPI) -> Dispatcher | None:
    """Send webhooks from this process when it runs jobs (as media processing does)."""
    settings: Settings = app.state.settings
    if not settings.process_in_api:
        return None
    dispatcher = Dispatcher(app.state.session_factory, settings)
    run_with_app(app, dispatcher.start, dispatcher.stop)
    app.state.webhook_dispatcher = dispatcher
    return dispatcher
