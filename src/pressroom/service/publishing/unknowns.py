"""Unknown outcomes: look the post up on its platform, then decide.

A publish that failed after its request reached the platform (a 5xx, a timeout) leaves
its record ``unknown`` and its Idempotency-Key held. Nothing is ever sent again blindly:

- a retry with the key (``resolve_held_key``) asks the platform first
  (``find_delivery``): a post it has is recorded ``published`` and answered as a
  replay; only a post it does not have is sent again (a thread part by part:
  ``resuming``);
- the ``Reconciler`` does the same on its own every
  ``PRESSROOM_RECONCILE_INTERVAL_SECONDS``, so a record reads ``published``, with its
  platform id, even if nobody retries. A post the platform still does not have after
  ``LOOKUP_WINDOW`` is recorded ``failed`` and its key freed.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from fastapi import FastAPI
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from pressroom.platforms import RULES, Platform, PostFormat
from pressroom.service import leases
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Connection, File, Post
from pressroom.service.db.session import transaction
from pressroom.service.drivers import Drivers, drivers_of
from pressroom.service.drivers import base as driver
from pressroom.service.lifespan import run_with_app
from pressroom.service.publishing.repository import IdempotencyRepository, PostRepository
from pressroom.service.publishing.resuming import NotYet, Resume, settle_thread
from pressroom.service.publishing.schemas import REQUESTS, has_later_parts
from pressroom.service.publishing.service import (
    FAILED,
    PARTIAL,
    PLATFORM_REFERENCE,
    PUBLISHED,
    SENDING,
    UNKNOWN,
    answer_of,
    media_of,
    platform_fields,
    result_of,
)

log = logging.getLogger(__name__)

LOOKUP_WINDOW = timedelta(minutes=15)
"""How long a network may take to show a post it received; past it, not found is final."""
SENDING_GIVEN_UP_AFTER = timedelta(minutes=10)
"""A record still ``sending`` this long after it was made belongs to a request that died."""


@dataclass(frozen=True)
class Found:
    answer: dict[str, Any]
    """The publish result, as the first request would have answered it."""


@dataclass(frozen=True)
class Missing:
    """The platform has no such post."""


def resolve_held_key(
    sessions: sessionmaker[Session], drivers: Drivers, account_id: str, key: str
) -> Found | Resume | None:
    """Settle the attempts under a held key: the answer if one went out, ``Resume`` for
    a thread some of whose parts stand (``resuming``), else None (and the attempts are
    marked failed), so the caller may send. Raises ``PlatformUnavailable`` when the
    platform cannot say now."""
    with transaction(sessions, write=False) as db:
        attempts = PostRepository(db).unsettled_by_key(account_id, key)
    for post in attempts:
        if has_later_parts(Platform(post.platform), post.request):
            with transaction(sessions, write=False) as db:
                first = delivery_of(db, post)
            settled = settle_thread(sessions, drivers[Platform(post.platform)], post, first)
            assert not isinstance(settled, NotYet)  # final: a part not found is failed
            if isinstance(settled, Resume):
                return settled
            if settled is not None:
                return Found(settled)
            _record_missing(sessions, post)
            continue
        outcome = look_up(sessions, drivers, post)
        if isinstance(outcome, Found):
            return outcome
        _record_missing(sessions, post)
    return None


def look_up(sessions: sessionmaker[Session], drivers: Drivers, post: Post) -> Found | Missing:
    """Ask the post's platform whether it has the post; record it published if so."""
    platform = Platform(post.platform)
    if UNANSWERABLE in (post.result or {}):  # asked before: the answer will not change
        raise driver.LookupUnsupported(str((post.result or {})[UNANSWERABLE]))
    if has_later_parts(Platform(post.platform), post.request):
        # Its parts are looked up by a retry with its key, which then goes on after the
        # parts that stand (``resuming``); on its own, nothing of it is sent again.
        raise driver.LookupUnsupported("a post of several parts is settled by a retry with its key")
    with transaction(sessions, write=False) as db:
        delivery = delivery_of(db, post)
    try:
        published = drivers[platform].find_delivery(delivery, post.created_at)
    except driver.LookupUnsupported as exc:
        _record_unanswerable(sessions, post, str(exc))
        raise
    if published is None:
        return Missing()
    body = REQUESTS[platform].model_validate(post.request)
    answer = answer_of(result_of(platform, body, published, post.id))
    with transaction(sessions) as db:
        PostRepository(db).settle(
            post.id,
            post.status,
            status=PUBLISHED,
            platform_post_id=published.platform_post_id,
            url=published.url,
            published_at=published.published_at,
            result=answer,
        )
    log.info("post %s was found on %s: published", post.id, platform.value)
    return Found(answer)


