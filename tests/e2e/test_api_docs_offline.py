"""``/docs`` and ``/redoc`` in Chromium with every request off this machine refused."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

LOCAL = {"127.0.0.1", "localhost"}


def offline(page: Any) -> tuple[list[str], list[str]]:
    """Refuse every request to another host, as an install without egress would; returns
    the refused URLs and the page's console errors (CSP refusals among them)."""
    refused: list[str] = []
    errors: list[str] = []

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).hostname in LOCAL:
            request_route.continue_()
        else:
            refused.append(url)
            request_route.abort()

    page.context.route("**/*", route)
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    return refused, errors


def test_swagger_ui_renders_the_operations_offline(page: Any) -> None:
    refused, errors = offline(page)
    page.goto("/docs")
    page.locator(".opblock").first.wait_for()
    operations = page.locator(".opblock-summary-path")
    assert operations.count() > 20
    paths = {operations.nth(i).get_attribute("data-path") for i in range(operations.count())}
    assert "/api/v2/microblog/publish" in paths and "/api/upload/presigned-url" in paths
    page.locator(".opblock-summary-control").first.click()  # an operation opens
    page.locator(".opblock-body").first.wait_for()
    assert refused == [] and errors == [], (refused, errors)


def test_redoc_renders_the_reference_offline(page: Any) -> None:
    refused, errors = offline(page)
    page.goto("/redoc")
    page.get_by_text("/api/v2/microblog/publish").first.wait_for(state="attached")
    assert page.locator("h2").count() > 20  # one heading per operation
    assert refused == [], refused
    # ReDoc's footer shows its maker's logo from their CDN: the policy keeps the page
    # from asking for it (the only thing missing offline is that image).
    blocked = [e for e in errors if "Content Security Policy" in e]
    assert all("cdn.redoc.ly/redoc/logo-mini.svg" in e for e in blocked), blocked
    assert not [e for e in errors if e not in blocked], errors
