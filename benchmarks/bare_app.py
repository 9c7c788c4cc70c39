"""The throughput baselines: a bare FastAPI app, none of pressroom's, on the same stack.

``uvicorn benchmarks.bare_app:create --factory`` (one worker, uvloop, httptools, as the
service runs) serves two ``async def`` routes, each what a plain FastAPI route doing the
same job answers, FastAPI serialising what it returns:

- ``GET /bare/connections``: the JSON the service's ``GET /api/connections/unified``
  answered for the benchmark's account (read from ``BENCH_BARE_JSON`` at start);
- ``POST /bare/publish``: takes the publish body (validated by a pydantic model) and
  answers a result of the publish answer's shape.

Benchmark-only: nothing here is part of pressroom.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

JSON_PATH = "BENCH_BARE_JSON"


class PublishBody(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    connection_id: str = Field(alias="connectionId")
    text: str


def create() -> FastAPI:
    listed: list[dict[str, Any]] = json.loads(Path(os.environ[JSON_PATH]).read_text())
    app = FastAPI()

    async def connections() -> list[dict[str, Any]]:
        return listed

    async def publish(body: PublishBody) -> dict[str, Any]:
        return {
            "success": True,
            "platform": "microblog",
            "connectionId": body.connection_id,
            "status": "published",
            "publishedAt": datetime.now(UTC).isoformat(),
            "url": "https://microblog.example/throughput/status/1234567890123456789",
            "microblogPostId": "1234567890123456789",
            "recordId": "post_" + "0" * 24,
        }

    app.add_api_route("/bare/connections", connections, methods=["GET"])
    app.add_api_route("/bare/publish", publish, methods=["POST"])
    return app
