"""``Idempotency-Key`` for the publish routes: a retry never posts twice.

How it works (``IdempotentRoute`` wraps each publish route):

1. The key is claimed by inserting an ``in_progress`` row into ``idempotency_keys``,
   in the unit of work that writes the post record, committed before anything is sent
   (``claims``, ``service``). The unique constraint on (account, key) decides between
   racing requests, across threads, worker processes and hosts alike. A request that
   ends before it writes anything (its body broke a rule, its connection is gone)
   stores its answer under the key if it is one to keep (3.), in one unit of work, or
   gets the key's answer if the key turns out to be held.
2. A request that finds the key taken compares request fingerprints (method, path and
   the JSON body, key order ignored, ``campaign`` left out: a re-run's new flow run id
   is the same request). Another body: 409 ``idempotency_key_reused``. The
   same body: if the first request finished, its answer is replayed with
   ``Idempotent-Replayed: true``; if it is still running, this one waits for it (up to
   ``PRESSROOM_IDEMPOTENCY_WAIT_SECONDS``), then replays, or answers 409
   ``idempotency_request_in_progress`` (transient, ``Retry-After: 1``).
3. What is kept: 2xx results, and 400s, which the body alone caused (resending it can
   never succeed). Anything else (401/403/404/409, a platform 503, a crash) frees the
   key, since the state that caused it may change and a retry with the key may post.
4. A successful publish stores its result in the same transaction as its post record.
   Keys live ``PRESSROOM_IDEMPOTENCY_TTL_DAYS`` (7) days. A claim whose request never
   finished (its process died) is given up, and its post record marked ``unknown``, as
   soon as the claiming process stops beating (``pressroom.service.processes``: four
   missed heartbeats), or after ``ABANDONED_AFTER`` for a claim made by a process that
   was not registered. The next request with the key then looks the post up before
   anything is sent again.

Every answer to a request that sent a key echoes it in the ``Idempotency-Key`` header.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from fastapi import Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from sqlalchemy.orm import Session, sessionmaker
from starlette.exceptions import HTTPException

from pressroom import error_codes
from pressroom.service import processes
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import IdempotencyRecord
from pressroom.service.db.session import transaction
from pressroom.service.db.writer import Writes, writes_for
from pressroom.service.deps import authenticate_request
from pressroom.service.drivers import drivers_of
from pressroom.service.drivers.base import LookupUnsupported, PlatformUnavailable
from pressroom.service.errors import (
    ServiceError,
    error_response,
    unexpected_error,
    validation_error,
)
from pressroom.service.ops import metrics
from pressroom.service.processes import Registration
from pressroom.service.publishing.claims import (
    HEADER,
    MAX_KEY_LENGTH,
    REPLAYED_HEADER,
    UNFINGERPRINTED,
    UNKNOWN_OUTCOME,
    Claim,
    KeyTaken,
    end_in,
    end_with_error_in,
    kept,
)
from pressroom.service.publishing.repository import (
    COMPLETED,
    HELD,
    IN_PROGRESS,
    IdempotencyRepository,
    PostRepository,
    hold_key,
)
from pressroom.service.publishing.resuming import Resume
from pressroom.service.publishing.unknowns import resolve_held_key
from pressroom.service.routing import json_body_handler

log = logging.getLogger(__name__)

ABANDONED_AFTER = timedelta(minutes=10)
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Replay:
    status: int
    body: dict[str, Any]


class InProgress:
    """Another request with the same key and body is running."""


class Absent:
    """Nobody holds the key (any more)."""


_UNPARSED = object()


def fingerprint(method: str, path: str, body: bytes, content: Any = _UNPARSED) -> str:
    """The request's identity: JSON bodies compare by content, not by key order or spacing,
    and without the fields that say who sent it (``UNFINGERPRINTED``). ``content``: the
    body already parsed, when it was."""
    try:
        if content is _UNPARSED:
            content = json.loads(body)
        if isinstance(content, dict):
            content = {k: v for k, v in content.items() if k not in UNFINGERPRINTED}
        canonical = json.dumps(
            content, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode()
    except (ValueError, UnicodeDecodeError):
        canonical = body
    digest = hashlib.sha256(f"{method} {path}\n".encode())
    digest.update(canonical)
    return digest.hexdigest()


def check_key(key: str) -> None:
    if not key.strip() or len(key) > MAX_KEY_LENGTH:
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"The {HEADER} header must be 1 to {MAX_KEY_LENGTH} characters.",
            field=HEADER,
        )


class KeyStore:
    """The claims on ``idempotency_keys``: the request path's in the units of work of
    ``db.writer``, the rarer ones (a conflict, an abandoned claim) in transactions of
    their own."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        writes: Writes,
        ttl_days: int,
        registration: Registration | None = None,
    ) -> None:
        self.sessions = sessions
        self.writes = writes
        self.ttl = timedelta(days=ttl_days)
        self.registration = registration

    @property
    def claimer(self) -> str | None:
        """This process, when others can see whether it lives (it is registered)."""
        registration = self.registration
        return registration.id if registration is not None and registration.registered else None

    def new_claim(self, account_id: str, key: str, endpoint: str, digest: str) -> Claim:
        """A pending claim: taken by the request's first write (``claims``)."""
        return Claim(account_id, key, endpoint, digest, self.claimer, self.ttl)

    def _claimer_gone(self, db: Session, record: IdempotencyRecord) -> bool:
        if record.claimed_by is None or self.registration is None:
            return False
        return not processes.is_live(db, record.claimed_by, self.registration.stale_after)

    def inspect(self, claim: Claim) -> Claim | Replay | InProgress | Absent:
        """Who holds ``claim``'s key, which this request found taken."""
        with transaction(self.sessions, write=False) as db:
            record = IdempotencyRepository(db).get(claim.account_id, claim.key)
            orphaned = (
                record is not None
                and record.state == IN_PROGRESS
                and self._claimer_gone(db, record)
            )
        if record is None:
            return Absent()
        now = utcnow()
        if record.expires_at <= now:
            self._forget(record, now)  # so the next claim can take the key
            return Absent()
        if record.state == IN_PROGRESS and (orphaned or record.created_at <= now - ABANDONED_AFTER):
            self._abandon(record)  # its request died mid-send: held, as an unknown outcome
            return Absent()
        if record.request_hash != claim.digest:
            raise ServiceError(
                error_codes.IDEMPOTENCY_REUSED,
                f"{HEADER} {claim.key!r} was first used with another request "
                f"(POST {record.endpoint}, another body); use a new key for a new post.",
                field=HEADER,
            )
        if record.state == COMPLETED and record.response_body is not None:
            return Replay(record.response_status or 200, record.response_body)
        if record.state == HELD:
            return self._take_held(record, claim)
        return InProgress()

    def _forget(self, record: IdempotencyRecord, now: datetime) -> None:
        with transaction(self.sessions) as db:
            IdempotencyRepository(db).forget_expired(record.id, now)

    def _take_held(self, record: IdempotencyRecord, claim: Claim) -> Claim | InProgress:
        """A held key: this request claims it to look the post up (one request wins)."""
        with transaction(self.sessions) as db:
            won = IdempotencyRepository(db).take_held(record.id, utcnow(), self.claimer)
        if not won:
            return InProgress()
        return replace(claim, record_id=record.id, settled=False, resolving=True)

    def _abandon(self, record: IdempotencyRecord) -> None:
        log.warning(
            "the request holding %s %r never finished; its outcome is unknown", HEADER, record.key
        )
        with transaction(self.sessions) as db:
            IdempotencyRepository(db).hold(record.id)
            PostRepository(db).mark_interrupted(record.account_id, record.key)

    async def end(self, claim: Claim, status: int, body: dict[str, Any] | None) -> None:
        """Store the answer (``body``) or, with None, free the key (``claims.end_in``)."""
        if claim.settled:
            return
        await self.writes.run_async(lambda tx: end_in(tx.link, claim, status, body, utcnow()))
        claim.settled = True

    async def hold(self, claim: Claim) -> None:
        """Keep the key held: the post may be live, and a retry must look before sending."""
        if claim.settled or claim.record_id is None:
            return
        record_id = claim.record_id
        await self.writes.run_async(lambda tx: hold_key(tx.link, record_id))
        claim.settled = True

    async def end_with_error(self, claim: Claim, error: ServiceError) -> None:
        """Keep, free or hold the key as ``error`` says (``claims.end_with_error_in``)."""
        if claim.settled:
            return
        await self.writes.run_async(lambda tx: end_with_error_in(tx.link, claim, error, utcnow()))
        claim.settled = True


