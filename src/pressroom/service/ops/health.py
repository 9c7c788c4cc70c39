"""``/healthz``, ``/readyz`` and ``/metrics``: unauthenticated, not in the OpenAPI document.

- ``/healthz``: 200 while the process serves requests; nothing else is checked, so a
  busy database never gets a live process restarted.
- ``/readyz``: 200 when the database answers (on SQLite: from the file the process
  opened, still at its path), the file store takes a write (local: a small file made
  and removed; S3: a HEAD answers), the database's Alembic revision is the scripts'
  head and the process is not shutting down; else 503 ``not_ready`` with each check's
  result under ``checks``, so the failing one is named (never a path or a host: the
  details go to the log). From SIGTERM on, ``process`` fails, so a balancer stops
  sending while the requests in flight finish (``ops.shutdown``).
- ``/metrics``: the Prometheus text format (``pressroom.service.ops.metrics``).

The routes read the app's state (engine, media library), so the ops server on
``PRESSROOM_OPS_PORT`` serves the very same checks with the API app's state.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy import Engine, text
from starlette.concurrency import run_in_threadpool

from pressroom import error_codes
from pressroom.service.db.migrate import revision, script_head
from pressroom.service.db.session import sqlite_file
from pressroom.service.errors import error_body
from pressroom.service.ops import metrics
from pressroom.service.ops.shutdown import draining

HEALTH_PATHS = ("/healthz", "/readyz")
METRICS_PATH = "/metrics"
OK = "ok"

log = logging.getLogger(__name__)


def readiness(state: Any) -> dict[str, str]:
    """Each check's result: ``ok``, or what is wrong in words fit for anyone.

    The answer is unauthenticated, so it names the check and the kind of failure, never
    a path, a host or a driver's message; those go to the log, once per probe that
    fails, for the operator.
    """
    checks = {"database": OK, "storage": OK, "migrations": OK, "process": OK}
    if draining(state):
        checks["process"] = "shutting down: finishing the requests in flight"
    engine: Engine = state.engine
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
            current = revision(conn)
        head = script_head()
        if current != head:
            checks["migrations"] = f"the database is at {current or 'no revision'}, head is {head}"
    except Exception as exc:
        log.warning("readiness: the database did not answer", exc_info=True)
        checks["database"] = f"unreachable ({type(exc).__name__}; the log says more)"
        checks["migrations"] = "unknown: the database did not answer"
    watch = sqlite_file(engine)
    if watch is not None and checks["database"] == OK and (moved := watch.problem()):
        log.warning("readiness: %s (%s); restart the service", moved, watch.path)
        checks["database"] = moved
    try:
        state.media.storage.check()
    except Exception as exc:
        log.warning("readiness: the file store failed its check", exc_info=True)
        checks["storage"] = f"cannot store files ({type(exc).__name__}; the log says more)"
    return checks


def health_router(*, with_metrics: bool) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": OK}

    @router.get("/readyz")
    async def readyz(request: Request) -> JSONResponse:
        checks = await run_in_threadpool(readiness, request.app.state)
        failed = [name for name, result in checks.items() if result != OK]
        if not failed:
            return JSONResponse({"status": "ready", "checks": checks})
        body = error_body(
            error_codes.NOT_READY.code, f"Not ready: {', '.join(failed)} failed the check."
        )
        body["checks"] = checks
        return JSONResponse(body, status_code=error_codes.NOT_READY.status)

    if with_metrics:

        @router.get(METRICS_PATH)
        async def prometheus() -> Response:
            return Response(metrics.render(), media_type=metrics.CONTENT_TYPE)

    return router
