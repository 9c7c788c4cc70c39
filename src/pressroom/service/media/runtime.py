"""The media library's running parts: storage, the processing pool and housekeeping.

``install_media(app)`` builds them from the app's settings, starts them with the app's
lifespan (picking up files a previous run left ``processing``) and stops them with it.
Code that only has a database session finds the library through ``library_of(db)``:
every session made by the app's session factory carries it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, FastAPI, Request
from sqlalchemy import event
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.lifespan import run_with_app
from pressroom.service.storage import Storage, make_storage
from pressroom.settings import Settings

log = logging.getLogger(__name__)

_LIBRARY = "pressroom.media"
_AFTER_COMMIT = "pressroom.after_commit"


class MediaLibrary:
    def __init__(
        self, settings: Settings, storage: Storage, sessions: sessionmaker[Session]
    ) -> None:
        from pressroom.service.media.processing import Processor

        self.settings = settings
        self.storage = storage
        self.sessions = sessions
        self.processor = Processor(self)

    def start(self) -> None:
        self.processor.start(work=self.settings.process_in_api)

    def stop(self) -> None:
        self.processor.stop()


def install_media(app: FastAPI) -> MediaLibrary:
    """Attach the media library to an app made by ``create_app``."""
    settings: Settings = app.state.settings
    sessions: sessionmaker[Session] = app.state.session_factory
    library = MediaLibrary(settings, make_storage(settings), sessions)
    app.state.media = library
    sessions.configure(info={**sessions.kw.get("info", {}), _LIBRARY: library})

    run_with_app(app, library.start, library.stop)
    return library


def library_of(db: Session) -> MediaLibrary | None:
    """The media library of the app whose session factory made ``db``."""
    library = db.info.get(_LIBRARY)
    return library if isinstance(library, MediaLibrary) else None


def get_library(request: Request) -> MediaLibrary:
    library: MediaLibrary = request.app.state.media
    return library


Library = Annotated[MediaLibrary, Depends(get_library)]


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
