"""How a post's media reaches a network: streamed from storage, or by a signed link.

Networks that take uploads (YouTube's resumable upload, TikTok's chunks) get the bytes
read from storage range by range (``read``), so a video never sits whole in memory.

Networks that fetch media themselves (Pinterest pins; Instagram and Facebook can too)
get a link (``url``) that works without an API key and stops working soon after:

- on S3 it is a presigned GET of the object (the bucket need not be public);
- on local storage it is ``{PRESSROOM_BASE_URL}/storage/files/{fileId}?expires=..&signature=..``
  served by this service (``media.fetch``), so ``PRESSROOM_BASE_URL`` must be an address
  the network can reach; a file fitted for the network (``media.fitting``) is linked as
  ``/storage/derived/{id}`` the same way.

Either way the link follows the storage key it is given: a derived file's key leads to
the derived bytes, never to the original's.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from urllib.parse import urlencode

from pressroom.service.db.base import utcnow
from pressroom.service.storage import Storage, make_storage
from pressroom.service.storage.signing import LinkSigner, load_secret
from pressroom.settings import Settings

FETCH_PREFIX = "/storage/files/"
DERIVED_PREFIX = "/storage/derived/"
LINK_TTL = timedelta(hours=1)
"""Long enough for a network's queue to fetch it; short enough to be useless when leaked."""


class MediaHandover:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._signer = LinkSigner(load_secret(settings.secret_key, settings.data_dir))
        self._storage: Storage | None = None

    def read(self, storage_key: str, start: int, stop: int) -> Iterator[bytes]:
        """Bytes ``start``..``stop`` (exclusive) of a stored file, in the store's pieces."""
        return self._store().read(storage_key, start, stop)

    def _store(self) -> Storage:
        if self._storage is None:
            self._storage = make_storage(self.settings)
        return self._storage

    def url(
        self, file_id: str, storage_key: str, content_type: str, *, now: datetime | None = None
    ) -> str:
        expires_at = (now or utcnow()) + LINK_TTL
        if self.settings.store.storage == "s3":
            from pressroom.service.storage.s3 import S3Storage

            storage = self._store()
            assert isinstance(storage, S3Storage)
            return storage.presign_download(storage_key, content_type, expires_at)
        expires = int(expires_at.timestamp())
        prefix, linked = FETCH_PREFIX, file_id
        if storage_key.startswith("derived/"):
            prefix, linked = DERIVED_PREFIX, storage_key.split("/", 1)[1]
        query = urlencode({"expires": expires, "signature": self._signer.sign(linked, expires)})
        return f"{self.settings.public_base_url}{prefix}{linked}?{query}"

    def verify(self, file_id: str, expires: int, signature: str, now: datetime) -> bool:
        """Whether a local link (to a file, or to a derived file by its id) is genuine and
        still live."""
        return self._signer.matches(file_id, expires, signature) and now.timestamp() <= expires
