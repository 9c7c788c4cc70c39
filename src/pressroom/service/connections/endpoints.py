"""Routes of spec 4.3. Both count against the per-key rate limit: callers should cache.

Both are reads the pipeline makes before every campaign, so they take the short read
path (``db.reads``) with the authentication, not a unit of work."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service.answers import JsonAnswer
from pressroom.service.connections import service
from pressroom.service.connections.schemas import (
    MicroblogConnection,
    MicroblogConnectionsResponse,
    UnifiedConnection,
)
from pressroom.service.db import reads
from pressroom.service.db.models import Account
from pressroom.service.deps import KEY_REQUIRED
from pressroom.service.errors import responses
from pressroom.service.ratelimit import CountedAccount, counted_caller
from pressroom.service.routing import RequestRoute

router = APIRouter(tags=["connections"])


async def _listed(request: Request, account: Account) -> list[service.Listed]:
    return await reads.read(
        request.app.state.engine, lambda db: service.listed_connections(db, account.id)
    )


async def list_unified_connections(request: Request) -> Response:
    """Every connection of the account on all platforms, as a bare array."""
    account = await counted_caller(request)
    # Answered as JSON at once (``answers``): the fields are plain strings read from
    # the database, as ``UnifiedConnection`` documents them.
    listed = await reads.read(
        request.app.state.engine, lambda db: service.connection_states(db, account.id)
    )
    return JsonAnswer([c._asdict() for c in listed])


router.add_api_route(
    "/api/connections/unified",
    list_unified_connections,
    methods=["GET"],
    route_class_override=RequestRoute,  # the request alone: see ``RequestRoute``
    response_model=list[UnifiedConnection],
    responses=responses(error_codes.RATE_LIMITED),
    openapi_extra=KEY_REQUIRED,
)


@router.get(
    "/api/v2/microblog/connections",
    response_model=MicroblogConnectionsResponse,
    responses=responses(error_codes.RATE_LIMITED),
)
async def list_microblog_connections(
    request: Request, account: CountedAccount
) -> MicroblogConnectionsResponse:
    """Active microblog connections only."""
    return MicroblogConnectionsResponse(
        connections=[
            MicroblogConnection(
                connection_id=c.id,
                username=c.name,
                display_name=c.display_name,
                status=c.status,
                connected_at=c.connected_at,
            )
            for c in await _listed(request, account)
            if c.platform == Platform.MICROBLOG and c.status == service.ACTIVE
        ]
    )
