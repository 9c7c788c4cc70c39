"""The operator's way into the dashboard: a one-time sign-in link, or a set password."""

from __future__ import annotations

import os
import re

from tests.cli.test_admin import admin, admin_json
from tests.conftest import Service
from tests.service.web.conftest import Browser, csrf_of


def _token(link: str) -> str:
    found = re.search(r"/sign-in/link/([\w-]+)$", link.strip())
    assert found, link
    return found.group(1)


def test_created_account_signs_in_once_with_the_printed_link(service: Service) -> None:
    created = admin_json(service, "create-account", "--email", "op@example.com", "--plan", "agency")
    token = _token(created["signInLink"])
    browser = Browser(service.client)
    page = service.client.get(f"/sign-in/link/{token}").text
    first = service.client.post(
        "/sign-in/link", data={"csrf_token": csrf_of(page), "token": token}, follow_redirects=False
    )
    assert first.status_code == 303
    assert "op@example.com" in service.client.get("/settings/account").text
    # Set a password without a current one (the account never had one).
    done = browser.form(
        "/settings/account", "/settings/account/password", new_password="brand-new-pass"
    )
    assert done.status_code == 303  # type: ignore[attr-defined]
    again = service.client.post(
        "/sign-in/link", data={"csrf_token": csrf_of(page), "token": token}, follow_redirects=False
    )
    assert again.status_code == 400 and "unknown, used or expired" in again.text


def test_text_mode_keeps_only_the_key_on_stdout(service: Service) -> None:
    done = admin(
        service, "create-account", "--email", "txt@example.com", "--plan", "business", process=True
    )
    assert done.returncode == 0
    assert done.stdout.strip().startswith("prk_live_") and "\n" not in done.stdout.strip()
    assert "/sign-in/link/" in done.stderr
    link = admin(service, "sign-in-link", "--email", "txt@example.com")
    assert link.returncode == 0 and _token(link.stdout)


def test_set_password_lets_the_account_sign_in(service: Service) -> None:
    admin_json(service, "create-account", "--email", "pw@example.com", "--plan", "business")
    os.environ["PRESSROOM_NEW_PASSWORD"] = "operator-chosen"
    try:
        done = admin(service, "set-password", "--email", "pw@example.com")
    finally:
        del os.environ["PRESSROOM_NEW_PASSWORD"]
    assert done.returncode == 0, done.stderr
    browser = Browser(service.client)
    signed = browser.form(
        "/sign-in", "/sign-in", email="pw@example.com", password="operator-chosen"
    )
    assert signed.status_code == 303  # type: ignore[attr-defined]
    missing = admin(service, "sign-in-link", "--email", "nobody@example.com")
    assert missing.returncode == 1 and "no account" in missing.stderr
