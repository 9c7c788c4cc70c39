"""Argon2 password hashing (pwdlib's recommended parameters)."""

from __future__ import annotations

from functools import lru_cache

from pwdlib import PasswordHash

MIN_LENGTH = 8
MAX_LENGTH = 1024


@lru_cache
def _hasher() -> PasswordHash:
    return PasswordHash.recommended()


def hash_password(password: str) -> str:
    return _hasher().hash(password)


def verify(password: str, stored: str | None) -> bool:
    if stored is None:
        _hasher().hash(password)  # spend the same time as a real check
        return False
    return bool(_hasher().verify(password, stored))


def problem(password: str) -> str | None:
    """Why a new password is refused, or None."""
    if len(password) < MIN_LENGTH:
        return f"password must be at least {MIN_LENGTH} characters."
    if len(password) > MAX_LENGTH:
        return f"password must be at most {MAX_LENGTH} characters."
    return None
