"""How requests reach their routes: ``route_cache`` and ``routing.RequestRoute``."""

from __future__ import annotations

from typing import Any

import fastapi.routing
import pytest
from fastapi import Request, Response
from starlette.routing import BaseRoute, Match

from pressroom.platforms import Platform
from pressroom.service.routing import RequestRoute
from tests.conftest import Service
from tests.support.publish import error_of, publish, valid_body


def _counting(route: BaseRoute, asked: list[str]) -> None:
    matches = route.matches

    def counted(scope: Any) -> tuple[Match, Any]:
        asked.append(scope["path"])
        return matches(scope)

    route.matches = counted  # type: ignore[method-assign]


def test_a_path_without_parameters_is_looked_for_once(service: Service) -> None:
    """The second request to the same route goes straight to it: the routes before it,
    which cannot match it, are not asked again."""
    account = service.account()
    app: Any = service.client.app
    asked: list[str] = []
    first_router = next(r for r in app.router.routes if hasattr(r, "original_router"))
    _counting(first_router, asked)
    for _ in range(3):
        assert account.get("/api/connections/unified").status_code == 200  # type: ignore[attr-defined]
    assert asked == ["/api/connections/unified"]


def test_the_router_remembered_is_not_asked_again(service: Service) -> None:
    """The included router that took a path is asked whether it matches once, on the
    first walk: its answer adds nothing to the request, and it walks its own routes
    again anyway as it hands the request on."""
    account = service.account()
    app: Any = service.client.app
    asked: list[str] = []
    taking = next(
        r
        for r in app.router.routes
        if hasattr(r, "original_router")
        and any(
            getattr(c, "path", None) == "/api/connections/unified" for c in r.original_router.routes
        )
    )
    _counting(taking, asked)
    for _ in range(3):
        assert account.get("/api/connections/unified").status_code == 200  # type: ignore[attr-defined]
    assert asked == ["/api/connections/unified"]


def test_the_routes_answer_as_before_however_often_asked(service: Service) -> None:
    """Paths with parameters, wrong methods and unknown paths walk the routes each
    time and keep their answers."""
    account = service.account()
    for _ in range(2):
        wrong = service.client.delete("/api/connections/unified", headers=account.headers)
        assert wrong.status_code == 405
        assert wrong.json()["error"]["code"] == "method_not_allowed"
        assert service.client.get("/api/nothing-here").status_code == 404
        missing = account.get("/api/posts/post_nothing")
        assert missing.status_code == 404  # type: ignore[attr-defined]
        assert missing.json()["error"]["code"] == "post_not_found"  # type: ignore[attr-defined]
        assert account.get("/api/connections/unified").status_code == 200  # type: ignore[attr-defined]


def test_a_request_route_takes_the_request_alone() -> None:
    async def two(request: Request, limit: int) -> Response:
        return Response()

    def blocking(request: Request) -> Response:
        return Response()

    for endpoint in (two, blocking):
        with pytest.raises(TypeError, match="takes \\(request: Request\\)"):
            RequestRoute("/x", endpoint)


def test_the_unified_list_is_answered_without_fastapis_dependency_solver(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It takes the request alone: FastAPI's solver, a third of its cost, has nothing
    to solve."""
    account = service.account()
    account.connect("microblog", "@solo")

    async def unsolvable(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the dependency solver ran")

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", unsolvable)
    listed = account.get("/api/connections/unified")
    assert listed.status_code == 200  # type: ignore[attr-defined]
    assert [c["name"] for c in listed.json()] == ["@solo"]  # type: ignore[attr-defined]


def test_a_valid_publish_body_goes_to_the_route_without_fastapis_dependency_solver(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``routing.json_body_handler``: a valid JSON body is validated once and handed
    to the endpoint; any other body is FastAPI's to answer, as it always was."""
    account = service.account()
    solved: list[str] = []
    solve = fastapi.routing.solve_dependencies

    async def counted(*args: Any, **kwargs: Any) -> Any:
        solved.append(kwargs["request"].url.path)
        return await solve(*args, **kwargs)

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counted)
    body = valid_body(account, Platform.MICROBLOG)
    assert publish(account, Platform.MICROBLOG, body, key="valid").status_code == 200
    assert solved == []

    refused = publish(account, Platform.MICROBLOG, {**body, "txet": "typo"}, key="typo")
    assert refused.status_code == 400 and error_of(refused)["field"] == "txet"
    assert solved == ["/api/v2/microblog/publish"]


def test_a_remembered_path_goes_straight_to_its_fastapi_route(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the first request, the included routers (the publish routes sit two deep)
    no longer walk their routes for a path without parameters: the route they picked
    is handed the request, with what their walk put in the scope."""
    account = service.account()
    walked: list[str] = []
    included: Any = fastapi.routing._IncludedRouter  # type: ignore[attr-defined]
    match = included._match

    def counted(self: Any, scope: Any) -> Any:
        walked.append(scope["path"])
        return match(self, scope)

    monkeypatch.setattr(included, "_match", counted)
    body = valid_body(account, Platform.MICROBLOG)
    for n in range(3):
        answer = publish(account, Platform.MICROBLOG, body, key=f"straight-{n}")
        assert answer.status_code == 200
        assert answer.json()["success"] is True
    first = len(walked)
    assert first > 0  # the first request walked (and the cache followed the walk)
    for n in range(3, 6):
        assert publish(account, Platform.MICROBLOG, body, key=f"straight-{n}").status_code == 200
    assert len(walked) == first
    replayed = publish(account, Platform.MICROBLOG, body, key="straight-0")
    assert replayed.headers["Idempotent-Replayed"] == "true"
