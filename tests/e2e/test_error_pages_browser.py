"""In Chromium: an unknown dashboard address and an upload with no file chosen answer
pages in the dashboard's layout, with no accessibility violation."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveServer, check_page
from tests.e2e.test_dashboard import sign_up

pytestmark = pytest.mark.browser


def test_an_unknown_address_is_a_page_of_the_dashboard(
    page: Any, axe: Any, live_server: LiveServer
) -> None:
    sign_up(page, axe)
    answer = page.goto("/settings/nope")
    assert answer.status == 404
    page.get_by_role("heading", name="Page not found").wait_for()
    assert page.get_by_role("navigation", name="Main").is_visible()
    check_page(page, axe, "not-found")


def test_upload_with_no_file_chosen_says_so_beside_the_field(
    page: Any, axe: Any, live_server: LiveServer
) -> None:
    sign_up(page, axe)
    page.goto("/media")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Upload", exact=True).click()
    assert answer.value.status == 400
    assert answer.value.url.endswith("/media")
    summary = page.locator(".error-summary a")
    assert summary.get_attribute("href") == "#upload-file"
    assert summary.inner_text() == "Choose an image or video to upload."
    check_page(page, axe, "media-upload-no-file")
