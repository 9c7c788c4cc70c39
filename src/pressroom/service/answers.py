"""JSON answers encoded at once, for the routes whose answers are built on the hot path.

A route that returns its answer as data has FastAPI validate it against the response
model and then serialise it, which costs more than the route's own reads on the
busiest routes (benchmarks/README.md). Those routes build the answer's JSON themselves
(the fields are already what the model documents) and return it as ``JsonAnswer``:
the same bytes Starlette's ``JSONResponse`` writes (UTF-8, no spaces), made by orjson.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response


class JsonAnswer(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)
