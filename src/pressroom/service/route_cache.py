"""The app router's walk, remembered for each path without parameters.

A request is routed by asking each of the app's routes in turn whether it matches,
and an included router answers by asking each of its own routes, twice (once to say
it matches, once to pick the route it hands the request to). With pressroom's routers
that walk cost a publish 0.13 ms before any of its code ran, more than the bare app's
whole request (benchmarks/README.md). ``RouteCache`` remembers which of the app's
routes took a method and path that has no parameters (``/api/v2/microblog/publish``,
not ``/api/posts/{recordId}``), and hands the next such request to that route
directly; the routes before it cannot match it, since a match depends on nothing
else (pressroom has no host-based routes, which would depend on a header). Nor is
that route asked again whether it matches, when its answer added nothing to the
request's scope (an included router's, which walked its own routes to say so and
walks them again as it hands the request on): that second walk cost the unified
connection list a twelfth of its CPU. Anything else, a path with parameters, a 405 or
a 404, a redirect, walks the routes as before.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from starlette.routing import BaseRoute, Host, Match, Mount, Router
from starlette.types import ASGIApp, Receive, Scope, Send

try:  # FastAPI's request telemetry, from 0.150: it is told which route was selected
    from fastapi.telemetry._api import _route_selected
except ImportError:  # pragma: no cover - older FastAPI

    def _route_selected(
        *, scope: MutableMapping[str, Any], path: str | None, mount: bool = False
    ) -> None:
        return None


MAX_PATHS = 1024
"""Paths remembered at most: the app's own static routes are a few dozen."""


class RouteCache:
    """The router's entry point (``Router.middleware_stack``), with the cache in front."""

    def __init__(self, router: Router, walk: ASGIApp) -> None:
        self.router = router
        self.walk = walk
        self._routes: dict[tuple[str, str, str], tuple[BaseRoute, bool]] = {}
        """Each remembered route, and whether its match adds nothing to the scope (an
        included router's: FastAPI's own walk inside it picks the endpoint)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.walk(scope, receive, send)
            return
        key = (scope["method"], scope.get("root_path", ""), scope["path"])
        found = self._routes.get(key)
        if found is not None:
            remembered, settled = found
            if settled:  # it adds nothing to the scope: asking it again tells nothing new
                await self._handle(remembered, {}, scope, receive, send)
                return
            match, child_scope = remembered.matches(scope)
            if match == Match.FULL:
                await self._handle(remembered, child_scope, scope, receive, send)
                return
            del self._routes[key]  # pragma: no cover - the routes changed since
        route, child_scope = self._first_full_match(scope)
        if route is None:
            await self.walk(scope, receive, send)
            return
        await self._handle(route, child_scope, scope, receive, send)
        if not scope.get("path_params") and len(self._routes) < MAX_PATHS:
            self._routes[key] = (route, not child_scope)

    def _first_full_match(self, scope: Scope) -> tuple[BaseRoute | None, Scope]:
        """The route the router's own walk would hand ``scope`` to, when one matches it
        fully and it may be remembered; None for the walk's other answers (405,
        redirect, 404) and when a host-based route comes first."""
        for route in self.router.routes:
            if isinstance(route, Host):
                return None, {}
            match, child_scope = route.matches(scope)
            if match == Match.FULL:
                return route, child_scope
        return None, {}

    async def _handle(
        self, route: BaseRoute, child_scope: Scope, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """What the router does with a route that matched (``APIRouter.app``)."""
        scope.setdefault("router", self.router)
        scope.update(child_scope)
        _route_selected(
            scope=scope, path=getattr(route, "path_format", None), mount=isinstance(route, Mount)
        )
        await route.handle(scope, receive, send)


def install_route_cache(router: Router) -> None:
    """Put the cache in front of the router's walk (call once its routes are added)."""
    router.middleware_stack = RouteCache(router, router.middleware_stack)
