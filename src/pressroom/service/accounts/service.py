"""Account rules: creation (admin only) and key rotation."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.plans import Plan
from pressroom.service.accounts import emails, keys
from pressroom.service.accounts.repository import AccountRepository
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.models import Account
from pressroom.service.errors import ServiceError
from pressroom.service.events import outbox
from pressroom.service.events.catalog import EventType
from pressroom.service.schemas import iso_utc


class AccountExists(ValueError):
    pass


@dataclass(frozen=True)
class IssuedKey:
    api_key: str
    created_at: datetime


def create_account(db: Session, *, email: str, plan: Plan) -> tuple[Account, str]:
    """A new account with its first API key; the email is checked and kept normalised
    (``emails``), a ``validation_error`` naming ``email`` when it is not an address."""
    email = emails.normalise(email)
    repo = AccountRepository(db)
    if find_by_email(db, email) is not None:
        raise AccountExists(f"an account with email {email!r} already exists")
    key = keys.generate_key()
    now = utcnow()
    account = Account(
        id=new_id("acc"),
        email=email,
        plan=plan.value,
        api_key_hash=keys.hash_key(key),
        api_key_created_at=now,
        api_key_last4=keys.last4(key),
        created_at=now,
    )
    return repo.add(account), key


def find_by_email(db: Session, email: str) -> Account | None:
    """By email as typed, else in any case: accounts are kept in lower case, but those
    made before emails were normalised keep the case the operator typed."""
    repo = AccountRepository(db)
    email = email.strip()
    return repo.get_by_email(email) or repo.get_by_email_any_case(email)


def rotate_key(db: Session, account: Account, presented_key: str) -> IssuedKey:
    """The API's rotation: only the key presented may be replaced."""
    return _rotate(db, account, keys.hash_key(presented_key))


def rotate_current_key(db: Session, account: Account) -> IssuedKey:
    """The dashboard's rotation (Settings, API Keys, Rotate): whatever key is current
    is replaced, by the same compare-and-swap as the API's."""
    return _rotate(db, account, account.api_key_hash)


def _rotate(db: Session, account: Account, old_hash: str) -> IssuedKey:
    new_key = keys.generate_key()
    now = utcnow()
    swapped = AccountRepository(db).swap_key(
        account.id, old_hash, keys.hash_key(new_key), now, keys.last4(new_key)
    )
    if not swapped:
        raise ServiceError(error_codes.INVALID_API_KEY, "The API key was rotated out.")
    account.api_key_hash = keys.hash_key(new_key)
    account.api_key_created_at = now
    account.api_key_last4 = keys.last4(new_key)
    outbox.emit(
        db,
        account.id,
        EventType.API_KEY_ROTATED,
        f"account:{account.id}",
        {"rotatedAt": iso_utc(now), "last4": account.api_key_last4},
    )
    return IssuedKey(new_key, now)


def masked_key(account: Account) -> str:
    """``prk_live_••••abcd``: enough to recognise a key, never enough to use it."""
    return f"{keys.KEY_PREFIX}{'•' * 8}{account.api_key_last4 or '????'}"
