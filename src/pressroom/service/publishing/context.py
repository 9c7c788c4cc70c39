"""What a publish route works with: the caller, short units of work, the drivers.

Publish routes do not use the request-wide ``DbSession`` (see ``auth``): the service
runs one unit of work before the platform call and one after it (``db.writer``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.db.models import Account
from pressroom.service.db.writer import Writes, writes_for
from pressroom.service.deps import KEY_REQUIRED, CurrentAccount, authenticate_request
from pressroom.service.drivers import Drivers, drivers_of
from pressroom.service.publishing.claims import HEADER, MAX_KEY_LENGTH, Claim
from pressroom.service.text_rules import IDEMPOTENCY_KEY
from pressroom.settings import Settings


@dataclass(frozen=True)
class PublishContext:
    account: Account
    sessions: sessionmaker[Session]
    writes: Writes
    """Where the publish's two units of work run (``db.writer``)."""
    drivers: Drivers
    settings: Settings
    claim: Claim | None
    """The Idempotency-Key this request holds, if one was sent."""

    @property
    def engine(self) -> Engine:
        engine: Engine = self.sessions.kw["bind"]
        return engine


_KEY_DESCRIPTION = (
    "1 to 255 characters, not all spaces. The same key and body within 7 days return the "
    "first answer (header `Idempotent-Replayed: true`) and post nothing."
)
_KEY_LIMITS = {"minLength": 1, "maxLength": MAX_KEY_LENGTH, "pattern": IDEMPOTENCY_KEY}

IdempotencyKey = Annotated[
    str | None,
    Header(alias=HEADER, description=_KEY_DESCRIPTION, json_schema_extra=_KEY_LIMITS),
]
"""The Idempotency-Key header as the API documents it; ``IdempotentRoute`` reads it."""

PUBLISH_DOCUMENTED: dict[str, Any] = {
    **KEY_REQUIRED,
    "parameters": [
        {
            "name": HEADER,
            "in": "header",
            "required": False,
            "schema": {
                "anyOf": [{"type": "string", **_KEY_LIMITS}, {"type": "null"}],
                "description": _KEY_DESCRIPTION,
                "title": HEADER,
            },
            "description": _KEY_DESCRIPTION,
        }
    ],
}
"""``openapi_extra`` of a publish route: its API key and its Idempotency-Key, as FastAPI
documents ``IdempotencyKey`` (a test holds them equal), without FastAPI reading them
for the route: ``IdempotentRoute`` reads both."""


async def publishing(request: Request) -> PublishContext:
    """The context of a publish route, which declares its key and its Idempotency-Key
    for the document only (``PUBLISH_DOCUMENTED``): FastAPI resolving them as
    parameters and dependencies cost more than the rest of a publish's checks."""
    return PublishContext(
        account=await authenticate_request(request),
        sessions=request.app.state.session_factory,
        writes=writes_for(request.app.state.engine),
        drivers=drivers_of(request.app),
        settings=request.app.state.settings,
        claim=getattr(request.state, "idempotency_claim", None),
    )


async def publish_context(
    request: Request, account: CurrentAccount, idempotency_key: IdempotencyKey = None
) -> PublishContext:
    del account, idempotency_key  # declared for OpenAPI; resolved by ``publishing``
    return await publishing(request)


Publishing = Annotated[PublishContext, Depends(publish_context)]
