"""Making, hashing and comparing API keys."""

from __future__ import annotations

import hashlib
import hmac
import secrets

KEY_PREFIX = "prk_live_"


def generate_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def matches(key: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_key(key), stored_hash)


def last4(key: str) -> str:
    return key[-4:]
