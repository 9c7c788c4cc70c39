"""``pressroom.log_safety``: what a log line keeps of a URL, a key or a token."""

from __future__ import annotations

import logging

import pytest

from pressroom import log_safety
from pressroom.log_safety import scrub


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        (
            'HTTP Request: POST http://127.0.0.1:8443/hook/PATHSECRET42?token=QS "HTTP/1.1 200 OK"',
            'HTTP Request: POST http://127.0.0.1:8443/… "HTTP/1.1 200 OK"',
        ),
        (
            "PUT https://bucket.s3.amazonaws.com/files/file_1?X-Amz-Signature=abc failed",
            "PUT https://bucket.s3.amazonaws.com/… failed",
        ),
        ("Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)", None),
        (
            "database postgresql://press:hunter2@db:5432/pressroom",
            "database postgresql://db:5432/…",
        ),
        (
            "proxy http://user:pw@proxy.internal:3128 refused",
            "proxy http://proxy.internal:3128 refused",
        ),
        ("health and metrics on http://127.0.0.1:9100/", None),
        ("retry /storage/upload/file_1?expires=1&signature=ab", "retry /storage/upload/file_1?…"),
        ("rotated to prk_live_AbC123_xyz", "rotated to prk_…"),
        ("Authorization: Bearer EAAlongtoken123", "Authorization: Bearer …"),
        ("a bearer of news", None),
        ("page_social POST graph.facebook.com/v23.0/1048/photos -> 200 in 85 ms", None),
    ],
)
def test_urls_keep_their_origin_and_secrets_are_masked(line: str, kept: str | None) -> None:
    assert scrub(line) == (line if kept is None else kept)


def test_records_are_scrubbed_as_they_are_made_tracebacks_too(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log_safety.install()
    logger = logging.getLogger("pressroom.test")
    with caplog.at_level(logging.INFO, logger="pressroom.test"):
        logger.info("calling %s", "https://hooks.example.com/T0/B1/XyZsecret")
        try:
            raise ValueError("https://hooks.example.com/T0/B1/XyZsecret?token=1")
        except ValueError:
            logger.exception("failed")
    calling, failed = caplog.records
    assert calling.getMessage() == "calling https://hooks.example.com/…"
    assert failed.exc_text is not None and "XyZsecret" not in failed.exc_text
    assert "ValueError: https://hooks.example.com/…" in failed.exc_text


def test_below_warning_only_our_loggers_are_written() -> None:
    keep = log_safety.OnlyOursBelowWarning()

    def record(name: str, level: int) -> logging.LogRecord:
        return logging.LogRecord(name, level, __file__, 1, "x", None, None)

    assert keep.filter(record("pressroom.access", logging.DEBUG))
    assert keep.filter(record("uvicorn.error", logging.INFO))
    assert not keep.filter(record("httpx", logging.INFO))
    assert not keep.filter(record("pressroomish", logging.INFO))
    assert not keep.filter(record("botocore.endpoint", logging.DEBUG))
    assert keep.filter(record("botocore.endpoint", logging.WARNING))
