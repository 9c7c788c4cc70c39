from __future__ import annotations

from pressroom.service.schemas import CamelModel, Timestamp


class UnifiedConnection(CamelModel):
    id: str
    platform: str
    name: str
    status: str
    """Our extension; clients must not depend on it (the hosted service may omit it)."""


class MicroblogConnection(CamelModel):
    connection_id: str
    username: str
    display_name: str
    status: str
    connected_at: Timestamp


class MicroblogConnectionsResponse(CamelModel):
    success: bool = True
    connections: list[MicroblogConnection]
