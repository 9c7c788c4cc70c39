"""HMAC signatures for the local backend's upload URLs, and the key that makes them."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

SECRET_FILE = "secret_key"


def load_secret(configured: str | None, data_dir: Path) -> bytes:
    """``PRESSROOM_SECRET_KEY`` if set, else a random key kept in the data dir.

    The file is created once, atomically (written aside, then hard-linked into place),
    so several worker processes starting together end up with the same key.
    """
    if configured:
        return configured.encode()
    path = data_dir / SECRET_FILE
    try:
        return path.read_bytes().strip()
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    aside = data_dir / f".{SECRET_FILE}.{secrets.token_hex(4)}"
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_urlsafe(48))
    try:
        os.link(aside, path)
    except FileExistsError:
        pass  # another process won; use its key
    finally:
        aside.unlink()
    return path.read_bytes().strip()


class UploadSigner:
    """Signs (file id, content type, expiry): change any of them and the URL is refused."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def sign(self, file_id: str, content_type: str, expires: int) -> str:
        message = f"upload\n{file_id}\n{content_type}\n{expires}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def matches(self, file_id: str, content_type: str, expires: int, signature: str) -> bool:
        if not signature.isascii():
            return False  # compare_digest refuses non-ASCII text; no signature of ours is
        return hmac.compare_digest(self.sign(file_id, content_type, expires), signature)


class LinkSigner:
    """Signs (file id, expiry) for a read-only media link: networks that fetch a post's
    media themselves get one. Its message differs from an upload's, so neither kind of
    signature can be passed off as the other."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def sign(self, file_id: str, expires: int) -> str:
        message = f"media link\n{file_id}\n{expires}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def matches(self, file_id: str, expires: int, signature: str) -> bool:
        if not signature.isascii():
            return False
        return hmac.compare_digest(self.sign(file_id, expires), signature)
