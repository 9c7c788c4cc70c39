"""The process of a Prefect server kept between runs (see ``prefect_keep``).

Prefect's server app under uvicorn, as its ephemeral mode runs it (the settings come from
the environment ``prefect_keep`` gives it), and beside it a watch that registers the
server once it answers and stops it once no run has held the runs lock of
``prefect_registry`` for the idle time.

Run as ``python -m pressroom.pipeline.prefect_kept_server --port P --idle-seconds S``.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from pressroom.pipeline import prefect_registry

CHECK_SECONDS = 1.0
"""How often the lock is tried: the server outlives its idle time by at most this."""


async def watch(server: Any, api_url: str, idle_seconds: float) -> None:
    """Register ``server`` once it answers; stop it after ``idle_seconds`` without a run."""
    while not server.started:
        await asyncio.sleep(0.05)
    prefect_registry.register(api_url, kept=True)
    lock = prefect_registry.RunsLock()
    last_used = time.monotonic()
    try:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            if not lock.try_exclusive():
                last_used = time.monotonic()
                continue
            try:
                if time.monotonic() - last_used >= idle_seconds:
                    # Unregistered while no run can take the lock: a run that comes
                    # next finds no entry and starts its own server.
                    prefect_registry.unregister()
                    server.should_exit = True
                    return
            finally:
                lock.release()
    finally:
        lock.close()


async def serve(server: Any, api_url: str, idle_seconds: float) -> None:
    watching = asyncio.create_task(watch(server, api_url, idle_seconds))
    try:
        await server.serve()
    finally:
        watching.cancel()
        prefect_registry.unregister()


def _server_class() -> type[Any]:
    import uvicorn

    class KeptUvicornServer(uvicorn.Server):
        """Unregistered as its shutdown begins, whatever began it: after a SIGTERM
        (``pressroom prefect-stop``) uvicorn ends the process by re-raising the signal
        once it has shut down, before any code after ``serve()`` runs."""

        async def shutdown(self, sockets: Any = None) -> None:
            prefect_registry.unregister()
            await super().shutdown(sockets)

    return KeptUvicornServer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--idle-seconds", type=float, required=True)
    args = parser.parse_args(argv)

    import uvicorn
    from prefect.server.api.server import create_app

    from pressroom.service.http_protocol import PROTOCOL

    config = uvicorn.Config(
        create_app(),
        host="127.0.0.1",
        port=args.port,
        log_level="error",
        lifespan="on",
        http=PROTOCOL,  # as every uvicorn pressroom starts
    )
    api_url = f"http://127.0.0.1:{args.port}/api"
    # The event loop uvicorn's own command line would run it on (uvloop when installed).
    if hasattr(config, "get_loop_factory"):  # uvicorn 0.36 and later
        loop_factory = config.get_loop_factory()
    else:  # pragma: no cover - older uvicorn sets a loop policy instead
        config.setup_event_loop()
        loop_factory = None
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(serve(_server_class()(config), api_url, args.idle_seconds))


if __name__ == "__main__":
    main()
