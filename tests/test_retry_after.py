"""``Retry-After`` is read once (``pressroom.retry_after``) for the client, the drivers and
the webhook sender: whatever a server sends (``1e15``, ``inf``, ``nan``, a date in the
year 9999), each gets a finite wait from 0 to ``MAX_SECONDS``, never an OverflowError.

The client and the drivers are shown here against a real server on loopback; the
webhook sender's schedule in ``tests/service/test_webhook_answers.py``.
"""

from __future__ import annotations

import email.utils
import json
import math

import pytest

from pressroom import retry_after
from pressroom.client import Client, RateLimitError
from pressroom.platforms import Platform
from pressroom.service.drivers.base import PlatformRateLimited, PlatformUnavailable
from pressroom.service.drivers.http import NetworkClient
from tests.support.answering import answering, http_answer

MAX = retry_after.MAX_SECONDS
NOW = 1_790_000_000.0


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("120", 120.0),
        (" 1.5 ", 1.5),
        ("-3", 0.0),
        (str(int(MAX) + 1), MAX),
        ("1e15", MAX),
        ("1e400", MAX),
        ("inf", MAX),
        ("Infinity", MAX),
        ("-inf", 0.0),
        ("nan", None),
        ("NaN", None),
        ("Fri, 31 Dec 9999 23:59:59 GMT", MAX),
        ("Mon, 01 Jan 99999 00:00:00 GMT", None),
        ("Mon, 01 Jan 0001 00:00:00 GMT", 0.0),
        (email.utils.formatdate(NOW + 120, usegmt=True), 120.0),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_every_wait_is_finite_and_at_most_the_maximum(
    header: str | None, expected: float | None
) -> None:
    found = retry_after.seconds(header, now=NOW)
    if expected is None:
        assert found is None
        return
    assert found is not None and math.isfinite(found)
    assert found == pytest.approx(expected, abs=1.0)
    assert 0.0 <= found <= MAX


@pytest.mark.parametrize("header", ["1e15", "inf", "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_the_client_reads_a_huge_retry_after_as_the_maximum(header: str) -> None:
    body = json.dumps(
        {"success": False, "error": {"code": "rate_limited", "message": "slow", "field": None}}
    ).encode()
    answer = http_answer(429, body, {"Retry-After": header, "Content-Type": "application/json"})
    with (
        answering(answer) as server,
        Client(base_url=f"http://127.0.0.1:{server.port}", api_key="pr_test") as client,
        pytest.raises(RateLimitError) as caught,
    ):
        client.get_api_key()
    assert caught.value.retry_after == MAX


@pytest.mark.parametrize(
    ("status", "raised"), [(429, PlatformRateLimited), (503, PlatformUnavailable)]
)
@pytest.mark.parametrize("header", ["1e15", "inf", "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_the_drivers_read_a_huge_retry_after_as_the_maximum(
    header: str, status: int, raised: type[Exception]
) -> None:
    answer = http_answer(status, b"{}", {"Retry-After": header})
    network = NetworkClient(Platform.MICROBLOG, timeout_seconds=5, backoff_seconds=0)
    with answering(answer) as server:
        try:
            with pytest.raises(raised) as caught:
                network.request("POST", f"http://127.0.0.1:{server.port}/2/tweets", creates=True)
        finally:
            network.close()
    assert caught.value.retry_after == int(MAX)  # type: ignore[attr-defined]
