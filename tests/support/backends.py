"""Which storage backend and database pairs a media test module runs on."""

from __future__ import annotations

import pytest

ON_BOTH_BACKENDS = pytest.mark.parametrize(
    ("backend", "database_url"),
    [
        ("local", "sqlite"),
        pytest.param("local", "postgres", marks=pytest.mark.postgres),
        ("s3", "sqlite"),
    ],
    indirect=True,
)
"""For modules whose SQL matters as much as their storage: each backend, and PostgreSQL
once (storage and database do not meet, so the fourth pairing would add only time)."""
