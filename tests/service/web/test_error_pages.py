"""A dashboard address that does not exist, or a form it cannot take, answers a page in
the dashboard's layout; the API keeps its JSON error body (both used to be raw JSON)."""

from __future__ import annotations

import httpx
import pytest

from tests.service.web.conftest import Browser, csrf_of


def assert_dashboard_page(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    html = response.text
    assert '<a class="skip-link" href="#main">' in html and '<main id="main"' in html
    return html


@pytest.mark.parametrize("path", ["/settings/nope", "/media/zzz", "/posts/a/b/c", "/sign-in/x/y"])
def test_an_unknown_dashboard_address_is_a_page_not_found(browser: Browser, path: str) -> None:
    browser.sign_up()
    html = assert_dashboard_page(browser.client.get(path), 404)
    assert "<h1>Page not found</h1>" in html
    assert 'aria-label="Main"' in html  # the menu, for the signed-in visitor
    signed_out = Browser(browser.client.__class__(browser.client.app))
    html = assert_dashboard_page(signed_out.client.get(path), 404)
    assert "<h1>Page not found</h1>" in html and 'aria-label="Main"' not in html


def test_a_method_a_dashboard_address_does_not_take_is_a_page(browser: Browser) -> None:
    browser.sign_up()
    response = browser.client.delete("/settings/account")
    html = assert_dashboard_page(response, 405)
    assert "This page cannot do that" in html
    assert response.headers["Allow"] == "GET"


def test_the_api_and_scripts_keep_the_json_error_body(browser: Browser) -> None:
    browser.sign_up()
    for response, status, code in (
        (browser.client.get("/api/nothing-here"), 404, "not_found"),
        (browser.client.put("/api/upload/folders"), 405, "method_not_allowed"),
        (browser.client.post("/openapi.json"), 405, "method_not_allowed"),
        (browser.client.get("/nowhere"), 404, "not_found"),  # in no section of the dashboard
        (
            browser.client.get("/settings/nope", headers={"Accept": "application/json"}),
            404,
            "not_found",
        ),
    ):
        assert response.status_code == status
        assert response.json()["error"]["code"] == code
        assert "Content-Security-Policy" not in response.headers


def test_upload_with_no_file_chosen_shows_the_form_error(browser: Browser) -> None:
    """What a browser sends when Upload is pressed with no file: the script leaves such a
    submit to the browser, which posts the form to /media with an empty file part."""
    browser.sign_up()
    page = browser.client.get("/media").text
    response = browser.client.post(
        "/media",
        data={"csrf_token": csrf_of(page), "folder_id": ""},
        files={"file": ("", b"", "application/octet-stream")},
    )
    html = assert_dashboard_page(response, 400)
    assert 'class="error-summary"' in html and 'href="#upload-file"' in html
    assert html.count("Choose an image or video to upload.") == 2  # summary and field
    assert 'aria-invalid="true"' in html


def test_upload_without_javascript_says_what_to_do(browser: Browser) -> None:
    browser.sign_up()
    page = browser.client.get("/media").text
    response = browser.client.post(
        "/media",
        data={"csrf_token": csrf_of(page)},
        files={"file": ("cat.png", b"\x89PNG\r\n\x1a\n", "image/png")},
    )
    html = assert_dashboard_page(response, 400)
    assert "Uploading from this page needs JavaScript" in html
    assert "No files here yet." in html  # nothing was kept


def test_upload_needs_the_form_token(browser: Browser) -> None:
    browser.sign_up()
    response = browser.client.post(
        "/media", data={"csrf_token": "forged"}, files={"file": ("", b"", "text/plain")}
    )
    assert_dashboard_page(response, 403)
