"""The ops port: ``/healthz``, ``/readyz`` and ``/metrics`` on ``PRESSROOM_OPS_PORT``.

A second, small uvicorn server started and stopped with the API app's lifespan, on a
thread of its own (uvicorn installs no signal handlers off the main thread, so the
API's server keeps its own). It serves the API app's state, so its checks are the
API's. Each uvicorn worker would start one and only the first could bind the port:
with ``PRESSROOM_OPS_PORT`` run a single worker (``pressroom api`` refuses more).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import FastAPI

from pressroom.service.ops.health import health_router
from pressroom.service.ops.requests import RequestContext
from pressroom.settings import OpsSettings

log = logging.getLogger(__name__)


def ops_app(api: FastAPI, *, with_metrics: bool) -> FastAPI:
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    app.state = api.state  # the same engine and storage as the API's routes
    app.include_router(health_router(with_metrics=with_metrics))
    app.add_middleware(RequestContext, record_metrics=False)
    return app


def install_ops_server(api: FastAPI, ops: OpsSettings) -> None:
    """Run the ops server for as long as ``api``'s lifespan."""
    import uvicorn

    from pressroom.service.http_protocol import PROTOCOL

    assert ops.ops_port is not None
    config = uvicorn.Config(
        ops_app(api, with_metrics=ops.metrics),
        host=ops.ops_host,
        port=ops.ops_port,
        log_config=None,
        access_log=False,
        lifespan="off",
        http=PROTOCOL,
    )
    previous: Callable[[Any], AbstractAsyncContextManager[Any]] = api.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="pressroom-ops", daemon=True)
        thread.start()
        _wait_started(server, thread, f"{ops.ops_host}:{ops.ops_port}")
        try:
            async with previous(app_) as state:
                yield state
        finally:
            server.should_exit = True
            thread.join(timeout=5)

    api.router.lifespan_context = lifespan


def _wait_started(server: Any, thread: threading.Thread, where: str) -> None:
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the ops server could not listen on {where} (PRESSROOM_OPS_PORT)")
        time.sleep(0.02)
    log.info("health and metrics on http://%s", where)
