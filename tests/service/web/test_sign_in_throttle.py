"""Wrong passwords are counted against the address that sent them, per email and across
emails: a guesser is stopped, while the account's owner elsewhere still signs in (five
wrong passwords from anywhere used to lock an account for everyone for 15 minutes)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from pressroom.service.auth.service import (
    FAILURES_PER_ADDRESS,
    FAILURES_PER_EMAIL_AND_ADDRESS,
    THROTTLE_WINDOW,
)
from tests.service.web.conftest import Browser

PASSWORD = "s3cret-enough"


def at(web_app: TestClient, address: str) -> Browser:
    """A browser whose requests come from ``address``."""
    return Browser(TestClient(web_app.app, base_url="http://testserver", client=(address, 50000)))


def sign_in(browser: Browser, email: str, password: str) -> int:
    response = browser.form("/sign-in", "/sign-in", email=email, password=password)
    return int(response.status_code)  # type: ignore[attr-defined]


def test_wrong_passwords_from_one_address_do_not_lock_the_owner_out(
    web_app: TestClient, browser: Browser
) -> None:
    email = browser.sign_up(password=PASSWORD)
    attacker = at(web_app, "203.0.113.66")
    for _ in range(FAILURES_PER_EMAIL_AND_ADDRESS):
        assert sign_in(attacker, email, "guess") == 401
    # The guessing address is stopped for this email, the right password included ...
    refused = attacker.form("/sign-in", "/sign-in", email=email, password=PASSWORD)
    assert refused.status_code == 429  # type: ignore[attr-defined]
    retry_after = int(refused.headers["Retry-After"])  # type: ignore[attr-defined]
    assert 0 < retry_after <= THROTTLE_WINDOW.total_seconds()
    assert "Too many failed sign-ins" in refused.text  # type: ignore[attr-defined]
    # ... while the owner, at an address that has not failed, signs in.
    assert sign_in(at(web_app, "198.51.100.7"), email, PASSWORD) == 303
    # The guesser's other emails are judged on their own (within the address's budget).
    assert sign_in(attacker, "someone-else@example.com", "guess") == 401


def test_an_address_trying_many_emails_is_stopped(web_app: TestClient, browser: Browser) -> None:
    email = browser.sign_up(password=PASSWORD)
    sprayer = at(web_app, "203.0.113.77")
    for n in range(FAILURES_PER_ADDRESS):
        # Under the per-email limit each time: only the address's total stops it.
        assert sign_in(sprayer, f"user{n}@example.com", "Summer2026!") == 401
    assert sign_in(sprayer, "one-more@example.com", "Summer2026!") == 429
    assert sign_in(sprayer, email, PASSWORD) == 429
    assert sign_in(at(web_app, "198.51.100.8"), email, PASSWORD) == 303


def test_an_ipv6_network_counts_as_one_address(web_app: TestClient, browser: Browser) -> None:
    """One subscriber holds a whole /64: a new address per guess must not be a new budget."""
    email = browser.sign_up(password=PASSWORD)
    for n in range(FAILURES_PER_EMAIL_AND_ADDRESS):
        assert sign_in(at(web_app, f"2001:db8:0:7::{n + 1}"), email, "guess") == 401
    assert sign_in(at(web_app, "2001:db8:0:7::abcd"), email, PASSWORD) == 429
    assert sign_in(at(web_app, "2001:db8:0:8::1"), email, PASSWORD) == 303


def test_signing_in_forgives_the_address_its_earlier_slips(browser: Browser) -> None:
    email = browser.sign_up(password=PASSWORD)
    browser.client.cookies.delete("pressroom_session")
    for _ in range(2):
        for _ in range(FAILURES_PER_EMAIL_AND_ADDRESS - 1):
            assert sign_in(browser, email, "typo") == 401
        assert sign_in(browser, email, PASSWORD) == 303
        browser.client.cookies.delete("pressroom_session")
