"""Routes of spec 4.3. Both count against the per-key rate limit: callers should cache."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service.connections import service
from pressroom.service.connections.schemas import (
    MicroblogConnection,
    MicroblogConnectionsResponse,
    UnifiedConnection,
)
from pressroom.service.deps import CurrentAccount, DbSession
from pressroom.service.errors import responses
from pressroom.service.ratelimit import rate_limit
from pressroom.service.routing import UnitOfWorkRoute

router = APIRouter(
    tags=["connections"], dependencies=[Depends(rate_limit)], route_class=UnitOfWorkRoute
)


@router.get(
    "/api/connections/unified",
    response_model=list[UnifiedConnection],
    responses=responses(error_codes.RATE_LIMITED),
)
def list_unified_connections(account: CurrentAccount, db: DbSession) -> list[UnifiedConnection]:
    """Every connection of the account on all platforms, as a bare array."""
    return [
        UnifiedConnection(id=c.id, platform=c.platform, name=c.name, status=status)
        for c, status in service.list_connections(db, account)
    ]


@router.get(
    "/api/v2/microblog/connections",
    response_model=MicroblogConnectionsResponse,
    responses=responses(error_codes.RATE_LIMITED),
)
def list_microblog_connections(
    account: CurrentAccount, db: DbSession
) -> MicroblogConnectionsResponse:
    """Active microblog connections only."""
    return MicroblogConnectionsResponse(
        connections=[
            MicroblogConnection(
                connection_id=c.id,
                username=c.name,
                display_name=c.display_name,
                status=status,
                connected_at=c.connected_at,
            )
            for c, status in service.list_connections(db, account)
            if c.platform == Platform.MICROBLOG and status == service.ACTIVE
        ]
    )
