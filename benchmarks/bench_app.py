"""The service's own app plus two bare routes, for the throughput baseline.

``uvicorn benchmarks.bench_app:create --factory`` serves exactly what ``pressroom api``
serves (``create_app()`` with its middleware, error handlers and media library), and:

- ``GET /bench/constant``: an ``async def`` returning a constant body; the floor of the
  stack (uvicorn, Starlette routing, FastAPI's handling), with no thread hand-off;
- ``GET /bench/constant-sync``: the same from a plain ``def``, which FastAPI runs in its
  thread pool as it runs the service's database routes.

Benchmark-only: the routes are not part of pressroom's API.
"""

from __future__ import annotations

from fastapi import FastAPI, Response

from pressroom.service.app import create_app

BODY = b'{"success":true,"constant":true}'


async def constant() -> Response:
    return Response(BODY, media_type="application/json")


def constant_sync() -> Response:
    return Response(BODY, media_type="application/json")


def create() -> FastAPI:
    app = create_app()
    app.add_api_route("/bench/constant", constant, methods=["GET"], include_in_schema=False)
    app.add_api_route(
        "/bench/constant-sync", constant_sync, methods=["GET"], include_in_schema=False
    )
    return app
