"""Mounting the dashboard on the app: its routers and its vendored static files."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pressroom.service.web.error_pages import install_error_pages, sections_of
from pressroom.service.web.templating import HERE


class _Nosniff:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-content-type-options", b"nosniff"),
                ]
            await send(message)

        await self.app(scope, receive, sending)


def install_dashboard(app: FastAPI) -> None:
    from pressroom.service.drivers import sandbox_pages
    from pressroom.service.web.routes import (
        auth,
        campaigns,
        connections,
        media,
        metrics,
        overview,
        posts,
        settings,
        webhooks,
    )

    pages = (
        auth,
        settings,
        overview,
        posts,
        campaigns,
        connections,
        media,
        webhooks,
        metrics,
        sandbox_pages,
    )
    for module in pages:
        app.include_router(module.router)
    install_error_pages(app, sections_of(r.path for m in pages for r in m.router.routes))
    app.include_router(sandbox_pages.api)
    app.mount("/static", _Nosniff(StaticFiles(directory=HERE / "static")), name="static")
