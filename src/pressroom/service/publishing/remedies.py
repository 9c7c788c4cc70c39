"""What can be done about a post that did not go out whole: retry it under its
Idempotency-Key, or look an unknown outcome up. The dashboard's post page offers them.

- ``retry`` sends the record's request again, with its key, through the publish route
  itself (in process: ``IdempotentRoute``, the route, the service), so it does exactly
  what a client's retry with the key does (``idempotency``): a kept answer is replayed
  and nothing is sent; a held key is looked up before anything is sent; a ``partial``
  post resumes after the parts that stand (``resuming``); a free key sends the post as
  new. There is no second way to publish to keep in step with the first.
- ``look_up`` is the reconciler's step for one record (``unknowns.settle_unknown``):
  a post of several parts has each of its unsettled parts looked up in order, nothing
  sent, and is recorded published, partial or failed as they are found.

Which of them a record offers (``remedies``) follows from its status and its key: a
post some of whose parts may stand is retried only while its key is kept, since a
retry with an expired key would send every part again.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.types import Message

from pressroom.platforms import RULES, Platform
from pressroom.service.db.models import Account, Post
from pressroom.service.drivers import drivers_of
from pressroom.service.publishing.claims import HEADER, REPLAYED_HEADER
from pressroom.service.publishing.schemas import has_later_parts
from pressroom.service.publishing.unknowns import (
    CutShort,
    Found,
    Missing,
    NotPublished,
    may_look_up,
    settle_unknown,
)
from pressroom.statuses import PostStatus


class Remedy(StrEnum):
    RETRY = "retry"
    LOOK_UP = "look_up"


def remedies(post: Post, *, key_kept: bool, now: datetime) -> tuple[Remedy, ...]:
    """What may be done about ``post`` now; ``key_kept``: its Idempotency-Key is still
    held or answered (not expired, not freed)."""
    found: list[Remedy] = []
    several = has_later_parts(Platform(post.platform), post.request)
    unsettled = may_look_up(post, now)
    if post.idempotency_key is not None:
        if post.status == PostStatus.FAILED:
            found.append(Remedy.RETRY)  # nothing of it went out: a free key sends it anew
        elif (post.status == PostStatus.PARTIAL or (unsettled and several)) and key_kept:
            found.append(Remedy.RETRY)  # looks up what stands, then goes on after it
    if unsettled:
        # A post of several parts is looked up part by part, each unsettled one in
        # order, sending nothing (``settle_unknown``): it needs no key, as a retry does.
        found.append(Remedy.LOOK_UP)
    return tuple(found)


@dataclass(frozen=True)
class Retried:
    status: int
    answer: dict[str, Any]
    """The publish route's JSON answer: a result, or an error body."""
    replayed: bool
    """The key's kept answer, sent again: nothing was published by this retry."""


async def retry(app: FastAPI, account: Account, post: Post) -> Retried:
    """Send the record's request again under its key, as a client's retry would."""
    if post.idempotency_key is None:
        raise ValueError("a post sent without an Idempotency-Key cannot be retried safely")
    path = RULES[Platform(post.platform)].publish_path
    body = json.dumps(post.request, ensure_ascii=False).encode()
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (HEADER.lower().encode(), post.idempotency_key.encode()),
        ],
        "client": None,
        "server": None,
        # The caller, already known: what ``deps.authenticate_request`` keeps per request.
        "state": {"account": account},
    }
    sent: list[Message] = []
    answered = asyncio.Event()
    delivered = False

    async def receive() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            answered.set()

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    content = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return Retried(
        status=int(start["status"]),
        answer=json.loads(content) if content else {},
        replayed=headers.get(REPLAYED_HEADER.lower()) == "true",
    )


async def look_up(
    app: FastAPI, post: Post, now: datetime
) -> Found | Missing | NotPublished | CutShort:
    """Ask the post's platform now, as the reconciler would, and settle the record.
    Raises ``PlatformUnavailable`` and ``LookupUnsupported`` as ``settle_unknown`` does."""
    return await run_in_threadpool(
        settle_unknown, app.state.session_factory, drivers_of(app), post, now
    )
