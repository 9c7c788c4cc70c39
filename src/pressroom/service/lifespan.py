"""Background parts that live as long as the app: started with it, stopped with it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI


def run_with_app(app: FastAPI, start: Callable[[], None], stop: Callable[[], None]) -> None:
    """Call ``start`` when the app starts serving and ``stop`` when it shuts down,
    around whatever its lifespan already does."""
    previous: Callable[[Any], AbstractAsyncContextManager[Any]] = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        start()
        try:
            async with previous(app_) as state:
                yield state
        finally:
            stop()

    app.router.lifespan_context = lifespan
