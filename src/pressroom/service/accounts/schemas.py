from __future__ import annotations

from pressroom.service.schemas import CamelModel, Timestamp


class ApiKeyResponse(CamelModel):
    success: bool = True
    api_key: str
    created_at: Timestamp
