"""Connecting an account with its handle and an app password, where a network offers
that instead of (or beside) an OAuth consent: Bluesky (open_microblog).

The person types the handle and an app password on the dashboard; the driver opens a
session with the network and the session's tokens go into the vault like any OAuth
grant's, so publishing, refreshes and expiry run the same code afterwards. The app
password itself is never stored: only the session the network opened with it.
"""

from __future__ import annotations

from pressroom.platforms import Platform
from pressroom.service.accounts.repository import AccountRepository
from pressroom.service.connections import service as connections
from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from pressroom.service.drivers.base import PlatformUnavailable
from pressroom.service.drivers.open_microblog import BlueskyDriver, SignInRefused
from pressroom.service.oauth.service import Flow, OAuthFailure, _connect, _store


class SignInError(Exception):
    """The form's input was refused; ``field`` names the input (``handle``, ``password``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def signs_in_with_password(flow: Flow, platform: Platform) -> bool:
    """Whether the label's driver connects by handle and app password (Bluesky's own,
    not the sandbox, whose consent page stands in for every network's)."""
    return isinstance(flow.drivers.get(platform), BlueskyDriver)


def platform_of(flow: Flow, account_id: str, connection_id: str) -> Platform | None:
    """The label of one of the account's connections (None: not theirs, or gone)."""
    with transaction(flow.sessions, write=False) as db:
        account = AccountRepository(db).get(account_id)
        if account is None:
            return None
        try:
            return Platform(connections.owned(db, account, connection_id).platform)
        except connections.ConnectionRuleError:
            return None


def sign_in(
    flow: Flow,
    account_id: str,
    platform: Platform,
    *,
    handle: str,
    password: str,
    reconnect_id: str | None = None,
) -> Connection:
    """Open a session with the handle and app password, then connect (or reconnect) it.
    ``SignInError`` names the input the network or the rules refused."""
    driver = flow.drivers.get(platform)
    if not isinstance(driver, BlueskyDriver):
        raise OAuthFailure("Nothing was connected", f"{platform.value} has no sign-in form.")
    if not handle.strip():
        raise SignInError("handle", "Enter the account's handle, like alice.bsky.social.")
    if not password:
        raise SignInError("password", "Enter an app password made for pressroom.")
    with transaction(flow.sessions, write=False) as db:
        account = AccountRepository(db).get(account_id)
        assert account is not None
        try:
            if reconnect_id is not None:
                connections.owned(db, account, reconnect_id)
            else:
                connections.check_can_connect(db, account, platform)
        except connections.ConnectionRuleError as exc:
            raise SignInError("handle", _sentence(str(exc))) from None
    try:
        tokens, profile = driver.sign_in(handle, password)
    except SignInRefused as exc:
        field = "handle" if "handle" in str(exc) and "password" not in str(exc) else "password"
        raise SignInError(field, _sentence(f"{exc}.")) from None
    except PlatformUnavailable as exc:
        raise SignInError(
            "handle",
            f"Bluesky could not be reached ({exc}), so nothing was connected. Try again in "
            "a minute.",
        ) from None
    with transaction(flow.sessions) as db:
        account = AccountRepository(db).get(account_id)
        assert account is not None
        try:
            connection = _connect(db, account, platform, profile, reconnect_id)
        except connections.ConnectionRuleError as exc:
            raise SignInError("handle", _sentence(str(exc))) from None
        _store(flow.vault, connection, tokens)
        db.flush()
        return connection


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text
