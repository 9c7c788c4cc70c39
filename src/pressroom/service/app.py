"""The application factory: settings in, a ready FastAPI app out."""

from __future__ import annotations

import logging

from fastapi import FastAPI
from sqlalchemy import Engine

from pressroom import __version__
from pressroom.service.accounts.endpoints import router as accounts_router
from pressroom.service.connections.endpoints import router as connections_router
from pressroom.service.db import reads
from pressroom.service.db.base import utcnow
from pressroom.service.db.migrate import upgrade
from pressroom.service.db.session import make_engine, make_session_factory
from pressroom.service.db.writer import writes_for
from pressroom.service.drivers import version_warnings
from pressroom.service.errors import install_error_handlers
from pressroom.service.guard import RequestGuard
from pressroom.service.lifespan import freeze_start_up_objects, run_with_app
from pressroom.service.media.routes import router as media_router
from pressroom.service.media.runtime import install_media
from pressroom.service.metrics.endpoints import router as metrics_router
from pressroom.service.metrics.rounds import install_rounds
from pressroom.service.oauth.refresher import install_token_refresher
from pressroom.service.openapi import install_openapi, operation_id
from pressroom.service.ops.health import health_router
from pressroom.service.ops.requests import RequestContext
from pressroom.service.ops.server import install_ops_server
from pressroom.service.ops.shutdown import install_drain_on_signal
from pressroom.service.processes import install_registry
from pressroom.service.publishing.endpoints import router as publishing_router
from pressroom.service.publishing.unknowns import install_reconciler
from pressroom.service.ratelimit import install_rate_limiter
from pressroom.service.route_cache import install_route_cache
from pressroom.service.storage.local import UPLOAD_PREFIX
from pressroom.service.web.apidocs import install_api_docs
from pressroom.service.web.install import install_dashboard
from pressroom.service.webhooks.dispatcher import install_dispatcher
from pressroom.service.webhooks.docs import install_webhook_docs
from pressroom.service.webhooks.endpoints import router as webhooks_router
from pressroom.service.webhooks.events_endpoints import router as events_router
from pressroom.settings import Settings, get_settings

log = logging.getLogger(__name__)

DESCRIPTION = """\
Media library and publishing to eight social platforms.

Every request carries `X-API-Key`. Every error body is
`{"success": false, "error": {"code": ..., "message": ..., "field": ...}}`;
the codes are listed in the documentation (Error codes, generated from
`pressroom.error_codes`), and `requestId` is the request's `X-Request-ID`.
"""


def create_app(
    settings: Settings | None = None, *, migrate: bool = True, kind: str = "api"
) -> FastAPI:
    """The service; ``kind`` is how its process registers (``worker`` for
    ``pressroom worker``, which runs the lifespan without listening)."""
    settings = settings or get_settings()
    for platform, warning in version_warnings(settings.networks, utcnow()).items():
        log.warning("%s: %s", platform.value, warning)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    if migrate:
        upgrade(settings.database_url)
    engine = make_engine(
        settings.database_url, busy_timeout=settings.db.database_busy_timeout_seconds
    )

    app = FastAPI(
        title="pressroom",
        version=__version__,
        description=DESCRIPTION,
        generate_unique_id_function=operation_id,
        docs_url=None,  # served by install_api_docs from the package, not from a CDN
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.session_factory = make_session_factory(engine)
    install_rate_limiter(app, settings.rate_limit_per_minute)
    # Installed first so that it runs last as the app starts, once all it keeps is made.
    run_with_app(app, freeze_start_up_objects, lambda: None)

    app.add_middleware(
        RequestGuard, max_body_bytes=settings.max_body_bytes, exempt_prefixes=(UPLOAD_PREFIX,)
    )
    install_error_handlers(app)  # its last-resort middleware goes outside the guard
    # outermost: the request id is set before anything can log or answer an error
    app.add_middleware(RequestContext, record_metrics=settings.ops.metrics)
    install_openapi(app)
    install_media(app)
    install_reconciler(app)
    install_rounds(app)
    install_token_refresher(app)
    install_dispatcher(app)
    if kind == "api":
        install_drain_on_signal(app, settings.ops.shutdown_grace_seconds)
    # The request path's group writer (SQLite) finishes what is queued once nothing
    # else of the app writes any more.
    run_with_app(app, lambda: None, writes_for(engine).stop)
    install_registry(app, kind)  # last: its start, which may refuse, runs first
    # outermost of all: once every background part has stopped, the pool's connections
    # are closed rather than left to the garbage collector (a replica restarted in-process,
    # or a test's app, would otherwise hold its share of the database's connection slots)
    run_with_app(app, start=lambda: None, stop=lambda: _close_pool(engine))
    for router in (
        accounts_router,
        connections_router,
        media_router,
        metrics_router,
        publishing_router,
        webhooks_router,
        events_router,
    ):
        app.include_router(router)
    install_dashboard(app)
    install_api_docs(app)
    install_webhook_docs(app)
    if settings.ops.ops_port is None:
        app.include_router(health_router(with_metrics=settings.ops.metrics))
    else:
        install_ops_server(app, settings.ops)
    install_route_cache(app.router)
    return app


def _close_pool(engine: Engine) -> None:
    """The connections the loops keep for reads go back to the pool, then the pool's
    connections are closed."""
    reads.release_kept(engine)
    engine.dispose()