def delivery_of(db: Session, post: Post) -> driver.Delivery:
    """The delivery a record was sent as, rebuilt from what the record kept."""
    platform = Platform(post.platform)
    connection = db.get(Connection, post.connection_id)
    assert connection is not None  # connections are soft-deleted, never removed
    file = db.get(File, post.file_id) if post.file_id else None
    body = REQUESTS[platform].model_validate(post.request)
    kept = (post.result or {}).get(PLATFORM_REFERENCE)
    items = tuple(
        media_of(item)
        for item in (db.get(File, file_id) for file_id in body.carousel_file_ids)
        if item is not None
    )
    return driver.Delivery(
        platform=platform,
        account=driver.Account(connection.id, connection.name),
        fields=platform_fields(platform, body),
        # A text-only label carries a file only in a document post: its PDF.
        media=media_of(file)
        if file is not None
        and (not RULES[platform].text_only or body.post_format is PostFormat.DOCUMENT)
        else None,
        reference=post.id,
        platform_reference=str(kept) if kept else None,
        items=items,
        created_at=post.created_at,
    )


UNANSWERABLE = "lookupUnsupported"
"""Kept in an unknown record's result when its platform cannot be asked: the reconciler
passes it by, and its key stays held until it expires."""


def _record_unanswerable(sessions: sessionmaker[Session], post: Post, reason: str) -> None:
    with transaction(sessions) as db:
        PostRepository(db).settle(
            post.id,
            post.status,
            status=UNKNOWN,
            result={**(post.result or {}), UNANSWERABLE: reason},
        )


def _record_missing(sessions: sessionmaker[Session], post: Post) -> None:
    with transaction(sessions) as db:
        PostRepository(db).settle(
            post.id,
            post.status,
            status=FAILED,
            result={
                **(post.result or {}),
                "lookup": "The platform has no such post: it was not published.",
            },
        )
    log.info("post %s was not found on %s: failed", post.id, post.platform)


