"""The webhook delivery log in the dashboard: filtered by state and event type with a
plain GET form (no JavaScript needed), each attempt reading "HTTP 500" with the answer
apart from it; and deleting an endpoint asks first, as key rotation does."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from pressroom.service.app import create_app
from pressroom.service.db.models import WebhookDelivery, WebhookEvent
from pressroom.service.db.session import transaction
from pressroom.settings import Settings, get_settings
from tests.conftest import Service
from tests.service.web.conftest import Browser, csrf_of
from tests.support.answering import answering, http_answer
from tests.support.webhooks import by_hand, tuned

PAGE = "/settings/webhooks"
pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def quiet(settings: Settings) -> Iterator[tuple[Browser, Service]]:
    """The dashboard with no sender running: the test sends by hand."""
    get_settings.cache_clear()
    tuned_settings = tuned(settings, process_in_api=False)
    app = create_app(tuned_settings)
    with TestClient(app, base_url="http://testserver") as client:
        yield Browser(client), Service(client, app.state.session_factory, tuned_settings)
    app.state.engine.dispose()


def add(browser: Browser, url: str, events: list[str]) -> str:
    page = browser.client.get(PAGE).text
    browser.client.post(PAGE, data={"csrf_token": csrf_of(page), "url": url, "events": events})
    found = re.findall(r'data-webhook="(whk_[0-9a-f]+)"', browser.client.get(PAGE).text)
    assert len(found) == 1
    return found[0]


def shown(page: str) -> list[str]:
    return re.findall(r'data-delivery="(dlv_[0-9a-f]+)"', page)


def attempt_texts(page: str) -> list[str]:
    """Each attempt's lines as text, tags gone, blank runs folded."""
    items = re.findall(r"<li data-attempt>(.*?)</li>", page, re.DOTALL)
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", i)).split()) for i in items]


def test_an_attempt_reads_http_500_with_the_answer_apart(
    quiet: tuple[Browser, Service],
) -> None:
    browser, service = quiet
    browser.sign_up()
    answer = http_answer(500, b'{"ok": true, "note": "<b>sure</b>"}')
    with answering(answer) as receiver:
        webhook_id = add(browser, receiver.url, ["connection.active"])
        browser.form(PAGE, f"{PAGE}/{webhook_id}/test")
        assert by_hand(service).send_one()
    page = browser.client.get(f"{PAGE}/{webhook_id}").text
    [text] = attempt_texts(page)
    status_line, answer_line = re.split(r"(?= Answer: )", text)
    assert re.fullmatch(r"HTTP 500 after \d+ ms, .+", status_line), status_line
    assert answer_line.strip() == 'Answer: {"ok": true, "note": "<b>sure</b>"}'
    assert "<b>sure</b>" not in page  # shown as text, never as markup
    assert not re.search(r"500[^<]*ok", page)  # never "500 … ok" in one run of text


def test_the_log_is_filtered_by_state_and_event_type_with_a_get_form(
    quiet: tuple[Browser, Service],
) -> None:
    browser, service = quiet
    browser.sign_up()
    with answering() as receiver:
        webhook_id = add(browser, receiver.url, ["connection.active"])
        for _ in range(3):
            browser.form(PAGE, f"{PAGE}/{webhook_id}/test")
    log_page = f"{PAGE}/{webhook_id}"
    everything = shown(browser.client.get(log_page).text)
    assert len(everything) == 3
    # One failed, one delivered, one pending; one event made another type.
    failed, delivered, pending = reversed(everything)
    with transaction(service.sessions) as db:
        for delivery_id, state in ((failed, "failed"), (delivered, "delivered")):
            db.execute(
                update(WebhookDelivery).where(WebhookDelivery.id == delivery_id).values(state=state)
            )
        event_id = db.scalar(
            WebhookDelivery.__table__.select()
            .with_only_columns(WebhookDelivery.event_id)
            .where(WebhookDelivery.id == delivered)
        )
        db.execute(
            update(WebhookEvent).where(WebhookEvent.id == event_id).values(type="api_key.rotated")
        )

    page = browser.client.get(log_page).text
    form = re.search(
        r'<form method="get" action="([^"]+)" class="filters"[^>]*>(.*?)</form>', page, re.S
    )
    assert form and form.group(1) == log_page
    assert 'name="state"' in form.group(2) and 'name="type"' in form.group(2)
    assert '<label for="state">' in form.group(2) and '<label for="type">' in form.group(2)

    assert shown(browser.client.get(log_page, params={"state": "failed"}).text) == [failed]
    assert shown(browser.client.get(log_page, params={"state": "pending"}).text) == [pending]
    by_type = browser.client.get(log_page, params={"type": "api_key.rotated"}).text
    assert shown(by_type) == [delivered]
    assert '<option value="api_key.rotated" selected>' in by_type  # the choice stays shown
    both = browser.client.get(log_page, params={"state": "failed", "type": "webhook.test"}).text
    assert shown(both) == [failed]
    none = browser.client.get(log_page, params={"state": "failed", "type": "api_key.rotated"})
    assert shown(none.text) == [] and "No delivery matches." in none.text
    unknown = browser.client.get(log_page, params={"state": "exploded", "type": "nope"})
    assert unknown.status_code == 200 and len(shown(unknown.text)) == 3


def test_deleting_an_endpoint_asks_first(quiet: tuple[Browser, Service]) -> None:
    browser, _ = quiet
    browser.sign_up()
    with answering() as receiver:
        webhook_id = add(browser, receiver.url, ["connection.active"])
    listing = browser.client.get(PAGE).text
    assert f'action="{PAGE}/{webhook_id}/delete"' not in listing  # no one-click delete
    assert f'href="{PAGE}/{webhook_id}/delete"' in listing

    confirm = browser.client.get(f"{PAGE}/{webhook_id}/delete")
    assert confirm.status_code == 200
    assert "Delete the webhook endpoint" in confirm.text and receiver.url in confirm.text
    assert "cannot be undone" in confirm.text
    assert f'action="{PAGE}/{webhook_id}/delete"' in confirm.text
    assert f'href="{PAGE}"' in confirm.text  # Cancel
    assert webhook_id in browser.client.get(PAGE).text  # asking deleted nothing

    done = browser.client.post(
        f"{PAGE}/{webhook_id}/delete",
        data={"csrf_token": csrf_of(confirm.text)},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert "No endpoints yet" in browser.client.get(PAGE).text
    assert browser.client.get(f"{PAGE}/{webhook_id}/delete").status_code == 404
