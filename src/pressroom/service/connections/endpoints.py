"""Routes of spec 4.3. Both count against the per-key rate limit: callers should cache.

Both are reads the pipeline makes before every campaign, so they take the short read
path (``db.reads``) with the authentication, not a unit of work."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service.connections import service
from pressroom.service.connections.schemas import (
    MicroblogConnection,
    MicroblogConnectionsResponse,
    UnifiedConnection,
)
from pressroom.service.db import reads
from pressroom.service.db.models import Account
from pressroom.service.deps import CurrentAccount
from pressroom.service.errors import responses
from pressroom.service.ratelimit import rate_limit

router = APIRouter(tags=["connections"], dependencies=[Depends(rate_limit)])


async def _listed(request: Request, account: Account) -> list[service.Listed]:
    return await reads.read(
        request.app.state.engine, lambda db: service.listed_connections(db, account.id)
    )


@router.get(
    "/api/connections/unified",
    response_model=list[UnifiedConnection],
    responses=responses(error_codes.RATE_LIMITED),
)
async def list_unified_connections(
    request: Request, account: CurrentAccount
) -> list[UnifiedConnection]:
    """Every connection of the account on all platforms, as a bare array."""
    return [
        UnifiedConnection(id=c.id, platform=c.platform, name=c.name, status=c.status)
        for c in await _listed(request, account)
    ]


@router.get(
    "/api/v2/microblog/connections",
    response_model=MicroblogConnectionsResponse,
    responses=responses(error_codes.RATE_LIMITED),
)
async def list_microblog_connections(
    request: Request, account: CurrentAccount
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
