"""The life of a file: ``pending_upload`` -> ``processing`` -> ``ready`` | ``failed``."""

from __future__ import annotations

from pressroom.statuses import FileState

PENDING_UPLOAD = FileState.PENDING_UPLOAD.value
"""A URL was issued; no bytes yet (or, on s3, not noticed yet)."""
PROCESSING = FileState.PROCESSING.value
"""The bytes are here and are being probed."""
READY = FileState.READY.value
"""Probed and usable: publishable and downloadable."""
FAILED = FileState.FAILED.value
"""Refused, with a ``failure_reason``; its bytes, if any, are removed."""

ALL = (PENDING_UPLOAD, PROCESSING, READY, FAILED)
