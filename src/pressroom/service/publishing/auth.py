"""Authentication for publish routes, in a short read of its own.

A publish may wait seconds on a platform; the request-wide ``DbSession`` would keep a
transaction (on SQLite, for a POST, the write lock) open all that time, so publish routes
authenticate here instead and open units of work only around their own reads and writes.
"""

from __future__ import annotations

from fastapi import Request
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.db.models import Account
from pressroom.service.db.session import transaction
from pressroom.service.deps import authenticate


def authenticate_request(request: Request) -> Account:
    """The caller of this request, authenticated once (401/403 as everywhere else)."""
    account: Account | None = getattr(request.state, "account", None)
    if account is None:
        factory: sessionmaker[Session] = request.app.state.session_factory
        with transaction(factory, write=False) as db:
            account = authenticate(db, request.headers.get("X-API-Key"))
        request.state.account = account
    return account
