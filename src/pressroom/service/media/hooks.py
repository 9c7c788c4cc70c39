"""Work that waits for a unit of work to end: run after its commit, or after either end.

Handing a file to the media workers (which must see it committed) and removing bytes
(which must not vanish while their record survives a rollback) are such work.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy import event
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)

_AFTER_COMMIT = "pressroom.after_commit"


def after_commit(db: Session, action: Callable[[], None]) -> None:
    """Run ``action`` once ``db``'s transaction has committed; forget it on rollback.

    Work that must never run for a transaction that did not happen goes here: handing a
    file to the processing pool (which must see it committed) and removing bytes (which
    must not vanish while their record survives a rollback).
    """
    _hooks(db)["commit"].append(action)


def after_transaction(db: Session, action: Callable[[], None]) -> None:
    """Run ``action`` once ``db``'s transaction has ended, committed or rolled back."""
    _hooks(db)["end"].append(action)


def _hooks(db: Session) -> dict[str, list[Callable[[], None]]]:
    hooks: dict[str, list[Callable[[], None]]] | None = db.info.get(_AFTER_COMMIT)
    if hooks is None:
        hooks = {"commit": [], "end": []}
        db.info[_AFTER_COMMIT] = hooks
        event.listen(db, "after_commit", _committed)
        event.listen(db, "after_rollback", _rolled_back)
    return hooks


def _committed(db: Session) -> None:
    if db.in_nested_transaction():
        return  # a savepoint, not the transaction
    hooks = _hooks(db)
    _run([*hooks["commit"], *hooks["end"]])
    hooks["commit"].clear()
    hooks["end"].clear()


def _rolled_back(db: Session) -> None:
    if db.in_nested_transaction():
        return
    hooks = _hooks(db)
    hooks["commit"].clear()
    pending = list(hooks["end"])
    hooks["end"].clear()
    _run(pending)


def _run(actions: list[Callable[[], None]]) -> None:
    for action in actions:
        try:
            action()
        except Exception:
            log.exception("after-transaction action failed")
