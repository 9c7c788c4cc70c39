"""Settings, Webhooks in the dashboard: add an endpoint (its secret shown once), refused
URLs explained at the field, a test event verified by a real receiver, the delivery log,
redelivery and deletion, and no reach into another account's endpoints."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from pressroom.service.app import create_app
from pressroom.settings import Settings, get_settings
from tests.service.web.conftest import Browser, csrf_of
from tests.support.receiver import Receiver, running_receiver

PAGE = "/settings/webhooks"
pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def hooked_browser(settings: Settings) -> Iterator[Browser]:
    get_settings.cache_clear()
    tuned = settings.model_copy(update={"webhook_development": True, "webhook_poll_seconds": 0.02})
    with TestClient(create_app(tuned), base_url="http://testserver") as client:
        yield Browser(client)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as found:
        yield found


def add(browser: Browser, url: str, events: list[str]) -> object:
    html = browser.client.get(PAGE).text
    return browser.client.post(
        PAGE, data={"csrf_token": csrf_of(html), "url": url, "events": events}
    )


def shown_secret(html: str) -> str:
    found = re.search(r'id="new-secret"[^>]*value="(whsec_[^"]+)"', html)
    assert found, html
    return found.group(1)


def act(browser: Browser, action: str) -> object:
    html = browser.client.get(PAGE).text
    return browser.client.post(action, data={"csrf_token": csrf_of(html)}, follow_redirects=False)


def test_an_endpoint_is_added_tested_and_deleted_from_the_dashboard(
    hooked_browser: Browser, receiver: Receiver
) -> None:
    browser = hooked_browser
    browser.sign_up()
    assert "No endpoints yet" in browser.client.get(PAGE).text

    refused = add(browser, "http://example.com/hook", ["connection.active"])
    assert refused.status_code == 400  # type: ignore[attr-defined]
    assert 'id="url-error"' in refused.text and "https" in refused.text  # type: ignore[attr-defined]
    assert "No endpoints yet" in refused.text  # type: ignore[attr-defined]

    made = add(browser, receiver.url, ["connection.active", "api_key.rotated"])
    assert made.status_code == 200  # type: ignore[attr-defined]
    secret = shown_secret(made.text)  # type: ignore[attr-defined]
    receiver.secrets.append(secret)
    page = browser.client.get(PAGE).text
    assert secret not in page and receiver.url in page  # shown once
    [webhook_id] = re.findall(r'data-webhook="(whk_[0-9a-f]+)"', page)
    assert "2 of" in page

    tested = act(browser, f"{PAGE}/{webhook_id}/test")
    assert tested.headers["location"] == f"{PAGE}/{webhook_id}"  # type: ignore[attr-defined]
    receiver.wait_for(1)
    [event] = receiver.events()
    assert event.type == "webhook.test" and event.data["endpointId"] == webhook_id
    log = browser.client.get(f"{PAGE}/{webhook_id}").text
    assert "webhook.test" in log and "<td>delivered</td>" in log and "HTTP 200</strong>" in log
    [delivery_id] = re.findall(r'data-delivery="(dlv_[0-9a-f]+)"', log)

    act(browser, f"{PAGE}/{webhook_id}/deliveries/{delivery_id}/redeliver")
    receiver.wait_for(2)
    assert {e.id for e in receiver.events()} == {event.id}  # the same webhook-id again

    act(browser, f"{PAGE}/{webhook_id}/delete")
    assert "No endpoints yet" in browser.client.get(PAGE).text


def test_another_accounts_endpoint_is_out_of_reach(
    hooked_browser: Browser, receiver: Receiver
) -> None:
    browser = hooked_browser
    browser.sign_up()
    add(browser, receiver.url, ["connection.active"])
    [webhook_id] = re.findall(r'data-webhook="(whk_[0-9a-f]+)"', browser.client.get(PAGE).text)
    browser.client.post("/sign-out", data={"csrf_token": csrf_of(browser.client.get(PAGE).text)})
    browser.sign_up()
    assert browser.client.get(f"{PAGE}/{webhook_id}").status_code == 404
    assert act(browser, f"{PAGE}/{webhook_id}/delete").status_code == 404  # type: ignore[attr-defined]


def test_a_token_lost_overnight_is_announced_by_the_refresher(
    hooked_browser: Browser, receiver: Receiver
) -> None:
    """Nobody publishes, nobody looks: the background refresher finds the refresh refused,
    and the receiver hears it (with the twin that followed)."""
    from datetime import timedelta

    from pressroom.service.db.base import utcnow
    from pressroom.service.db.models import Connection, SandboxGrant
    from pressroom.service.db.session import transaction
    from pressroom.service.oauth import service as oauth
    from tests.service.web.conftest import connect

    browser = hooked_browser
    browser.sign_up()
    made = add(browser, receiver.url, ["connection.inactive"])
    receiver.secrets.append(shown_secret(made.text))  # type: ignore[attr-defined]
    connect(browser, "photo_sharing", "acme.photos")
    flow = oauth.flow_of(browser.client.app)
    with transaction(flow.sessions) as db:
        photo = db.query(Connection).filter(Connection.platform == "photo_sharing").one()
        photo.access_expires_at = utcnow() - timedelta(seconds=1)
        for grant in db.query(SandboxGrant).filter(SandboxGrant.kind == "refresh"):
            grant.revoked_at = utcnow()  # the network revoked access overnight
        photo_id = photo.id
    refresher = browser.client.app.state.token_refresher  # type: ignore[attr-defined]
    assert refresher.refresh_due() == 0
    receiver.wait_for(2)
    reasons = {(e.data["platform"], e.data["reason"]) for e in receiver.events()}
    assert reasons == {("photo_sharing", "refresh_failed"), ("text_thread", "parent_inactive")}
    assert photo_id in {e.data["connectionId"] for e in receiver.events()}


def test_an_endpoints_url_and_events_are_changed_by_the_same_rules(
    hooked_browser: Browser, receiver: Receiver
) -> None:
    browser = hooked_browser
    browser.sign_up()
    add(browser, receiver.url, ["connection.active"])
    [webhook_id] = re.findall(r'data-webhook="(whk_[0-9a-f]+)"', browser.client.get(PAGE).text)
    page = f"{PAGE}/{webhook_id}"
    html = browser.client.get(page).text
    refused = browser.client.post(
        page,
        data={"csrf_token": csrf_of(html), "url": receiver.url, "events": ["post.exploded"]},
    )
    assert refused.status_code == 400 and 'id="events-error"' in refused.text
    saved = browser.client.post(
        page,
        data={
            "csrf_token": csrf_of(html),
            "url": receiver.url + "/v2",
            "events": ["post.published", "post.failed"],
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303
    shown = browser.client.get(page).text
    assert receiver.url + "/v2" in shown
    assert re.findall(r'value="([a-z_.]+)" checked', shown) == ["post.published", "post.failed"]
