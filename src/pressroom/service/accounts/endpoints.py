"""Routes of spec 4.5: read and rotate the caller's API key."""

from __future__ import annotations

from fastapi import APIRouter

from pressroom.service.accounts import service
from pressroom.service.accounts.schemas import ApiKeyResponse
from pressroom.service.deps import CurrentAccount, DbSession, PresentedKey
from pressroom.service.errors import responses
from pressroom.service.routing import UnitOfWorkRoute

router = APIRouter(prefix="/api/user", tags=["api key"], route_class=UnitOfWorkRoute)


@router.get("/api-key", response_model=ApiKeyResponse, responses=responses())
def get_api_key(account: CurrentAccount, key: PresentedKey) -> ApiKeyResponse:
    """The key this request authenticated with (only its hash is stored)."""
    return ApiKeyResponse(api_key=key, created_at=account.api_key_created_at)


@router.post("/api-key", response_model=ApiKeyResponse, responses=responses())
def rotate_api_key(account: CurrentAccount, key: PresentedKey, db: DbSession) -> ApiKeyResponse:
    """A new key; the old one is refused with 401 from this moment on."""
    issued = service.rotate_key(db, account, key)
    return ApiKeyResponse(api_key=issued.api_key, created_at=issued.created_at)
