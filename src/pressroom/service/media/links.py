"""Signed, expiring links to a ready file's bytes, for networks that fetch media themselves.

Some networks take a post's media by URL and download it (Pinterest pins; Instagram and
Facebook can too). The link must work without an API key and stop working soon after:

- on S3 it is a presigned GET of the object (the bucket need not be public);
- on local storage it is ``{PRESSROOM_BASE_URL}/storage/files/{fileId}?expires=..&signature=..``
  served by this service (``media.fetch``), so ``PRESSROOM_BASE_URL`` must be an address
  the network can reach.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import urlencode

from pressroom.service.db.base import utcnow
from pressroom.service.storage import Storage, make_storage
from pressroom.service.storage.signing import LinkSigner, load_secret
from pressroom.settings import Settings

FETCH_PREFIX = "/storage/files/"
LINK_TTL = timedelta(hours=1)
"""Long enough for a network's queue to fetch it; short enough to be useless when leaked."""


class MediaLinks:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._signer = LinkSigner(load_secret(settings.secret_key, settings.data_dir))
        self._storage: Storage | None = None

    def url(
        self, file_id: str, storage_key: str, content_type: str, *, now: datetime | None = None
    ) -> str:
        expires_at = (now or utcnow()) + LINK_TTL
        if self.settings.store.storage == "s3":
            from pressroom.service.storage.s3 import S3Storage

            if self._storage is None:
                self._storage = make_storage(self.settings)
            assert isinstance(self._storage, S3Storage)
            return self._storage.presign_download(storage_key, content_type, expires_at)
        expires = int(expires_at.timestamp())
        query = urlencode({"expires": expires, "signature": self._signer.sign(file_id, expires)})
        return f"{self.settings.public_base_url}{FETCH_PREFIX}{file_id}?{query}"

    def verify(self, file_id: str, expires: int, signature: str, now: datetime) -> bool:
        """Whether a local link is genuine and still live."""
        return self._signer.matches(file_id, expires, signature) and now.timestamp() <= expires
