"""Where uploaded bytes live: local disk or an S3-compatible store, behind one interface.

``make_storage(settings)`` picks the backend from ``PRESSROOM_STORAGE`` (``local`` or
``s3``). Keys are chosen by the media library, never by clients: ``files/<fileId>``
holds bytes the service has verified, and on ``s3`` a presigned PUT lands in
``incoming/<fileId>`` first, so nothing a client sends after its upload was accepted can
change the bytes that were probed and are served. Filenames are data in the database
and never part of a key.

Contracts:
- ``local``: the upload URL points at the service itself (``/storage/upload/{fileId}``)
  and carries an HMAC-SHA256 over file id, content type and expiry; the PUT streams to
  a locked ``.part`` file and is renamed into place once complete.
- ``s3``: boto3 presigns a PUT with the content type bound into the signature. S3 cannot
  refuse a second PUT or a body over a size cap, so those rules are applied when the
  media library notices the object (HEAD) and moves it to ``files/``.
"""

from __future__ import annotations

from pressroom.service.storage.base import ObjectMissing, Storage, StorageError, StoredObject
from pressroom.settings import Settings

__all__ = ["ObjectMissing", "Storage", "StorageError", "StoredObject", "make_storage"]


def make_storage(settings: Settings) -> Storage:
    """The backend ``PRESSROOM_STORAGE`` names; boto3 is imported only for ``s3``."""
    if settings.store.storage == "s3":
        from pressroom.service.storage.s3 import S3Storage

        return S3Storage(settings)
    from pressroom.service.storage.local import LocalStorage

    return LocalStorage(settings)