Handler = Callable[[Request], Coroutine[Any, Any, Response]]


class IdempotentRoute(APIRoute):
    """A route that honours ``Idempotency-Key`` around everything it does, body
    validation included."""

    def get_route_handler(self) -> Handler:
        handler = json_body_handler(self, super().get_route_handler())

        async def idempotent_handler(request: Request) -> Response:
            key = request.headers.get(HEADER)
            if key is None:
                try:  # the caller before the body, as with a key
                    await authenticate_request(request)
                except ServiceError as exc:
                    return error_response(exc)
                return await handler(request)
            try:
                response = await _run_once(request, key, handler)
            except ServiceError as exc:  # before the route ran: bad key, auth, a conflict
                response = error_response(exc)
            response.headers[HEADER] = key
            return response

        return idempotent_handler


async def _run_once(request: Request, key: str, handler: Handler) -> Response:
    check_key(key)
    account = await authenticate_request(request)
    settings = request.app.state.settings
    store = KeyStore(
        request.app.state.session_factory,
        writes_for(request.app.state.engine),
        settings.idempotency_ttl_days,
        getattr(request.app.state, "registration", None),
    )
    endpoint = _path_of(request)
    body = await request.body()
    try:
        content = await request.json()  # parsed once: the route's validation reads it too
    except ValueError:
        content = _UNPARSED
    digest = fingerprint(request.method, endpoint, body, content)
    deadline = time.monotonic() + settings.idempotency_wait_seconds
    claim = store.new_claim(account.id, key, endpoint, digest)
    for _ in range(5):
        try:
            return await _answer(request, handler, store, claim)
        except KeyTaken:
            pass  # the key is held: see by whom
        outcome = await _wait_for_key(store, claim, deadline)
        if isinstance(outcome, Replay):
            metrics.IDEMPOTENT_REPLAYS.inc()
            return JSONResponse(outcome.body, outcome.status, headers={REPLAYED_HEADER: "true"})
        if outcome is None:  # the first request freed the key: run this one
            claim = store.new_claim(account.id, key, endpoint, digest)
            continue
        claim = outcome  # a held key, now this request's: look before sending
        found = await _look_up_held(request, claim, store)
        if found is not None:
            return found
    raise RuntimeError(f"could not claim {HEADER} {key!r}")  # pragma: no cover


