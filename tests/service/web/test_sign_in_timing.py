"""Sign-in costs one password check whether or not the email has an account, so its
time tells nobody which emails are registered (it was 6-16 ms for an unknown email
against 224-259 ms for a wrong password)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pressroom.service.auth import passwords
from pressroom.settings import Settings
from tests.service.web.conftest import Browser


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each Argon2 verification the real hasher runs, counted as it runs."""
    hasher = passwords._hasher()
    real = hasher.verify
    seen: list[str] = []

    def counting(password: Any, hash: Any, *args: Any, **kwargs: Any) -> bool:
        seen.append(str(password))
        return bool(real(password, hash, *args, **kwargs))

    monkeypatch.setattr(hasher, "verify", counting)
    yield seen


def _sign_in(browser: Browser, email: str, password: str) -> int:
    response = browser.form("/sign-in", "/sign-in", email=email, password=password)
    return int(response.status_code)  # type: ignore[attr-defined]


def test_an_unknown_email_costs_one_password_check_as_a_wrong_password_does(
    browser: Browser, checks: list[str]
) -> None:
    email = browser.sign_up(password="s3cret-enough")
    browser.client.cookies.delete("pressroom_session")
    checks.clear()

    assert _sign_in(browser, email, "wrong-password") == 401
    assert checks == ["wrong-password"]

    checks.clear()
    assert _sign_in(browser, "nobody-here@example.com", "wrong-password") == 401
    assert checks == ["wrong-password"]

    checks.clear()
    assert _sign_in(browser, "", "wrong-password") == 401
    assert checks == ["wrong-password"]


def test_an_account_without_a_password_costs_one_check_too(
    browser: Browser, settings: Settings, checks: list[str]
) -> None:
    """An operator-made account has no password until one is set (or a link is used)."""
    from pressroom.plans import Plan
    from pressroom.service.accounts.service import create_account
    from pressroom.service.admin import admin_session

    with admin_session(settings) as db:
        create_account(db, email="no-password@example.com", plan=Plan.BUSINESS)
    assert _sign_in(browser, "no-password@example.com", "any-password") == 401
    assert checks == ["any-password"]
