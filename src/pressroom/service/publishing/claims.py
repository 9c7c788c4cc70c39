"""A request's hold on an Idempotency-Key, and the three ways it ends.

A claim ends by storing the answer (``complete``: replayed to every retry), by freeing
the key (``release``: the state behind the answer may change, so a retry may post), or
by keeping the key held with its outcome unknown (``hold``: the post may have reached
the platform; a retry makes the service look it up before anything is sent again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from pressroom.service.publishing.repository import IdempotencyRepository

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
UNKNOWN_OUTCOME = "unknown"
PUBLISHED_OUTCOME = "published"
"""``recordStatus`` values under which the key stays held (the post may be, or is, live)."""


@dataclass
class Claim:
    """A key this request holds while it runs."""

    record_id: int
    account_id: str
    key: str
    settled: bool = False
    """Set once the answer is stored (or the key freed or held), so it is not done twice."""
    resolving: bool = False
    """The key was held with an unknown outcome: look the post up before sending."""


def settle_in(db: Session, claim: Claim, status: int, body: dict[str, Any] | None) -> None:
    """Store the answer or, with None, free the key, inside the caller's unit of work."""
    repo = IdempotencyRepository(db)
    if body is None:
        repo.release(claim.record_id)
    else:
        repo.complete(claim.record_id, status, body)
    claim.settled = True


def hold_in(db: Session, claim: Claim) -> None:
    """Keep the key held: the outcome is unknown until the platform is asked."""
    IdempotencyRepository(db).hold(claim.record_id)
    claim.settled = True
