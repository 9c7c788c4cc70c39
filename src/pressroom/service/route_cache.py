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
connection list a twelfth of its CPU. Nor does a remembered included router walk
its routes again for such a path: the FastAPI route it picked the first time (inside
as many included routers as there are) is handed the request directly, with what
FastAPI's walk puts in the scope for it (``_Endpoint``). That walk, twice per level of
inclusion (each level asks its routes whether they match, then again as it hands the
request on) with FastAPI's check that no router changed, cost a publish 20 us. Anything
else, a path with parameters, a 405 or a 404, a redirect, walks the routes as before.
"""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from fastapi.routing import APIRoute
from starlette.routing import BaseRoute, Host, Match, Mount, Router
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)

try:  # FastAPI's request telemetry, from 0.150: it is told which route was selected
    from fastapi.telemetry._api import _route_selected
except ImportError:  # pragma: no cover - older FastAPI

    def _route_selected(
        *, scope: MutableMapping[str, Any], path: str | None, mount: bool = False
    ) -> None:
        return None


MAX_PATHS = 1024
"""Paths remembered at most: the app's own static routes are a few dozen."""


@dataclass(frozen=True)
class _Endpoint:
    """A FastAPI route inside included routers, and what FastAPI's walk to it leaves in
    the request's scope (``fastapi.routing._IncludedRouter._handle_selected``): the
    route's effective context (the route as its routers' prefixes and dependencies
    make it), the innermost router, the endpoint, and the path for telemetry."""

    route: APIRoute
    context: Any
    router: Any
    endpoint: Any
    path: str | None

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["endpoint"] = self.endpoint
        scope["path_params"] = {}
        fastapi_scope = scope.setdefault(_FASTAPI_SCOPE, {})
        fastapi_scope[_INCLUDED_ROUTER] = self.router
        fastapi_scope[_EFFECTIVE_CONTEXT] = self.context
        _route_selected(scope=scope, path=self.path)
        scope["route"] = self.route
        await self.route.handle(scope, receive, send)


_FASTAPI_SCOPE = "fastapi"
_INCLUDED_ROUTER = "included_router"
_EFFECTIVE_CONTEXT = "effective_route_context"
"""Where FastAPI's walk through included routers keeps its state in the scope."""

_INCLUDED: type[Any] | None
try:  # included routers are walked, not copied, from FastAPI 0.150
    from fastapi.routing import _IncludedRouter

    _INCLUDED = _IncludedRouter
except ImportError:  # pragma: no cover - older FastAPI: nothing to follow
    _INCLUDED = None


def endpoint_of(route: BaseRoute, scope: Scope) -> _Endpoint | None:
    """The FastAPI route that ``route``, an included router, hands ``scope`` to, found
    as FastAPI's own walk finds it, on a copy of the scope; None when that is not one
    route matched fully without path parameters (then the walk goes on each time)."""
    if _INCLUDED is None or not isinstance(route, _INCLUDED):
        return None
    probe: dict[str, Any] = {**scope, _FASTAPI_SCOPE: {}}
    included = route
    try:
        for _ in range(16):  # routers nest a few levels deep
            probe[_FASTAPI_SCOPE][_INCLUDED_ROUTER] = included
            match, child_scope, found, context = included._match(probe)
            if match != Match.FULL:
                return None
            if isinstance(found, _INCLUDED):
                included = found
                continue
            if (
                not isinstance(found, APIRoute)
                or context is None
                or context.original_route is not found
                or child_scope.get("path_params")
            ):
                return None
            path = getattr(context.starlette_route, "path_format", None) or context.path_format
            return _Endpoint(found, context, included, child_scope.get("endpoint"), path)
    except Exception:  # pragma: no cover - FastAPI's internals changed: walk instead
        log.debug("the route cache cannot follow FastAPI's walk", exc_info=True)
    return None


class RouteCache:
    """The router's entry point (``Router.middleware_stack``), with the cache in front."""

    def __init__(self, router: Router, walk: ASGIApp) -> None:
        self.router = router
        self.walk = walk
        self._routes: dict[tuple[str, str, str], tuple[BaseRoute, bool]] = {}
        """Each remembered route, and whether its match adds nothing to the scope (an
        included router's: FastAPI's own walk inside it picks the endpoint)."""
        self._endpoints: dict[tuple[str, str, str], _Endpoint] = {}
        """The FastAPI route a remembered included router hands each path to."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.walk(scope, receive, send)
            return
        key = (scope["method"], scope.get("root_path", ""), scope["path"])
        endpoint = self._endpoints.get(key)
        if endpoint is not None:
            scope.setdefault("router", self.router)
            await endpoint.handle(scope, receive, send)
            return
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
        settled = not child_scope
        endpoint = endpoint_of(route, scope) if settled else None
        await self._handle(route, child_scope, scope, receive, send)
        if not scope.get("path_params") and len(self._routes) < MAX_PATHS:
            self._routes[key] = (route, settled)
            if endpoint is not None:
                self._endpoints[key] = endpoint

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
