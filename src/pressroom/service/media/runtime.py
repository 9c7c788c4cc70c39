"""The media library's running parts: storage, the processing workers and housekeeping.

``install_media(app)`` builds them from the app's settings, starts them with the app's
lifespan and stops them with it; routes get the library through the ``Library``
dependency.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, FastAPI, Request
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.lifespan import run_with_app
from pressroom.service.media.library import LIBRARY_KEY, MediaLibrary
from pressroom.service.media.processing import Processor
from pressroom.service.storage import make_storage
from pressroom.settings import Settings


def install_media(app: FastAPI) -> MediaLibrary:
    """Attach the media library to an app made by ``create_app``."""
    settings: Settings = app.state.settings
    sessions: sessionmaker[Session] = app.state.session_factory
    library = MediaLibrary(settings, make_storage(settings), sessions)
    library.processor = Processor(library)
    app.state.media = library
    sessions.configure(info={**sessions.kw.get("info", {}), LIBRARY_KEY: library})

    run_with_app(app, library.start, library.stop)
    return library


def get_library(request: Request) -> MediaLibrary:
    library: MediaLibrary = request.app.state.media
    return library


Library = Annotated[MediaLibrary, Depends(get_library)]
