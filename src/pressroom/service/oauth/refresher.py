"""Renewing access tokens before they lapse, in the background, one process at a time.

Publishing refreshes a lapsed token before it sends (``publishing.service``), and the
Connections page refreshes what it shows; neither helps a token that would lapse while
nobody publishes or looks, which on networks whose long-lived token is its own refresh
token (Instagram, Threads) means it can no longer be renewed at all. So every
``PRESSROOM_TOKEN_REFRESH_INTERVAL_SECONDS`` one process (``leases``) renews each
connection whose access token lapses within its network's ``refresh_ahead``. A refresh
the network refuses turns the connection inactive (``oauth.service.refresh``); one it
cannot answer now is tried again on the next pass.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from datetime import timedelta

from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from pressroom.platforms import Platform
from pressroom.service import leases
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from pressroom.service.drivers.base import PlatformUnavailable, SecretKeyMissing
from pressroom.service.lifespan import run_with_app
from pressroom.service.oauth import service as oauth

log = logging.getLogger(__name__)

LONGEST_AHEAD = timedelta(days=7)
"""No network asks to be renewed earlier than this; the query looks no further."""


class TokenRefresher:
    LEASE = "refresh-access-tokens"

    def __init__(self, flow: oauth.Flow, interval_seconds: float) -> None:
        self.flow = flow
        self.interval = interval_seconds
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._loop, name="pressroom-token-refresher", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
            try:
                leases.release(self.flow.sessions, self.LEASE, self.owner)
            except SQLAlchemyError:
                log.warning("could not release the token refresher's lease", exc_info=True)

    def _loop(self) -> None:
        ttl = timedelta(seconds=max(3 * self.interval, 30.0))
        while not self._stopping.wait(self.interval):
            try:
                if leases.claim(self.flow.sessions, self.LEASE, self.owner, ttl):
                    self.refresh_due()
            except Exception:
                log.exception("refreshing access tokens failed; trying again later")

    def refresh_due(self) -> int:
        """One pass; returns how many connections were renewed."""
        now = utcnow()
        with transaction(self.flow.sessions, write=False) as db:
            candidates = db.execute(
                select(Connection.id, Connection.platform, Connection.access_expires_at).where(
                    Connection.removed_at.is_(None),
                    Connection.token_expires_at.is_(None),
                    Connection.access_expires_at.is_not(None),
                    Connection.access_expires_at <= now + LONGEST_AHEAD,
                )
            ).all()
        renewed = 0
        for connection_id, platform, expires_at in candidates:
            if self._stopping.is_set():
                break
            ahead = self.flow.drivers[Platform(platform)].refresh_ahead
            if expires_at is None or expires_at > now + ahead:
                continue
            try:
                renewed += oauth.refresh(self.flow, connection_id)
            except PlatformUnavailable:
                log.warning("could not refresh %s now; next pass", connection_id)
            except SecretKeyMissing as exc:
                log.error("cannot refresh %s: %s", connection_id, exc)
        return renewed


def install_token_refresher(app: FastAPI) -> TokenRefresher:
    """Run the refresher with the app's lifespan."""
    refresher = TokenRefresher(
        oauth.flow_of(app), app.state.settings.token_refresh_interval_seconds
    )
    run_with_app(app, refresher.start, refresher.stop)
    app.state.token_refresher = refresher
    return refresher
