"""Sign-up, sign-in, sessions and passwords: the rules, shared by the pages and the CLI."""

from __future__ import annotations

import hashlib
import ipaddress
import math
import secrets
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import String
from sqlalchemy.orm import Session

from pressroom.plans import Plan
from pressroom.service.accounts import emails
from pressroom.service.accounts.repository import AccountRepository
from pressroom.service.accounts.service import AccountExists, create_account, find_by_email
from pressroom.service.auth import passwords
from pressroom.service.auth.repository import AuthRepository
from pressroom.service.auth.schemas import FormError, SignedIn
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Account, SignInFailure, SignInLink, WebSession
from pressroom.service.errors import ServiceError

THROTTLE_WINDOW = timedelta(minutes=15)
FAILURES_PER_EMAIL_AND_ADDRESS = 5
"""Wrong passwords one address may send for one email within the window."""
FAILURES_PER_ADDRESS = 20
"""Wrong passwords one address may send within the window, whatever the emails: a
guesser who moves from email to email is stopped too."""
LINK_TTL = timedelta(hours=24)
FAILURE_EMAIL_LENGTH = cast(String, SignInFailure.__table__.c.email.type).length
"""A failure keeps what was typed, cut to its column (nothing longer is an account's)."""
BAD_CREDENTIALS = "The email or password is wrong."


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def normalise_email(email: str) -> str:
    return email.strip().lower()


def sign_up(
    db: Session, *, email: str, password: str, plan: str, session_days: int
) -> tuple[Account, str, SignedIn]:
    """A new account signed in at once; returns it, its API key (to show once) and the
    session."""
    errors: dict[str, str] = {}
    try:
        email = emails.normalise(email)
    except ServiceError as exc:
        errors[exc.field or "email"] = exc.message
    problem = passwords.problem(password)
    if problem:
        errors["password"] = problem
    if plan not in {p.value for p in Plan}:
        errors["plan"] = "plan must be one of business, agency, blogger."
    if errors:
        raise FormError(errors)
    try:
        account, key = create_account(db, email=email, plan=Plan(plan))
    except AccountExists:
        raise FormError({"email": "an account with this email already exists; sign in."}) from None
    account.password_hash = passwords.hash_password(password)
    db.flush()
    return account, key, start_session(db, account, session_days)


def start_session(db: Session, account: Account, session_days: int) -> SignedIn:
    token = secrets.token_urlsafe(32)
    csrf = secrets.token_urlsafe(32)
    now = utcnow()
    AuthRepository(db).add(
        WebSession(
            token_hash=token_hash(token),
            account_id=account.id,
            csrf_token=csrf,
            created_at=now,
            expires_at=now + timedelta(days=session_days),
        )
    )
    return SignedIn(account.id, token, csrf)


def client_key(address: str) -> str:
    """The address failures are counted against. An IPv6 host is judged by its /64,
    which one subscriber holds whole (one address per guess would be free otherwise);
    an IPv4-mapped one is the IPv4 address it maps."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]  # not an IP (a test client, a unix socket)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def throttled_for(db: Session, *, email: str, address: str, now: datetime) -> int | None:
    """Seconds until ``address`` may try ``email`` again, or None when it may now.

    Failures count against the address that made them: per email, and across emails.
    Nobody else is refused, the account's owner at another address least of all, so
    wrong passwords from one place cannot lock an account for everyone."""
    repo = AuthRepository(db)
    since = now - THROTTLE_WINDOW
    wait = 0.0
    for times, limit in (
        (repo.failure_times(since, address=address, email=email), FAILURES_PER_EMAIL_AND_ADDRESS),
        (repo.failure_times(since, address=address), FAILURES_PER_ADDRESS),
    ):
        if len(times) >= limit:
            # Allowed again when enough of them have aged out of the window.
            unblocks = times[len(times) - limit] + THROTTLE_WINDOW
            wait = max(wait, (unblocks - now).total_seconds())
    return max(1, math.ceil(wait)) if wait > 0 else None


def sign_in(db: Session, *, email: str, password: str, address: str, session_days: int) -> SignedIn:
    """A session for the right password; a FormError (401, or 429 with Retry-After while
    throttled) otherwise. A failure is recorded by the caller's transaction."""
    typed, email = email, normalise_email(email)
    key, address = email[:FAILURE_EMAIL_LENGTH], client_key(address)
    now = utcnow()
    wait = throttled_for(db, email=key, address=address, now=now)
    if wait is not None:
        minutes = math.ceil(wait / 60)
        raise FormError(
            {
                "email": f"Too many failed sign-ins: try again in {minutes} minute"
                f"{'s' if minutes != 1 else ''}."
            },
            status=429,
            retry_after=wait,
        )
    account = find_by_email(db, typed) if email else None
    # verify runs (once) for an unknown email too: the answer takes as long either way.
    matches = passwords.verify(password, account.password_hash if account else None)
    if account is None or not matches:
        repo = AuthRepository(db)
        repo.purge_failures(now - THROTTLE_WINDOW)
        repo.add(SignInFailure(email=key, address=address, created_at=now))
        raise FormError({"email": BAD_CREDENTIALS}, status=401)
    # The owner got in: this address's earlier slips on this email are forgiven.
    AuthRepository(db).forget_failures(email=key, address=address)
    return start_session(db, account, session_days)


