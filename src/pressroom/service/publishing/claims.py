"""A request's hold on an Idempotency-Key, and the three ways it ends.

A request holds its key from its first write on: a publish takes it in the unit of
work that writes its post record (``publishing.service``), before anything is sent; a
request that ends before writing anything (its body broke a rule, its connection is
gone) writes its answer under the key, if it is one to keep, in one unit of work.
Until then the claim is pending: nothing is in the database, and a retry that races it
is decided by the key's unique constraint, as two claims always were.

A claim ends by storing the answer (``complete``: replayed to every retry), by freeing
the key (``release``: the state behind the answer may change, so a retry may post), or
by keeping the key held with its outcome unknown (``hold``: the post may have reached
the platform; a retry makes the service look it up before anything is sent again).
Each ending is a statement inside the unit of work that records the outcome (``end_in``,
``end_with_error_in``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pressroom.service.db.prepared import Link
from pressroom.service.errors import ServiceError
from pressroom.service.publishing import campaign, repository
from pressroom.service.publishing.repository import COMPLETED, IN_PROGRESS, KeyTaken

__all__ = [
    "UNFINGERPRINTED",
    "Claim",
    "KeyTaken",
    "end_in",
    "end_with_error_in",
    "kept",
    "take_in",
]

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
UNFINGERPRINTED = frozenset({campaign.FIELD})
"""Body fields no part of a request's fingerprint (``idempotency.fingerprint``): they say
who sent the post, not what it is, so a re-run's new ``campaign.flowRunId`` under the
same key replays instead of being ``idempotency_key_reused``. A 400 about one of them is
not kept under the key either, since the corrected body would replay it."""
UNKNOWN_OUTCOME = "unknown"
PUBLISHED_OUTCOME = "published"
"""``recordStatus`` values under which the key stays held (the post may be, or is, live)."""


@dataclass
class Claim:
    """A key this request holds, or will hold once it writes, while it runs."""

    account_id: str
    key: str
    endpoint: str
    digest: str
    """The request's fingerprint (``idempotency.fingerprint``)."""
    claimer: str | None
    """The registered process running the request (``pressroom.service.processes``)."""
    ttl: timedelta
    """How long the key is kept from the moment it is taken."""
    record_id: int | None = None
    """The key's row once this request took it; None while the claim is pending."""
    settled: bool = False
    """Set once the answer is stored (or the key freed or held), so it is not done twice."""
    resolving: bool = False
    """The key was held with an unknown outcome: look the post up before sending."""
    resume: str | None = None
    """The post record under the key some of whose parts stand (a thread): the request
    continues it after them, and however it ends, the key stays held until every part
    stands, so no retry starts the post again."""


def kept(status: int) -> bool:
    """Answers a retry must see again: successes, and refusals the body alone caused."""
    return 200 <= status < 300 or status == 400


def take_in(link: Link, claim: Claim, now: datetime) -> int:
    """Take the pending claim's key, in the caller's unit of work; its row's id.
    ``KeyTaken`` when the account holds the key already."""
    return _add_key(link, claim, now)


def end_in(
    link: Link, claim: Claim, status: int, body: dict[str, Any] | None, now: datetime
) -> None:
    """Store the answer (``body``) or, with None, free the key. A pending claim stores
    its answer as the key's first row, and frees nothing: ``KeyTaken`` if the key turns
    out to be held, whose answer is then the request's."""
    if claim.record_id is not None:
        if body is None:
            repository.release_key(link, claim.record_id)
        else:
            repository.complete_key(link, claim.record_id, status, body)
        return
    if body is not None:
        _add_key(link, claim, now, state=COMPLETED, status=status, body=body)
    elif repository.key_taken(link, claim.account_id, claim.key):
        raise KeyTaken(claim.key)


def end_with_error_in(link: Link, claim: Claim, error: ServiceError, now: datetime) -> None:
    """How a request that failed with ``error`` leaves its key: held when the post may
    be live, else as ``end_in`` (the error kept when the body alone caused it)."""
    if error.record_status in (UNKNOWN_OUTCOME, PUBLISHED_OUTCOME):
        if claim.record_id is not None:
            repository.hold_key(link, claim.record_id)
        return
    keep = kept(error.status) and not _about_unfingerprinted(error.field)
    end_in(link, claim, error.status, error.body() if keep else None, now)


def _about_unfingerprinted(field: str | None) -> bool:
    return field is not None and field.split(".")[0].split("[")[0] in UNFINGERPRINTED


def _add_key(
    link: Link,
    claim: Claim,
    now: datetime,
    *,
    state: str = IN_PROGRESS,
    status: int | None = None,
    body: dict[str, Any] | None = None,
) -> int:
    """The claim's key as a new row: held, or completed with its answer."""
    return repository.add_key(
        link,
        account_id=claim.account_id,
        key=claim.key,
        endpoint=claim.endpoint,
        request_hash=claim.digest,
        now=now,
        expires_at=now + claim.ttl,
        claimer=claim.claimer,
        state=state,
        status=status,
        body=body,
    )
