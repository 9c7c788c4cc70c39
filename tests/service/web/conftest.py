"""Dashboard fixtures: a browser-like TestClient that keeps cookies and reads forms."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from pressroom.service.app import create_app
from pressroom.settings import Settings, get_settings

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_of(html: str) -> str:
    found = TOKEN.search(html)
    assert found, html[:2000]
    return found.group(1)


class Browser:
    """A TestClient used as a person would: open a page, fill its form, send it."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def form(self, page: str, action: str, **fields: str) -> object:
        html = self.client.get(page).text
        return self.client.post(
            action, data={"csrf_token": csrf_of(html), **fields}, follow_redirects=False
        )

    def sign_up(self, plan: str = "business", password: str = "correct horse 1") -> str:
        email = f"{secrets.token_hex(4)}@example.com"
        response = self.form("/sign-up", "/sign-up", email=email, password=password, plan=plan)
        assert response.status_code == 303, response.text  # type: ignore[attr-defined]
        return email

    def api_key_shown(self) -> str:
        html = self.client.get("/settings/api-keys").text
        found = re.search(r'id="new-key"[^>]*value="([^"]+)"', html)
        assert found, html
        return found.group(1)


@pytest.fixture
def web_app(settings: Settings) -> Iterator[TestClient]:
    get_settings.cache_clear()
    with TestClient(create_app(settings), base_url="http://testserver") as client:
        yield client


@pytest.fixture
def browser(web_app: TestClient) -> Browser:
    return Browser(web_app)


@pytest.fixture
def other_browser(web_app: TestClient) -> Browser:
    """A second browser on the same server, with its own cookies."""
    client = TestClient(web_app.app, base_url="http://testserver")
    return Browser(client)


HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


TICKED = re.compile(r'<input type="checkbox" id="[^"]*" name="([^"]+)" value="([^"]*)" checked>')


def consent_fields(html: str) -> dict[str, str | list[str]]:
    """What a browser sends from the consent page as shown: its hidden fields and the
    boxes ticked (every permission, until one is unticked)."""
    import html as markup

    fields: dict[str, str | list[str]] = {
        name: markup.unescape(value) for name, value in HIDDEN.findall(html)
    }
    for name, value in TICKED.findall(html):
        ticked = fields.setdefault(name, [])
        assert isinstance(ticked, list)
        ticked.append(markup.unescape(value))
    return fields


def connect(
    browser: Browser, platform: str, name: str, decision: str = "allow", **extra: str
) -> object:
    """Press Connect, then Allow (or Deny) on the sandbox's consent page."""
    page = browser.client.get("/connections").text
    started = browser.client.post(
        f"/connections/connect/{platform}",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    if started.status_code != 303:
        return started
    consent = browser.client.get(started.headers["location"])
    assert consent.status_code == 200, consent.text
    fields = consent_fields(consent.text)
    return browser.client.post(
        f"/sandbox/{platform}/oauth/authorize",
        data={**fields, "decision": decision, "name": name, **extra},
        follow_redirects=True,
    )
