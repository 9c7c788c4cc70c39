from __future__ import annotations

from typing import Any

from pydantic import Field

from pressroom.platforms import Platform
from pressroom.service.schemas import CamelModel, Timestamp
from pressroom.statuses import ConnectionStatus

STATUS: dict[str, Any] = {"enum": [s.value for s in ConnectionStatus]}


class UnifiedConnection(CamelModel):
    id: str
    platform: str = Field(json_schema_extra={"enum": [p.value for p in Platform]})
    name: str
    status: str = Field(json_schema_extra=STATUS)
    """Our extension; clients must not depend on it (the hosted service may omit it)."""


class MicroblogConnection(CamelModel):
    connection_id: str
    username: str
    display_name: str
    status: str = Field(json_schema_extra=STATUS)
    connected_at: Timestamp


class MicroblogConnectionsResponse(CamelModel):
    success: bool = True
    connections: list[MicroblogConnection]
