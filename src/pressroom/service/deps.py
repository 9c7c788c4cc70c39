"""Dependencies that make route signatures read like documentation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, Request
from sqlalchemy.orm import Session, sessionmaker

from pressroom import error_codes
from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.service.accounts import keys
from pressroom.service.accounts.repository import AccountRepository
from pressroom.service.db.models import Account
from pressroom.service.db.session import transaction
from pressroom.service.errors import ServiceError
from pressroom.settings import Settings

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_db(request: Request) -> Iterator[Session]:
    """The request owns the transaction: commit when the route returns, else roll back.

    Used with ``scope="function"`` so the commit happens before the response is sent: a
    client that sees 200 for a key rotation can use the new key at once.
    """
    factory: sessionmaker[Session] = request.app.state.session_factory
    with transaction(factory, write=request.method not in READ_METHODS) as session:
        yield session


DbSession = Annotated[Session, Depends(get_db, scope="function")]
AppSettings = Annotated[Settings, Depends(get_settings_dep)]


def authenticate(
    db: DbSession,
    x_api_key: Annotated[str | None, Header(alias="X-API-Key")] = None,
) -> Account:
    """401 for a missing or unknown key, 403 for a plan without API access."""
    if not x_api_key:
        raise ServiceError(
            error_codes.MISSING_API_KEY, "Send your API key in the X-API-Key header."
        )
    account = AccountRepository(db).get_by_key_hash(keys.hash_key(x_api_key))
    if account is None or not keys.matches(x_api_key, account.api_key_hash):
        raise ServiceError(
            error_codes.INVALID_API_KEY, "The API key is unknown or was rotated out."
        )
    if not PLAN_LIMITS[Plan(account.plan)].api_access:
        raise ServiceError(
            error_codes.PLAN_WITHOUT_API,
            f"The {account.plan} plan has no API access; upgrade to Business or Agency.",
        )
    return account


CurrentAccount = Annotated[Account, Depends(authenticate)]


def presented_key(x_api_key: Annotated[str, Header(alias="X-API-Key")]) -> str:
    return x_api_key


PresentedKey = Annotated[str, Depends(presented_key)]
