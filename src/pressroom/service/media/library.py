"""The media library as its parts see it: settings, storage, units of work, and the
workers that process uploads.

``runtime.install_media`` makes one per app and gives it its workers; code that only has
a database session finds it through ``library_of(db)``: every session made by the app's
session factory carries it.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.storage import Storage
from pressroom.settings import Settings

LIBRARY_KEY = "pressroom.media"
"""Where a session factory's ``info`` keeps its app's library."""


class MediaWork(Protocol):
    """The workers of the library (``processing.Processor``)."""

    def start(self, *, work: bool = True) -> None: ...

    def stop(self) -> None: ...

    def wake(self) -> None: ...


class MediaLibrary:
    processor: MediaWork
    """Set by ``runtime.install_media`` (or a test) before the library starts."""

    def __init__(
        self, settings: Settings, storage: Storage, sessions: sessionmaker[Session]
    ) -> None:
        self.settings = settings
        self.storage = storage
        self.sessions = sessions

    def start(self) -> None:
        self.processor.start(work=self.settings.process_in_api)

    def stop(self) -> None:
        self.processor.stop()


def library_of(db: Session) -> MediaLibrary | None:
    """The media library of the app whose session factory made ``db``."""
    library = db.info.get(LIBRARY_KEY)
    return library if isinstance(library, MediaLibrary) else None
