"""Accounts and sign-in: sign-up, sessions in the database, CSRF, throttling, headers."""

from __future__ import annotations

import secrets

import pytest
from sqlalchemy import create_engine, text

from pressroom.service.db.session import normalise_url
from pressroom.service.web.security import CSRF_COOKIE, SESSION_COOKIE
from pressroom.settings import Settings
from tests.service.web.conftest import Browser, csrf_of


def test_sign_up_signs_in_and_shows_the_key_once(browser: Browser) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    assert key.startswith("prk_live_")
    again = browser.client.get("/settings/api-keys").text
    assert key not in again
    assert "prk_live_••••••••" + key[-4:] in again
    assert browser.client.get("/api/user/api-key", headers={"X-API-Key": key}).status_code == 200


def test_pages_need_a_session(browser: Browser) -> None:
    response = browser.client.get("/posts?status=failed", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/sign-in?next=/posts%3Fstatus%3Dfailed"


def test_wrong_fields_get_an_error_summary_linking_to_them(browser: Browser) -> None:
    response = browser.form("/sign-up", "/sign-up", email="nope", password="short", plan="x")
    assert response.status_code == 400
    html = response.text
    assert 'class="error-summary"' in html
    for field in ("email", "password", "plan"):
        assert f'href="#{field}"' in html
    assert "password must be at least 8 characters." in html


def test_sign_out_and_sign_in_again(browser: Browser) -> None:
    email = browser.sign_up(password="s3cret-enough")
    html = browser.client.get("/").text
    assert (
        browser.client.post(
            "/sign-out", data={"csrf_token": csrf_of(html)}, follow_redirects=False
        ).status_code
        == 303
    )
    assert browser.client.get("/", follow_redirects=False).status_code == 303
    bad = browser.form("/sign-in", "/sign-in", email=email, password="wrong-password")
    assert bad.status_code == 401
    assert "The email or password is wrong." in bad.text
    good = browser.form(
        "/sign-in", "/sign-in", email=email, password="s3cret-enough", next="/posts"
    )
    assert good.status_code == 303 and good.headers["location"] == "/posts"
    assert browser.client.get("/posts").status_code == 200


def test_csrf_is_refused_without_the_token(browser: Browser) -> None:
    browser.sign_up()
    response = browser.client.post(
        "/settings/api-keys/rotate", data={"csrf_token": "forged"}, follow_redirects=False
    )
    assert response.status_code == 403
    assert "nothing was changed" in response.text
    signed_out = Browser(browser.client.__class__(browser.client.app))
    refused = signed_out.client.post(
        "/sign-in", data={"email": "a@b.cd", "password": "x"}, follow_redirects=False
    )
    assert refused.status_code == 403


@pytest.mark.parametrize("form", ["/sign-in", "/sign-up"])
def test_forms_before_sign_in_need_the_token_that_matches_the_cookie(
    browser: Browser, other_browser: Browser, form: str
) -> None:
    """Double-submit: the form's token must equal this browser's own cookie. A token that
    is merely present (forged), or the page's real token sent with a cookie set by another
    site, is refused, and nothing is done: no session, no account."""
    email = browser.sign_up(password="s3cret-enough")  # sign-in: the right password
    fields = {"email": email, "password": "s3cret-enough", "plan": "business"}
    if form == "/sign-up":
        fields["email"] = f"{secrets.token_hex(4)}@example.com"
    client = other_browser.client
    token = csrf_of(client.get(form).text)  # the page set this browser's cookie
    assert client.cookies.get(CSRF_COOKIE) == token

    forged = client.post(form, data={**fields, "csrf_token": "forged"}, follow_redirects=False)
    assert forged.status_code == 403 and "nothing was changed" in forged.text
    client.cookies.clear()
    client.cookies.set(CSRF_COOKIE, "set-by-another-site")
    crossed = client.post(form, data={**fields, "csrf_token": token}, follow_redirects=False)
    assert crossed.status_code == 403 and "nothing was changed" in crossed.text
    assert SESSION_COOKIE not in client.cookies

    client.cookies.clear()
    done = other_browser.form(form, form, **fields)  # the same form, sent as it was shown
    assert done.status_code == 303, done.text  # type: ignore[attr-defined]


def test_sign_in_is_throttled_per_email(browser: Browser, other_browser: Browser) -> None:
    email = browser.sign_up(password="s3cret-enough")
    for _ in range(5):
        assert browser.form("/sign-in", "/sign-in", email=email, password="bad").status_code == 401
    # Even the right password waits now, from this address (another browser on it too).
    throttled = other_browser.form("/sign-in", "/sign-in", email=email, password="s3cret-enough")
    assert throttled.status_code == 429
    assert 0 < int(throttled.headers["Retry-After"]) <= 15 * 60
    assert "Too many failed sign-ins" in throttled.text


def test_sign_out_everywhere_revokes_other_sessions(
    browser: Browser, other_browser: Browser
) -> None:
    email = browser.sign_up(password="s3cret-enough")
    other_browser.form("/sign-in", "/sign-in", email=email, password="s3cret-enough")
    assert other_browser.client.get("/", follow_redirects=False).status_code == 200
    html = browser.client.get("/settings/account").text
    browser.client.post("/sign-out/everywhere", data={"csrf_token": csrf_of(html)})
    assert other_browser.client.get("/", follow_redirects=False).status_code == 303
    assert browser.client.get("/", follow_redirects=False).status_code == 303


def test_change_password_signs_other_browsers_out(browser: Browser, other_browser: Browser) -> None:
    email = browser.sign_up(password="s3cret-enough")
    other_browser.form("/sign-in", "/sign-in", email=email, password="s3cret-enough")
    wrong = browser.form(
        "/settings/account",
        "/settings/account/password",
        current_password="nope",
        new_password="another-secret",
    )
    assert wrong.status_code == 400 and 'href="#current_password"' in wrong.text
    ok = browser.form(
        "/settings/account",
        "/settings/account/password",
        current_password="s3cret-enough",
        new_password="another-secret",
    )
    assert ok.status_code == 303
    assert browser.client.get("/", follow_redirects=False).status_code == 200
    assert other_browser.client.get("/", follow_redirects=False).status_code == 303


def test_sessions_live_in_the_database(browser: Browser, settings: Settings) -> None:
    browser.sign_up()
    engine = create_engine(normalise_url(settings.database_url))
    with engine.connect() as conn:
        count = conn.execute(text("SELECT count(*) FROM web_sessions")).scalar()
    engine.dispose()
    assert count == 1


def test_security_headers_on_pages_only(browser: Browser) -> None:
    page = browser.client.get("/sign-in")
    csp = page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    api = browser.client.get("/api/connections/unified")
    assert "Content-Security-Policy" not in api.headers
    assert "set-cookie" not in api.headers


def test_cookie_flags(browser: Browser) -> None:
    html = browser.client.get("/sign-up").text
    response = browser.client.post(
        "/sign-up",
        data={
            "csrf_token": csrf_of(html),
            "email": "flags@example.com",
            "password": "s3cret-enough",
            "plan": "business",
        },
        follow_redirects=False,
    )
    cookie = next(
        c for c in response.headers.get_list("set-cookie") if c.startswith("pressroom_session=")
    )
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie


def test_blogger_sees_why_there_is_no_key(browser: Browser) -> None:
    browser.sign_up(plan="blogger")
    html = browser.client.get("/settings/api-keys").text
    assert "The Blogger plan has no API access" in html
    assert "prk_live_" not in html


def test_sign_in_is_throttled_per_address(browser: Browser) -> None:
    from pressroom.service.auth.service import FAILURES_PER_ADDRESS

    for n in range(FAILURES_PER_ADDRESS):
        wrong = browser.form("/sign-in", "/sign-in", email=f"nobody{n}@example.com", password="x")
        assert wrong.status_code == 401  # type: ignore[attr-defined]
    email = browser.sign_up(password="s3cret-enough")
    browser.client.cookies.delete("pressroom_session")
    throttled = browser.form("/sign-in", "/sign-in", email=email, password="s3cret-enough")
    assert throttled.status_code == 429  # type: ignore[attr-defined]


def test_an_operator_made_account_signs_in_whatever_the_case(
    browser: Browser, settings: Settings
) -> None:
    from pressroom.plans import Plan
    from pressroom.service.accounts.service import create_account
    from pressroom.service.admin import admin_session
    from pressroom.service.auth.service import set_password

    with admin_session(settings) as db:
        create_account(db, email="Ed@Example.com", plan=Plan.AGENCY)
        set_password(db, "Ed@Example.com", "operator-chosen")
    ok = browser.form("/sign-in", "/sign-in", email="ed@example.com", password="operator-chosen")
    assert ok.status_code == 303  # type: ignore[attr-defined]


def test_the_policy_lets_the_browser_upload_to_an_s3_store(settings: Settings) -> None:
    from pressroom.service.web.security import content_security_policy
    from pressroom.settings import StorageSettings

    local = content_security_policy(settings)
    assert "connect-src 'self';" in local and "script-src 'self';" in local
    s3 = settings.model_copy(
        update={"store": StorageSettings(storage="s3", s3_endpoint_url="http://127.0.0.1:8333/x")}
    )
    assert "connect-src 'self' http://127.0.0.1:8333;" in content_security_policy(s3)
