"""Recorded answers shaped like the hosted service's, served through httpx.MockTransport.

The hosted service this API comes from sends numeric file ids, reports a finished upload
as ``completed`` or ``uploaded``, leaves out fields pressroom sends and adds its own. Its
presigned addresses point at an S3 bucket on another host. The fake records every
request (bodies read) so tests can check exactly what the client sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import httpx

from pressroom.platforms import RULES, THUMBNAIL_PATH

BASE_URL = "https://api.hosted.example"
STORAGE = "https://media-bucket.s3.amazonaws.com"
API_KEY = "prk_live_hostedSECRETkey0123456789abcdefghijklmn"
FILE_ID = 48213
SIGNATURE = "X-Amz-Signature=deadbeefSIGNATURE"

Handler = Callable[[httpx.Request, re.Match[str]], httpx.Response]


@dataclass
class Hosted:
    """A programmable stand-in: ``on(method, url_regex, handler)`` adds or replaces a route."""

    routes: list[tuple[str, re.Pattern[str], Handler]] = field(default_factory=list)
    requests: list[httpx.Request] = field(default_factory=list)
    stored: dict[str, bytes] = field(default_factory=dict)

    def on(self, method: str, pattern: str, handler: Handler) -> None:
        self.routes.insert(0, (method, re.compile(pattern + "$"), handler))

    def answer(
        self,
        method: str,
        pattern: str,
        status: int,
        body: Any,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.on(method, pattern, lambda _r, _m: httpx.Response(status, json=body, headers=headers))

    def answer_in_turn(self, method: str, pattern: str, answers: list[httpx.Response]) -> None:
        """Each request gets the next answer; the last one repeats."""
        queue: Iterator[httpx.Response] = iter(answers)
        last: list[httpx.Response] = []

        def handler(_r: httpx.Request, _m: re.Match[str]) -> httpx.Response:
            nxt = next(queue, None)
            if nxt is not None:
                last[:] = [nxt]
            return last[0]

        self.on(method, pattern, handler)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        target = str(request.url.copy_with(query=None))
        for method, pattern, handler in self.routes:
            if request.method == method and (found := pattern.match(target)):
                return handler(request, found)
        return httpx.Response(404, json={"message": "Cannot " + request.method})

    def sent(self, method: str, part: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.method == method and part in r.url.path]

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


def body_of(request: httpx.Request) -> Any:
    return json.loads(request.content)


def hosted_service() -> Hosted:
    """The hosted service's answers to a typical session, with its quirks."""
    fake = Hosted()
    api = re.escape(BASE_URL)

    def presign(request: httpx.Request, _m: re.Match[str]) -> httpx.Response:
        name = body_of(request)["filename"]
        return httpx.Response(
            200,
            json={
                "success": True,
                "fileId": FILE_ID,  # a number, not a string
                "uploadUrl": f"{STORAGE}/uploads/{FILE_ID}/{name}?{SIGNATURE}&X-Amz-Expires=900",
                "expiresIn": 900,  # not in our shape
            },
        )

    def put(request: httpx.Request, found: re.Match[str]) -> httpx.Response:
        fake.stored[found.group(1)] = request.content
        return httpx.Response(200, headers={"ETag": '"abc"'})

    fake.on("POST", api + "/api/upload/presigned-url", presign)
    fake.on("PUT", re.escape(STORAGE) + r"/uploads/(\d+/[^/]+)", put)
    fake.answer_in_turn(
        "GET",
        api + rf"/api/upload/status/{FILE_ID}",
        [
            httpx.Response(200, json={"fileId": FILE_ID, "status": "processing"}),
            httpx.Response(
                200,
                json={
                    "fileId": FILE_ID,
                    "status": "completed",
                    "url": f"{STORAGE}/uploads/{FILE_ID}/launch.mp4",
                    "mimeType": "video/mp4",
                },
            ),
        ],
    )
    for rules in RULES.values():
        fake.on("POST", api + re.escape(rules.publish_path), _publish(rules.id_field))
    fake.on("POST", api + THUMBNAIL_PATH.replace("{videoId}", r"([^/]+)"), _thumbnail)
    return fake


_NUMBER = iter(range(900_001, 10**9))


def _publish(id_field: str) -> Handler:
    def handler(request: httpx.Request, _m: re.Match[str]) -> httpx.Response:
        body = body_of(request)
        platform = body.get("platform") or request.url.path.split("/")[3]
        number = next(_NUMBER)
        result = {
            "success": True,
            "platform": platform,
            "connectionId": body["connectionId"],
            "status": "published",
            "publishedAt": "2026-11-02T10:00:00Z",
            "url": f"https://{platform}.example/p/{number}",
            id_field: number,  # a number too
            "scheduled": False,  # not in our shape
        }
        return httpx.Response(200, json=result)

    return handler


def _thumbnail(request: httpx.Request, found: re.Match[str]) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "success": True,
            "videoId": unquote(found.group(1)),
            "thumbnailUrl": "https://video.example/t/1.jpg",
            "status": "thumbnail_set",
            "updatedAt": "2026-11-02T10:01:00Z",
        },
    )
