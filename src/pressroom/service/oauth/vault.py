"""The token vault: platform tokens (and other short secrets) encrypted at rest.

The key comes from ``PRESSROOM_SECRET_KEY`` or, when unset, the key file in the data dir
(the same secret that signs upload URLs, derived apart so neither use weakens the other).
``PRESSROOM_OLD_SECRET_KEYS`` lists earlier secrets: what they encrypted still decrypts,
and ``rotate`` re-encrypts it under the current key (MultiFernet). Clear tokens are never
logged and never put in an error body.
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from pressroom.service.storage.signing import load_secret
from pressroom.settings import Settings

_CONTEXT = b"pressroom token vault v1\x00"


class VaultError(Exception):
    """A secret that none of the keys can decrypt (a lost or removed key)."""


def _fernet(secret: bytes) -> Fernet:
    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(_CONTEXT + secret).digest()))


class Vault:
    def __init__(self, current: bytes, old: list[bytes] | None = None) -> None:
        self._keys = MultiFernet([_fernet(current), *(_fernet(k) for k in old or [])])

    @classmethod
    def from_settings(cls, settings: Settings) -> Vault:
        current = load_secret(settings.secret_key, settings.data_dir)
        old = [k.strip().encode() for k in settings.old_secret_keys.split(",") if k.strip()]
        return cls(current, old)

    def encrypt(self, value: str) -> str:
        return self._keys.encrypt(value.encode()).decode()

    def decrypt(self, value: str) -> str:
        try:
            return self._keys.decrypt(value.encode()).decode()
        except InvalidToken as exc:
            raise VaultError(
                "a stored secret cannot be decrypted with the configured keys"
            ) from exc

    def rotate(self, value: str) -> str:
        """The same secret, encrypted under the current key."""
        return self._keys.rotate(value.encode()).decode()
