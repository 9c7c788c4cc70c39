"""Shutting down without dropping requests: readiness fails from SIGTERM on.

A balancer sends requests to a process while its ``/readyz`` answers 200. When the
process is told to stop, readiness fails at once (``checks.process``), and the API
process keeps listening for ``PRESSROOM_SHUTDOWN_GRACE_SECONDS`` more before uvicorn's
own shutdown begins (stop listening, finish the requests in flight, run the lifespan's
end): long enough for the balancer's next probes to see the 503 and stop sending, so
no request meets a closed port. The default, 0, stops listening at once; the ops port
(``PRESSROOM_OPS_PORT``) still answers 503 until the requests in flight are done.

The hook wraps whatever handler uvicorn installed (its server installs them before the
lifespan starts and restores them after it ends), and hands the signal on to it, so
uvicorn's shutdown runs as it always does. A second signal is handed on at once, and
Ctrl-C (SIGINT) never waits for the grace: it is a person at a terminal, not a balancer.
Handlers can only be set on the main thread: an app served from another thread (the
demo's) or by a test client keeps plain shutdown.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import FrameType
from typing import Any

from fastapi import FastAPI

log = logging.getLogger(__name__)

Handler = Callable[[int, FrameType | None], Any] | int | None


def draining(state: Any) -> bool:
    """Whether the process was told to stop (readiness fails from then on)."""
    return bool(getattr(state, "draining", False))


def begin_draining(state: Any) -> None:
    state.draining = True


def install_drain_on_signal(app: FastAPI, grace_seconds: float) -> None:
    """Fail readiness on SIGTERM or SIGINT, and hand SIGTERM on after ``grace_seconds``."""
    previous_lifespan: Callable[[Any], AbstractAsyncContextManager[Any]] = (
        app.router.lifespan_context
    )

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        if threading.current_thread() is not threading.main_thread():
            async with previous_lifespan(app_) as state:
                yield state
            return
        loop = asyncio.get_running_loop()
        handed: dict[int, Handler] = {
            sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)
        }

        def on_signal(sig: int, frame: FrameType | None) -> None:
            first = not draining(app.state)
            begin_draining(app.state)
            if first and sig == signal.SIGTERM and grace_seconds > 0:
                log.info(
                    "SIGTERM: not ready from now on; still serving for %g s, then stopping",
                    grace_seconds,
                )

                # A signal handler runs between two steps of the loop's own thread: ask
                # the loop to schedule the hand-over, and wake it.
                def later() -> None:
                    loop.call_later(grace_seconds, _hand_on, handed, sig)

                loop.call_soon_threadsafe(later)
                return
            _hand_on(handed, sig, frame)

        for sig in handed:
            signal.signal(sig, on_signal)
        try:
            async with previous_lifespan(app_) as state:
                yield state
        finally:
            for sig, handler in handed.items():
                if signal.getsignal(sig) is on_signal:
                    signal.signal(sig, handler)

    app.router.lifespan_context = lifespan


def _hand_on(handed: dict[int, Handler], sig: int, frame: FrameType | None = None) -> None:
    """Give the signal to the handler that was there before ours (uvicorn's)."""
    handler = handed[sig]
    if callable(handler):
        handler(sig, frame)
        return
    signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
    signal.raise_signal(sig)
