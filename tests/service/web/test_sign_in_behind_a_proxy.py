"""Behind a reverse proxy the client's address comes from ``X-Forwarded-For``, and only
from a proxy listed in ``FORWARDED_ALLOW_IPS`` (uvicorn's): a real ``pressroom api`` then
throttles the guesser and lets the owner in; without the listing, it believes no header."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from pressroom.service.auth.service import FAILURES_PER_EMAIL_AND_ADDRESS
from tests.service.test_media_live import live_service

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
PASSWORD = "s3cret-enough"


def submit(client: httpx.Client, page: str, action: str, **fields: str) -> int:
    html = client.get(page).text
    found = TOKEN.search(html)
    assert found, html[:500]
    return client.post(action, data={"csrf_token": found.group(1), **fields}).status_code


def via(base_url: str, client_address: str) -> httpx.Client:
    """A browser whose proxy reports it as ``client_address``."""
    return httpx.Client(base_url=base_url, headers={"X-Forwarded-For": client_address})


@pytest.mark.parametrize(("trusted", "owner_gets_in"), [("127.0.0.1", True), ("192.0.2.1", False)])
def test_the_client_address_is_the_trusted_proxys_word(
    tmp_path: Path, trusted: str, owner_gets_in: bool
) -> None:
    database = f"sqlite:///{tmp_path / 'pressroom.db'}"
    email = "owner@example.com"
    with (
        live_service(tmp_path / "data", database, FORWARDED_ALLOW_IPS=trusted) as live,
        via(live.base_url, "198.51.100.7") as owner,
        via(live.base_url, "203.0.113.66") as guesser,
    ):
        made = submit(owner, "/sign-up", "/sign-up", email=email, password=PASSWORD, plan="agency")
        assert made == 303
        owner.cookies.clear()
        for _ in range(FAILURES_PER_EMAIL_AND_ADDRESS):
            assert submit(guesser, "/sign-in", "/sign-in", email=email, password="x") == 401
        assert submit(guesser, "/sign-in", "/sign-in", email=email, password="x") == 429
        answer = submit(owner, "/sign-in", "/sign-in", email=email, password=PASSWORD)
        assert answer == (303 if owner_gets_in else 429)
