"""An account's email is an address by its syntax (email-validator, no DNS), kept in one
normalised form; ``<script>alert(1)</script>@x.co`` used to be accepted."""

from __future__ import annotations

import html as markup

import pytest
from sqlalchemy import func, select

from pressroom.service.db.models import Account
from pressroom.service.db.session import transaction
from pressroom.settings import Settings
from tests.service.web.conftest import Browser

PASSWORD = "s3cret-enough"


def accounts(browser: Browser) -> list[str]:
    factory = browser.client.app.state.session_factory  # type: ignore[attr-defined]
    with transaction(factory, write=False) as db:
        return list(db.scalars(select(Account.email).order_by(func.lower(Account.email))))


@pytest.mark.parametrize(
    ("email", "why"),
    [
        ("<script>alert(1)</script>@x.co", "there can't be anything after the email address"),
        ("name@host", "it should have a period"),
        ("two@@example.com", "contains invalid characters"),
        ("a..b@example.com", "two periods in a row"),
        ("me@printer.local", "special-use or reserved name"),
    ],
)
def test_sign_up_refuses_what_is_not_an_address(browser: Browser, email: str, why: str) -> None:
    response = browser.form("/sign-up", "/sign-up", email=email, password=PASSWORD, plan="agency")
    assert response.status_code == 400  # type: ignore[attr-defined]
    html = response.text  # type: ignore[attr-defined]
    assert 'class="error-summary"' in html and 'href="#email"' in html
    assert "email must be an address such as name@example.com:" in html
    assert why in markup.unescape(html).lower()
    assert "<script>alert(1)" not in html  # shown escaped in the field, never as markup
    assert accounts(browser) == []


def test_an_email_is_kept_normalised_and_signs_in_in_any_case(browser: Browser) -> None:
    typed = "  Ed.Smith@EXAMPLE.com "
    made = browser.form("/sign-up", "/sign-up", email=typed, password=PASSWORD, plan="agency")
    assert made.status_code == 303  # type: ignore[attr-defined]
    assert accounts(browser) == ["ed.smith@example.com"]
    assert "ed.smith@example.com" in browser.client.get("/settings/account").text
    browser.client.cookies.delete("pressroom_session")
    again = browser.form("/sign-in", "/sign-in", email="ED.smith@example.COM", password=PASSWORD)
    assert again.status_code == 303  # type: ignore[attr-defined]


def test_an_address_differing_only_by_case_is_taken(browser: Browser, settings: Settings) -> None:
    """Including an account made before emails were normalised, in the case it was typed."""
    from pressroom.service.accounts import keys
    from pressroom.service.admin import admin_session
    from pressroom.service.db.base import new_id, utcnow

    with admin_session(settings) as db:
        key = keys.generate_key()
        db.add(
            Account(
                id=new_id("acc"),
                email="Old.Timer@Example.com",
                plan="business",
                api_key_hash=keys.hash_key(key),
                api_key_created_at=utcnow(),
                created_at=utcnow(),
            )
        )
    taken = browser.form(
        "/sign-up", "/sign-up", email="old.timer@example.com", password=PASSWORD, plan="agency"
    )
    assert taken.status_code == 400  # type: ignore[attr-defined]
    assert "an account with this email already exists" in taken.text  # type: ignore[attr-defined]