def current_session(db: Session, token: str | None) -> tuple[WebSession, Account] | None:
    if not token:
        return None
    row = AuthRepository(db).session(token_hash(token))
    if row is None or row.revoked_at is not None or row.expires_at <= utcnow():
        return None
    account = AccountRepository(db).get(row.account_id)
    return (row, account) if account is not None else None


def sign_out(db: Session, token: str) -> None:
    row = AuthRepository(db).session(token_hash(token))
    if row is not None and row.revoked_at is None:
        row.revoked_at = utcnow()
        db.flush()


def sign_out_everywhere(db: Session, account: Account) -> int:
    """Every session of the account ends, this one included."""
    return AuthRepository(db).revoke_sessions(account.id, utcnow())


def change_password(
    db: Session, account: Account, *, current: str, new: str, keep_session: str | None
) -> None:
    """Sets the new password and signs every other browser out."""
    loaded = AccountRepository(db).get(account.id)
    assert loaded is not None
    account = loaded
    errors: dict[str, str] = {}
    if account.password_hash is not None and not passwords.verify(current, account.password_hash):
        errors["current_password"] = "current password is wrong."
    problem = passwords.problem(new)
    if problem:
        errors["new_password"] = problem.replace("password", "new password", 1)
    if errors:
        raise FormError(errors)
    account.password_hash = passwords.hash_password(new)
    AuthRepository(db).revoke_sessions(
        account.id, utcnow(), keep=token_hash(keep_session) if keep_session else None
    )
    db.flush()


def set_password(db: Session, email: str, password: str) -> Account:
    """The operator's ``admin set-password``: also signs the account out everywhere."""
    account = find_by_email(db, email)
    if account is None:
        raise FormError({"email": f"no account with email {email!r}."}, status=404)
    problem = passwords.problem(password)
    if problem:
        raise FormError({"password": problem})
    account.password_hash = passwords.hash_password(password)
    AuthRepository(db).revoke_sessions(account.id, utcnow())
    db.flush()
    return account


def create_sign_in_link(db: Session, email: str) -> str:
    """A one-time sign-in token for the account (the CLI prints the link)."""
    account = find_by_email(db, email)
    if account is None:
        raise FormError({"email": f"no account with email {email!r}."}, status=404)
    token = secrets.token_urlsafe(32)
    now = utcnow()
    AuthRepository(db).add(
        SignInLink(
            token_hash=token_hash(token),
            account_id=account.id,
            created_at=now,
            expires_at=now + LINK_TTL,
        )
    )
    return token


def use_sign_in_link(db: Session, token: str, session_days: int) -> SignedIn:
    repo = AuthRepository(db)
    hashed = token_hash(token)
    link = repo.link(hashed)
    if link is None or not repo.use_link(hashed, utcnow()):
        raise FormError(
            {"link": "This sign-in link is unknown, used or expired; ask for a new one."},
            status=400,
        )
    account = AccountRepository(db).get(link.account_id)
    assert account is not None
    return start_session(db, account, session_days)


def reveal_key(db: Session, token: str, encrypted_key: str) -> None:
    """Keep a new API key (encrypted) on the session until a page shows it, once."""
    row = AuthRepository(db).session(token_hash(token))
    if row is not None:
        row.revealed_key = encrypted_key
        db.flush()


def take_revealed_key(db: Session, token: str) -> str | None:
    """The encrypted key waiting to be shown, cleared as it is taken."""
    row = AuthRepository(db).session(token_hash(token))
    if row is None or row.revealed_key is None:
        return None
    value, row.revealed_key = row.revealed_key, None
    db.flush()
    return value


def active_sessions(db: Session, account: Account) -> int:
    return AuthRepository(db).count_active_sessions(account.id, utcnow())
