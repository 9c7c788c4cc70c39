"""Bytes in S3 or any S3-compatible store (SeaweedFS, MinIO, R2), presigned by boto3.

Settings: ``PRESSROOM_S3_BUCKET``, ``PRESSROOM_S3_REGION``, ``PRESSROOM_S3_ENDPOINT_URL``
(unset for AWS), ``PRESSROOM_S3_ACCESS_KEY_ID`` / ``PRESSROOM_S3_SECRET_ACCESS_KEY``
(unset: boto3's usual chain) and ``PRESSROOM_S3_KEY_PREFIX``, which lets several
deployments share a bucket. The bucket must exist. The presigned URL is signed for the
endpoint exactly as configured: clients must reach the store at that address.
"""

from __future__ import annotations

import contextlib
import math
import shutil
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from pressroom.service.db.base import utcnow
from pressroom.service.storage.base import (
    PROBE_KEY,
    ObjectMissing,
    StorageError,
    StoredObject,
    check_key,
)
from pressroom.settings import Settings

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

CHUNK = 256 * 1024
_MISSING = {"404", "NoSuchKey", "NotFound"}


class S3Storage:
    backend = "s3"

    def __init__(self, settings: Settings) -> None:
        store = settings.store
        self.bucket = store.s3_bucket
        self.prefix = store.s3_key_prefix
        self._tmp = settings.data_dir / "media" / "tmp"
        self._tmp.mkdir(parents=True, exist_ok=True)
        self.client: S3Client = boto3.client(
            "s3",
            region_name=store.s3_region,
            endpoint_url=store.s3_endpoint_url,
            aws_access_key_id=store.s3_access_key_id,
            aws_secret_access_key=store.s3_secret_access_key,
            config=Config(
                signature_version="s3v4",
                # Custom endpoints (SeaweedFS, MinIO) rarely have wildcard DNS for buckets.
                s3={"addressing_style": "path" if store.s3_endpoint_url else "auto"},
                retries={"max_attempts": 3, "mode": "standard"},
                connect_timeout=5,
                read_timeout=60,
            ),
        )

    def upload_key(self, file_id: str) -> str:
        return check_key(f"incoming/{file_id}")

    def presign_upload(self, file_id: str, content_type: str, expires_at: datetime) -> str:
        seconds = max(1, math.ceil((expires_at - utcnow()).total_seconds()))
        url: str = self.client.generate_presigned_url(
            "put_object",
            Params={
                "Bucket": self.bucket,
                "Key": self._name(self.upload_key(file_id)),
                "ContentType": content_type,
            },
            ExpiresIn=seconds,
        )
        return url

    def presign_download(self, key: str, content_type: str, expires_at: datetime) -> str:
        """A presigned GET of the object, answered with the file's Content-Type."""
        seconds = max(1, math.ceil((expires_at - utcnow()).total_seconds()))
        url: str = self.client.generate_presigned_url(
            "get_object",
            Params={
                "Bucket": self.bucket,
                "Key": self._name(key),
                "ResponseContentType": content_type,
            },
            ExpiresIn=seconds,
        )
        return url

    def check(self) -> None:
        """A HEAD of a key no file ever has: the bucket answers, and our credentials are
        taken. A test write would cost a PUT and a DELETE per probe, billed by the store."""
        self.stat(PROBE_KEY)

    def stat(self, key: str) -> StoredObject | None:
        try:
            head = self.client.head_object(Bucket=self.bucket, Key=self._name(key))
        except ClientError as exc:
            if _code(exc) in _MISSING:
                return None
            raise StorageError(f"HEAD {key} failed: {exc}") from exc
        except BotoCoreError as exc:
            raise StorageError(f"HEAD {key} failed: {exc}") from exc
        return StoredObject(key, head["ContentLength"], head.get("LastModified"))

    def promote(self, source: str, target: str) -> None:
        """Server-side copy, then delete the source: the bytes never pass through us."""
        if source == target:
            return
        try:
            # The managed copy switches to multipart past 8 MiB, so sizes over 5 GB work too.
            self.client.copy(
                {"Bucket": self.bucket, "Key": self._name(source)}, self.bucket, self._name(target)
            )
        except ClientError as exc:
            if _code(exc) in _MISSING:
                raise ObjectMissing(source) from exc
            raise StorageError(f"copy {source} failed: {exc}") from exc
        except BotoCoreError as exc:
            raise StorageError(f"copy {source} failed: {exc}") from exc
        self.delete(source)

    def put(self, key: str, data: bytes, content_type: str) -> None:
        try:
            self.client.put_object(
                Bucket=self.bucket, Key=self._name(key), Body=data, ContentType=content_type
            )
        except (ClientError, BotoCoreError) as exc:
            raise StorageError(f"PUT {key} failed: {exc}") from exc

    def put_file(self, key: str, path: Path, content_type: str) -> None:
        try:
            # The managed upload switches to multipart for large files.
            self.client.upload_file(
                str(path), self.bucket, self._name(key), ExtraArgs={"ContentType": content_type}
            )
        except (ClientError, BotoCoreError) as exc:
            raise StorageError(f"PUT {key} failed: {exc}") from exc

    @contextlib.contextmanager
    def local_copy(self, key: str) -> Iterator[Path]:
        directory = Path(tempfile.mkdtemp(prefix="probe-", dir=self._tmp))
        path = directory / "object"
        try:
            try:
                self.client.download_file(self.bucket, self._name(key), str(path))
            except ClientError as exc:
                if _code(exc) in _MISSING:
                    raise ObjectMissing(key) from exc
                raise StorageError(f"download {key} failed: {exc}") from exc
            except BotoCoreError as exc:
                raise StorageError(f"download {key} failed: {exc}") from exc
            yield path
        finally:
            shutil.rmtree(directory, ignore_errors=True)

    def read(self, key: str, start: int, stop: int) -> Iterator[bytes]:
        if stop <= start:
            return iter(())
        try:
            response = self.client.get_object(
                Bucket=self.bucket, Key=self._name(key), Range=f"bytes={start}-{stop - 1}"
            )
        except ClientError as exc:
            if _code(exc) in _MISSING:
                raise ObjectMissing(key) from exc
            raise StorageError(f"GET {key} failed: {exc}") from exc
        except BotoCoreError as exc:
            raise StorageError(f"GET {key} failed: {exc}") from exc
        body = response["Body"]
        return _chunks(body)

    def delete(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=self._name(key))
        except (ClientError, BotoCoreError) as exc:
            raise StorageError(f"delete {key} failed: {exc}") from exc

    def list(self, prefix: str) -> Iterator[StoredObject]:
        paginator = self.client.get_paginator("list_objects_v2")
        try:
            for page in paginator.paginate(Bucket=self.bucket, Prefix=self._name(prefix)):
                for item in page.get("Contents", []):
                    key = item["Key"][len(self.prefix) :]
                    with contextlib.suppress(ValueError):
                        yield StoredObject(check_key(key), item["Size"], item.get("LastModified"))
        except (ClientError, BotoCoreError) as exc:
            raise StorageError(f"listing {prefix} failed: {exc}") from exc

    def sweep_partials(self, older_than: timedelta) -> int:
        """A single presigned PUT leaves no partial object; only local probe copies of a
        process that died can be left over."""
        cutoff = time.time() - older_than.total_seconds()
        removed = 0
        for directory in self._tmp.glob("probe-*"):
            with contextlib.suppress(OSError):
                if directory.stat().st_mtime < cutoff:
                    shutil.rmtree(directory)
                    removed += 1
        return removed

    def _name(self, key: str) -> str:
        return self.prefix + key


def _code(exc: ClientError) -> str:
    error: dict[str, Any] = dict(exc.response.get("Error", {}))
    return str(error.get("Code", ""))


def _chunks(body: Any) -> Iterator[bytes]:
    try:
        yield from body.iter_chunks(CHUNK)
    finally:
        body.close()
