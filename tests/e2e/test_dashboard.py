"""The dashboard in Chromium: the whole journey of a new user, and the security edges."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import delete

from pressroom.service.db.models import SignInFailure
from pressroom.service.db.session import transaction
from tests.e2e.conftest import LiveServer, check_page
from tests.support.media import make_image, make_video

pytestmark = pytest.mark.browser

PASSWORD = "a long enough secret"


def sign_up(page: Any, axe: Any, plan: str = "business", shots: bool = False) -> str:
    email = f"{secrets.token_hex(4)}@example.com"
    page.goto("/sign-up")
    check_page(page, axe, "sign-up" if shots else None)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label(re.compile(f"^{plan.capitalize()}")).check()
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/settings/api-keys")
    return email


def api(live: LiveServer, key: str, method: str, path: str, **kw: Any) -> httpx.Response:
    return httpx.request(method, live.address + path, headers={"X-API-Key": key}, timeout=10, **kw)


def connect(
    page: Any, axe: Any, platform: str, name: str, *, allow: bool = True, **choices: str
) -> None:
    page.goto("/connections")
    page.get_by_role("button", name=f"Connect {platform}", exact=True).click()
    page.wait_for_url(f"**/sandbox/{platform}/oauth/authorize?**")
    check_page(page, axe, f"consent-{platform}")
    page.get_by_label("Account name (handle)").fill(name)
    for label in choices.values():
        page.get_by_label(label, exact=True).check()
    page.get_by_role("button", name="Allow" if allow else "Deny").click()


def wait_ready(page: Any, filename: str) -> None:
    row = page.locator("tr", has_text=filename)
    for _ in range(60):
        status = row.get_attribute("data-status")
        if status in ("ready", "failed"):
            break
        page.wait_for_timeout(500)
        page.goto("/media")
    assert row.get_attribute("data-status") == "ready", row.inner_text()


def test_the_journey_of_a_new_user(
    page: Any, axe: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    live = live_server
    sign_up(page, axe, shots=True)
    old_key = page.locator("#new-key").input_value()
    assert old_key.startswith("prk_live_")
    check_page(page, axe, "api-keys-revealed")

    # Connect microblog and photo_sharing: the text_thread twin appears.
    connect(page, axe, "microblog", "@acme")
    page.wait_for_url("**/connections")
    assert "Connected microblog account @acme" in page.content()
    connect(page, axe, "photo_sharing", "acme.photos", kind="Business")
    page.wait_for_url("**/connections")
    rows = page.locator("tbody tr")
    assert rows.count() == 3
    assert page.locator('tr[data-platform="text_thread"] .status').inner_text() == "active"
    check_page(page, axe, "connections")

    # Deny a consent: nothing is created.
    connect(page, axe, "pin_board", "acme-pins", allow=False)
    page.get_by_role("heading", name="Nothing was connected").wait_for()
    check_page(page, axe)
    unified = api(live, old_key, "GET", "/api/connections/unified").json()
    assert sorted(c["platform"] for c in unified) == ["microblog", "photo_sharing", "text_thread"]

    # Rotate the key: the old one gets 401 at once, the new one works.
    page.goto("/settings/api-keys")
    assert "prk_live_••••••••" + old_key[-4:] in page.content()
    page.get_by_role("link", name="Rotate key").click()
    check_page(page, axe, "rotate-confirm")
    page.get_by_role("button", name="Rotate key").click()
    new_key = page.locator("#new-key").input_value()
    assert new_key != old_key
    assert api(live, old_key, "GET", "/api/user/api-key").status_code == 401
    assert api(live, new_key, "GET", "/api/user/api-key").status_code == 200

    # Upload an image and a short video in the browser: both become ready with previews.
    page.goto("/media")
    check_page(page, axe)
    for source in (
        make_image(tmp_path / "poster.png", size=(320, 180)),
        make_video(tmp_path / "teaser.mp4", 3.0),
    ):
        page.set_input_files("#upload-file", str(source))
        with page.expect_navigation():
            page.get_by_role("button", name="Upload", exact=True).click()
        wait_ready(page, source.name)
    image = page.get_by_alt_text("Preview of poster.png")
    assert image.evaluate("i => i.complete && i.naturalWidth") == 320
    # The video's preview is its poster frame, made during processing.
    frame = page.get_by_alt_text("Poster frame of teaser.mp4")
    frame.evaluate("i => i.complete || new Promise(ok => i.addEventListener('load', ok))")
    assert frame.evaluate("i => i.naturalWidth") == 64
    check_page(page, axe, "media")

    # Publish through the API: the post shows in the history.
    microblog = next(c["id"] for c in unified if c["platform"] == "microblog")
    published = api(
        live,
        new_key,
        "POST",
        "/api/v2/microblog/publish",
        json={"connectionId": microblog, "text": "Launch day!"},
    )
    assert published.status_code == 200, published.text
    page.goto("/posts")
    assert page.locator("table.posts").inner_text().count("Launch day!") == 1
    check_page(page, axe, "posts")
    page.get_by_role("link", name=re.compile("UTC")).first.click()
    assert "What came back" in page.content()
    check_page(page, axe)
    page.goto("/")
    check_page(page, axe, "overview")

    # The operator expires the photo_sharing token: inactive, and Reconnect works.
    photo = next(c["id"] for c in unified if c["platform"] == "photo_sharing")
    env = {
        **os.environ,
        "PRESSROOM_DATA_DIR": str(live.settings.data_dir),
        "PRESSROOM_DATABASE_URL": live.settings.database_url,
        "PRESSROOM_SECRET_KEY": "browser-test-secret",
        "PRESSROOM_BASE_URL": live.address,
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pressroom.cli.main",
            "admin",
            "expire-token",
            "--connection",
            photo,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    page.goto("/connections")
    photo_row = page.locator('tr[data-platform="photo_sharing"]')
    assert photo_row.locator(".status").inner_text() == "inactive"
    assert "could not be refreshed" in photo_row.inner_text()
    assert page.locator('tr[data-platform="text_thread"] .status').inner_text() == "inactive"
    check_page(page, axe, "connections-inactive")
    photo_row.get_by_role("button", name=re.compile("Reconnect")).click()
    page.get_by_label("Account name (handle)").fill("acme.photos")
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url("**/connections")
    assert page.locator(".status-inactive").count() == 0

    # Disconnect, after a confirmation.
    page.locator('tr[data-platform="microblog"]').get_by_role(
        "link", name=re.compile("Disconnect")
    ).click()
    check_page(page, axe)
    page.get_by_role("button", name="Disconnect").click()
    page.wait_for_url("**/connections")
    assert page.locator('tr[data-platform="microblog"]').count() == 0
    assert (
        api(
            live,
            new_key,
            "POST",
            "/api/v2/microblog/publish",
            json={"connectionId": microblog, "text": "gone"},
        ).status_code
        == 404
    )


def test_sign_in_is_throttled(page: Any, axe: Any, live_server: LiveServer) -> None:
    email = sign_up(page, axe)
    page.context.clear_cookies()
    try:
        statuses = []
        for _ in range(6):
            page.goto("/sign-in")
            page.get_by_label("Email").fill(email)
            page.get_by_label("Password").fill("not the password")
            with page.expect_response(lambda r: r.url.endswith("/sign-in")) as answer:
                page.get_by_role("button", name="Sign in").click()
            statuses.append(answer.value.status)
        assert statuses == [401] * 5 + [429]
        assert answer.value.headers["retry-after"]
        assert "Too many failed sign-ins" in page.content()
        assert page.locator(".error-summary a").get_attribute("href") == "#email"
        check_page(page, axe, "sign-in-throttled")
    finally:
        with transaction(live_server.sessions) as db:  # other tests sign in from here too
            db.execute(delete(SignInFailure))


def test_a_forged_form_is_refused(page: Any, axe: Any, live_server: LiveServer) -> None:
    sign_up(page, axe)
    key = page.locator("#new-key").input_value()
    page.goto("/settings/api-keys/rotate")
    page.eval_on_selector(
        "form[action='/settings/api-keys/rotate'] input[name=csrf_token]",
        "e => e.value = 'forged'",
    )
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Rotate key").click()
    assert answer.value.status == 403
    page.get_by_role("heading", name="This form has expired").wait_for()
    check_page(page, axe)
    assert api(live_server, key, "GET", "/api/user/api-key").status_code == 200


def test_sign_out_everywhere_ends_other_sessions(
    page: Any, axe: Any, chromium: Any, live_server: LiveServer
) -> None:
    email = sign_up(page, axe)
    other = chromium.new_context(base_url=live_server.address).new_page()
    other.goto("/sign-in")
    check_page(other, axe, "sign-in")
    other.get_by_label("Email").fill(email)
    other.get_by_label("Password").fill(PASSWORD)
    other.get_by_role("button", name="Sign in").click()
    other.wait_for_url(live_server.address + "/")
    page.goto("/settings/account")
    assert "signed in on 2 browsers" in page.content()
    check_page(page, axe, "account")
    page.get_by_role("button", name="Sign out everywhere").click()
    page.wait_for_url("**/sign-in")
    other.goto("/media")
    assert other.url.startswith(live_server.address + "/sign-in?next=")
    other.context.close()


def test_webhooks_are_managed_in_the_browser(page: Any, axe: Any, live_server: LiveServer) -> None:
    from tests.support.receiver import running_receiver

    sign_up(page, axe)
    page.goto("/settings/webhooks")
    check_page(page, axe, "webhooks")
    page.get_by_label("URL").fill("https://10.0.0.7/hooks")
    page.get_by_role("button", name="Add endpoint").click()
    error = page.locator("#url-error")
    assert "not a public one" in error.inner_text()
    assert page.get_by_label("URL").get_attribute("aria-invalid") == "true"
    check_page(page, axe)

    with running_receiver() as receiver:
        page.get_by_label("URL").fill(receiver.url)
        page.get_by_role("button", name="Add endpoint").click()
        secret = page.locator("#new-secret").input_value()
        assert secret.startswith("whsec_")
        receiver.secrets.append(secret)
        check_page(page, axe, "webhook-secret")
        page.get_by_role("button", name=re.compile("^Send test")).click()
        page.wait_for_url("**/settings/webhooks/whk_*")
        receiver.wait_for(1)
        assert receiver.events()[0].type == "webhook.test"
        for _ in range(40):  # the log shows the attempt once it is recorded
            if "delivered" in page.locator("tbody").inner_text():
                break
            page.wait_for_timeout(250)
            page.reload()
        assert "delivered" in page.locator("tbody").inner_text()
        check_page(page, axe, "webhook-deliveries")


def test_the_delivery_log_is_filtered_and_deleting_asks_first_in_the_browser(
    page: Any, axe: Any, live_server: LiveServer
) -> None:
    """A receiver answering 500: the attempt reads "HTTP 500" with the answer apart; the
    log is filtered by a plain GET form; Delete opens a confirmation, Cancel keeps the
    endpoint and confirming removes it. Each state checked with axe."""
    from tests.support.receiver import running_receiver

    sign_up(page, axe)
    with running_receiver() as receiver:
        receiver.status = 500
        page.goto("/settings/webhooks")
        page.get_by_label("URL").fill(receiver.url)
        page.get_by_role("button", name="Add endpoint").click()
        receiver.secrets.append(page.locator("#new-secret").input_value())
        page.get_by_role("button", name=re.compile("^Send test")).click()
        page.wait_for_url("**/settings/webhooks/whk_*")
        log_url = page.url
        receiver.wait_for(1, answered=500)
        status = page.locator("[data-attempt] .attempt-status").first
        for _ in range(40):  # the log shows the attempt once it is recorded
            if status.count():
                break
            page.wait_for_timeout(250)
            page.reload()
        assert status.inner_text() == "HTTP 500"
        excerpt = page.locator("[data-attempt] .attempt-excerpt").first.inner_text()
        assert excerpt.startswith('Answer: {"seen"')
        check_page(page, axe, "webhook-log-500")

        page.get_by_label("State").select_option("delivered")
        page.get_by_role("button", name="Filter").click()
        page.wait_for_url("**state=delivered**")
        assert "No delivery matches." in page.content()
        check_page(page, axe)

        page.goto("/settings/webhooks")
        page.get_by_role("link", name=re.compile("^Delete")).click()
        page.wait_for_url("**/delete")
        assert "cannot be undone" in page.content()
        check_page(page, axe, "webhook-delete-confirm")
        page.get_by_role("link", name="Cancel").click()
        page.wait_for_url("**/settings/webhooks")
        assert receiver.url in page.content()
        page.get_by_role("link", name=re.compile("^Delete")).click()
        page.get_by_role("button", name="Delete endpoint").click()
        page.wait_for_url("**/settings/webhooks")
        assert "No endpoints yet" in page.content()
        assert page.goto(log_url).status == 404
