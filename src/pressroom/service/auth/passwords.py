"""Argon2 password hashing (pwdlib's recommended parameters)."""

from __future__ import annotations

import secrets
from functools import lru_cache

from pwdlib import PasswordHash

MIN_LENGTH = 8
MAX_LENGTH = 1024


@lru_cache
def _hasher() -> PasswordHash:
    return PasswordHash.recommended()


@lru_cache
def _stand_in() -> str:
    """The hash of a random password nobody knows, made once by the same hasher: checking
    a password against it costs what checking a real one does, and never succeeds."""
    return _hasher().hash(secrets.token_urlsafe(32))


def hash_password(password: str) -> str:
    return _hasher().hash(password)


def verify(password: str, stored: str | None) -> bool:
    """One Argon2 check whatever ``stored`` is: with no hash (no such account, or one
    without a password) the check runs against the stand-in, so how long a sign-in takes
    tells nobody whether the email has an account."""
    if stored is None:
        _hasher().verify(password, _stand_in())
        return False
    return bool(_hasher().verify(password, stored))


def problem(password: str) -> str | None:
    """Why a new password is refused, or None."""
    if len(password) < MIN_LENGTH:
        return f"password must be at least {MIN_LENGTH} characters."
    if len(password) > MAX_LENGTH:
        return f"password must be at most {MAX_LENGTH} characters."
    return None
