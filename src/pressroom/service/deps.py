"""Dependencies that make route signatures read like documentation.

How a request uses the database, and why:

- ``CurrentAccount`` authenticates in a short read of its own (``db.reads``),
  finished before the route runs.
- ``DbSession`` is the route's unit of work. It connects lazily, on the route's first
  statement, and the route's own worker thread commits it as the route returns
  (``routing.UnitOfWorkRoute``). A request therefore never holds SQLite's write lock,
  or a row lock, while it waits for a worker thread, a pooled connection or anything
  else; a request that held it while waiting was how a burst of uploads and publishes
  used to lock each other out.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, Header, Request, Security
from fastapi.concurrency import run_in_threadpool
from fastapi.security import APIKeyHeader
from sqlalchemy.orm import Session, sessionmaker

from pressroom import error_codes
from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.service.accounts import keys
from pressroom.service.accounts.repository import account_by_key_hash
from pressroom.service.db import reads
from pressroom.service.db.models import Account
from pressroom.service.db.prepared import Link
from pressroom.service.db.session import writing_session
from pressroom.service.errors import ServiceError
from pressroom.settings import Settings

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_db(request: Request) -> AsyncIterator[Session]:
    """The request owns the transaction: committed when the route returns, else rolled
    back, on the route's own worker thread (``UnitOfWorkRoute``). Making the session
    does no I/O, so this runs on the event loop and costs no thread hand-off; it only
    finishes on a worker thread a transaction a route left open, should one."""
    factory: sessionmaker[Session] = request.app.state.session_factory
    writes = request.method not in READ_METHODS
    async with _unit_of_work(writing_session(factory) if writes else factory()) as session:
        yield session


async def get_writing_db(request: Request) -> AsyncIterator[Session]:
    """The unit of work of a page that writes although it is fetched with GET (a key
    shown once is cleared as it is shown). On SQLite a read transaction that turns
    into a write fails at once if anyone committed since it began (SQLITE_BUSY_SNAPSHOT),
    so such a route declares it writes, and waits its turn for the lock instead."""
    factory: sessionmaker[Session] = request.app.state.session_factory
    async with _unit_of_work(writing_session(factory)) as session:
        yield session


@asynccontextmanager
async def _unit_of_work(session: Session) -> AsyncIterator[Session]:
    try:
        yield session
        if session.in_transaction():
            await run_in_threadpool(session.commit)
    except BaseException:
        if session.in_transaction():
            await run_in_threadpool(session.rollback)
        raise
    finally:
        session.close()


DbSession = Annotated[Session, Depends(get_db, scope="function")]
WritingDbSession = Annotated[Session, Depends(get_writing_db, scope="function")]
AppSettings = Annotated[Settings, Depends(get_settings_dep)]


def authenticate(link: Link, x_api_key: str | None) -> Account:
    """401 for a missing or unknown key, 403 for a plan without API access.

    One indexed read per request, never a cache: a rotated key is refused on the very
    next request, by every process of the service."""
    if not x_api_key:
        raise ServiceError(
            error_codes.MISSING_API_KEY, "Send your API key in the X-API-Key header."
        )
    key_hash = keys.hash_key(x_api_key)
    account = account_by_key_hash(link, key_hash)
    if account is None or not hmac.compare_digest(key_hash, account.api_key_hash):
        raise ServiceError(
            error_codes.INVALID_API_KEY, "The API key is unknown or was rotated out."
        )
    if not PLAN_LIMITS[Plan(account.plan)].api_access:
        raise ServiceError(
            error_codes.PLAN_WITHOUT_API,
            f"The {account.plan} plan has no API access; upgrade to Business or Agency.",
        )
    return account


async def authenticate_request(request: Request) -> Account:
    """The caller of this request, authenticated once (``db.reads``: on the event loop
    on SQLite, on a worker thread on a database server)."""
    account: Account | None = getattr(request.state, "account", None)
    if account is None:
        key = request.headers.get("X-API-Key")
        account = await reads.read(
            request.app.state.engine, lambda connection: authenticate(connection, key)
        )
        request.state.account = account
    return account


API_KEY = APIKeyHeader(
    name="X-API-Key",
    auto_error=False,
    description="Your API key, from the dashboard (Settings, API Keys).",
)
"""The OpenAPI security scheme: ``/docs`` gets its Authorize button from it."""

KEY_REQUIRED: dict[str, Any] = {"security": [{API_KEY.scheme_name: []}]}
"""``openapi_extra`` of a route that authenticates by itself (``authenticate_request``)
rather than through ``CurrentAccount``: the same security requirement in the docs."""


async def current_account(
    request: Request, x_api_key: Annotated[str | None, Security(API_KEY)] = None
) -> Account:
    """The caller, looked up once per request (a publish route has usually done it)."""
    del x_api_key  # declared for OpenAPI; authenticate_request reads the header
    return await authenticate_request(request)


CurrentAccount = Annotated[Account, Depends(current_account)]


def presented_key(x_api_key: Annotated[str, Header(alias="X-API-Key")]) -> str:
    return x_api_key


PresentedKey = Annotated[str, Depends(presented_key)]