_ESCAPED_IN_URLS = frozenset("?#\\")


def _path_of(request: Request) -> str:
    """``request.url.path``, which the key's row keeps and its fingerprint covers,
    without building the request's whole URL (8 us) for the plain paths that it
    leaves as they are."""
    path: str = request.scope["path"]
    if path.startswith("//") or not _ESCAPED_IN_URLS.isdisjoint(path):
        return request.url.path
    return path


async def _answer(request: Request, handler: Handler, store: KeyStore, claim: Claim) -> Response:
    """The route's answer, its claim ended as the answer says; ``KeyTaken`` when the
    key turns out to be held, whose answer is then this request's."""
    request.state.idempotency_claim = claim
    error: ServiceError | None = None
    try:
        response = await handler(request)
    except KeyTaken:
        raise
    except RequestValidationError as exc:
        error = validation_error(exc)
    except ServiceError as exc:
        error = exc
    except HTTPException:
        await store.end(claim, 0, None)  # the app's handler renders it
        raise
    except Exception as exc:
        error = unexpected_error(exc)
    if error is not None:
        if claim.resume is not None:  # parts of the post are live: a retry goes on
            await store.hold(claim)
        else:
            await store.end_with_error(claim, error)
        return error_response(error)
    if not claim.settled:  # a publish stores its answer with its outcome
        body = json.loads(bytes(response.body)) if kept(response.status_code) else None
        await store.end(claim, response.status_code, body)
    return response


async def _look_up_held(request: Request, claim: Claim, store: KeyStore) -> Response | None:
    """Before resending under a held key, ask the platform: the answer if the post went
    out; None when it did not, and this request sends it."""
    try:
        found = await run_in_threadpool(
            resolve_held_key,
            request.app.state.session_factory,
            drivers_of(request.app),
            claim.account_id,
            claim.key,
        )
    except LookupUnsupported as exc:
        await store.hold(claim)
        return error_response(
            ServiceError(
                error_codes.OUTCOME_UNKNOWN,
                f"An earlier attempt under this Idempotency-Key may have been published, and "
                f"the platform cannot be asked ({exc}); nothing was sent. Check the account "
                "on the platform, and send the post again only with a new key.",
            )
        )
    except PlatformUnavailable as exc:
        await store.hold(claim)
        return error_response(
            ServiceError(
                error_codes.PLATFORM_UNAVAILABLE,
                "An earlier attempt under this Idempotency-Key may have been published, and "
                "the platform cannot say yet; nothing was sent. Retry after Retry-After "
                "seconds with the same key.",
                headers={"Retry-After": str(exc.retry_after)},
                record_status=UNKNOWN_OUTCOME,
            )
        )
    if found is None:
        return None
    if isinstance(found, Resume):
        claim.resume = found.post_id  # the request continues the thread's record
        return None
    await store.end(claim, 200, found.answer)
    return JSONResponse(found.answer, 200, headers={REPLAYED_HEADER: "true"})


async def _wait_for_key(store: KeyStore, claim: Claim, deadline: float) -> Claim | Replay | None:
    """The held key's answer, the key itself when it was held with an unknown outcome
    (``resolving``), or None once it is free; waits up to ``deadline`` for a request
    still running."""
    while True:
        outcome = await run_in_threadpool(store.inspect, claim)
        if isinstance(outcome, Claim | Replay):
            return outcome
        if isinstance(outcome, Absent):
            return None
        if time.monotonic() >= deadline:
            raise ServiceError(
                error_codes.IDEMPOTENCY_IN_PROGRESS,
                f"A request with {HEADER} {claim.key!r} is still running; retry in a moment "
                "to get its answer.",
                field=HEADER,
                headers={"Retry-After": "1"},
            )
        await asyncio.sleep(POLL_SECONDS)
