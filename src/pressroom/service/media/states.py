"""The life of a file: ``pending_upload`` -> ``processing`` -> ``ready`` | ``failed``."""

from __future__ import annotations

PENDING_UPLOAD = "pending_upload"
"""A URL was issued; no bytes yet (or, on s3, not noticed yet)."""
PROCESSING = "processing"
"""The bytes are here and are being probed."""
READY = "ready"
"""Probed and usable: publishable and downloadable."""
FAILED = "failed"
"""Refused, with a ``failure_reason``; its bytes, if any, are removed."""

ALL = (PENDING_UPLOAD, PROCESSING, READY, FAILED)