class Reconciler:
    """Looks up every unknown outcome in the background, so none stays unknown."""

    LEASE = "reconcile-unknown-posts"
    """One process reconciles at a time across replicas (``pressroom.service.leases``)."""

    def __init__(
        self, sessions: sessionmaker[Session], drivers: Drivers, interval_seconds: float
    ) -> None:
        self.sessions = sessions
        self.drivers = drivers
        self.interval = interval_seconds
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stopping.clear()
        self._thread = threading.Thread(target=self._loop, name="pressroom-reconciler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
            try:
                leases.release(self.sessions, self.LEASE, self.owner)
            except SQLAlchemyError:  # the database may be gone at shutdown: it runs out
                log.warning("could not release the reconciler's lease", exc_info=True)

    def _loop(self) -> None:
        # Held past the next pass, so a live owner keeps it; a dead one's runs out.
        ttl = timedelta(seconds=max(3 * self.interval, 30.0))
        while not self._stopping.wait(self.interval):
            try:
                if leases.claim(self.sessions, self.LEASE, self.owner, ttl):
                    self.reconcile()
            except Exception:
                log.exception("reconciling unknown posts failed; trying again later")

    def reconcile(self, *, limit: int = 100) -> int:
        """One pass; returns how many records it settled."""
        now = utcnow()
        with transaction(self.sessions, write=False) as db:
            posts = PostRepository(db).unsettled(
                since=now - timedelta(days=7),
                sending_before=now - SENDING_GIVEN_UP_AFTER,
                limit=limit,
            )
        settled = 0
        for post in posts:
            if self._stopping.is_set():
                break
            try:
                outcome = settle_unknown(self.sessions, self.drivers, post, now)
            except driver.PlatformUnavailable:
                continue  # the platform cannot say now: next pass
            except driver.LookupUnsupported:
                continue  # its platform cannot be asked: a person settles it; never resent
            if not isinstance(outcome, Missing):
                settled += 1
        return settled


@dataclass(frozen=True)
class NotPublished:
    """The platform still has no such post past ``LOOKUP_WINDOW``: recorded ``failed``,
    its key freed, so a retry with it sends the post."""


def may_look_up(post: Post, now: datetime) -> bool:
    """Whether the record's outcome is one to look up: ``unknown``, or ``sending`` long
    after any request could still be running (the reconciler's rule, ``unsettled``)."""
    if post.status == UNKNOWN:
        return True
    return post.status == SENDING and post.created_at < now - SENDING_GIVEN_UP_AFTER


def settle_unknown(
    sessions: sessionmaker[Session], drivers: Drivers, post: Post, now: datetime
) -> Found | Missing | NotPublished | CutShort:
    """Look one unknown record up and settle it and its key as the answer says: the
    reconciler's pass, and the dashboard's Look up, for one record. ``Missing``: not
    found yet, asked again later. Raises ``PlatformUnavailable`` (the platform cannot
    say now) and ``LookupUnsupported`` (it cannot be asked) as ``look_up`` does."""
    if has_later_parts(Platform(post.platform), post.request):
        return _settle_thread(sessions, drivers, post, now)
    outcome = look_up(sessions, drivers, post)
    if isinstance(outcome, Found):
        _settle_key(sessions, post, 200, outcome.answer)
        return outcome
    if post.created_at < now - LOOKUP_WINDOW:
        _record_missing(sessions, post)
        _settle_key(sessions, post, None, None)
        return NotPublished()
    return outcome


def _settle_thread(
    sessions: sessionmaker[Session], drivers: Drivers, post: Post, now: datetime
) -> Found | Missing | NotPublished | CutShort:
    """A post of several parts, part by part as a retry with its key would (``resuming``),
    sending nothing: all parts found, it is published; some, it is ``partial`` and its
    key stays held so a retry sends the rest; none, as a single post. Until
    ``LOOKUP_WINDOW`` has passed, a part not found is asked again later."""
    if UNANSWERABLE in (post.result or {}):  # asked before: the answer will not change
        raise driver.LookupUnsupported(str((post.result or {})[UNANSWERABLE]))
    final = post.created_at < now - LOOKUP_WINDOW
    with transaction(sessions, write=False) as db:
        first = delivery_of(db, post)
    try:
        settled = settle_thread(
            sessions, drivers[Platform(post.platform)], post, first, final=final
        )
    except driver.LookupUnsupported as exc:
        _record_unanswerable(sessions, post, str(exc))
        raise
    if isinstance(settled, NotYet):
        return Missing()
    if isinstance(settled, Resume):
        _record_cut_short(sessions, post)
        return CutShort()
    if settled is not None:
        _settle_key(sessions, post, 200, settled)
        log.info("post %s was found on %s, every part: published", post.id, post.platform)
        return Found(settled)
    _record_missing(sessions, post)
    _settle_key(sessions, post, None, None)
    return NotPublished()


@dataclass(frozen=True)
class CutShort:
    """Some parts of a post of several stand, the rest never went out: recorded
    ``partial``, its key held, so a retry with it sends only the rest."""


def _record_cut_short(sessions: sessionmaker[Session], post: Post) -> None:
    with transaction(sessions) as db:
        PostRepository(db).settle(
            post.id,
            post.status,
            status=PARTIAL,
            result={
                **(post.result or {}),
                "lookup": "The platform has some of the post's parts, not all: the rest "
                "were not published. A retry with the same Idempotency-Key sends only them.",
            },
        )
    log.info("post %s was found on %s in part: partial", post.id, post.platform)


def _settle_key(
    sessions: sessionmaker[Session], post: Post, status: int | None, body: dict[str, Any] | None
) -> None:
    if post.idempotency_key is None:
        return
    with transaction(sessions) as db:
        IdempotencyRepository(db).settle_held(post.account_id, post.idempotency_key, status, body)


def install_reconciler(app: FastAPI) -> Reconciler:
    """Run the reconciler with the app's lifespan."""
    reconciler = Reconciler(
        app.state.session_factory, drivers_of(app), app.state.settings.reconcile_interval_seconds
    )
    run_with_app(app, reconciler.start, reconciler.stop)
    app.state.reconciler = reconciler
    return reconciler
