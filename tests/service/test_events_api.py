"""Events are kept whether or not an endpoint listens, listed by ``GET /api/events``, and
sent again to an endpoint one by one (``POST /api/events/{id}/redeliver``) or in bulk
(``POST /api/webhooks/{id}/redeliver``): what integrators recover with after their
receiver was down or their endpoint disabled. On SQLite and PostgreSQL, with a real
verifying receiver; through the API and through the typed client.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update

from pressroom.client import Client, ConflictError, NotFoundError
from pressroom.client import ValidationError as ClientValidationError
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import WebhookDelivery, WebhookEvent
from pressroom.service.db.session import transaction
from pressroom.settings import Settings
from tests.conftest import AccountHandle, Service
from tests.support.publish import error_of
from tests.support.receiver import Receiver, running_receiver
from tests.support.webhooks import by_hand, rows, running, subscribe_verified, tuned


@pytest.fixture
def quiet(settings: Settings) -> Iterator[Service]:
    """No sender of its own: what is queued stays queued until the test sends it."""
    with running(tuned(settings), sender=False) as service:
        yield service


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as found:
        yield found


def events(account: AccountHandle, **query: Any) -> dict[str, Any]:
    answer = account.service.client.get("/api/events", params=query, headers=account.headers)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def send_all(service: Service) -> int:
    """Send every due delivery by hand; how many attempts were made."""
    sender = by_hand(service)
    sent = 0
    while sender.send_one():
        sent += 1
    return sent


def age(service: Service, event_id: str, when: datetime) -> None:
    """Move an event, and its deliveries, to ``when``."""
    with transaction(service.sessions) as db:
        db.execute(update(WebhookEvent).where(WebhookEvent.id == event_id).values(created_at=when))
        db.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.event_id == event_id)
            .values(created_at=when)
        )


def test_events_are_kept_and_listed_when_no_endpoint_listens(quiet: Service) -> None:
    account = quiet.account()
    other = quiet.account()
    first = account.connect("microblog", "@one")
    account.move("expire_token", first)
    rotated = quiet.client.post("/api/user/api-key", headers=account.headers)
    account = AccountHandle(quiet, account.id, rotated.json()["apiKey"])
    other.connect("microblog", "@theirs")

    listed = events(account)
    assert listed["success"] is True and listed["nextCursor"] is None
    types = [e["type"] for e in listed["events"]]
    assert types == ["api_key.rotated", "connection.inactive", "connection.active"]  # newest first
    active = listed["events"][-1]
    assert set(active) == {"id", "type", "createdAt", "data"}
    assert active["id"].startswith("evt_") and active["createdAt"].endswith("Z")
    assert active["data"] == {"connectionId": first, "platform": "microblog", "name": "@one"}
    assert [e["type"] for e in events(other)["events"]] == ["connection.active"]
    _, attempts = rows(quiet)
    assert attempts == []


def test_events_that_happen_while_an_endpoint_is_disabled_are_listed(
    quiet: Service, receiver: Receiver
) -> None:
    account = quiet.account()
    webhook_id = subscribe_verified(account, receiver)
    path = f"/api/webhooks/{webhook_id}"
    quiet.client.patch(path, json={"enabled": False}, headers=account.headers)
    connection = account.connect("microblog", "@while-off")
    [event] = events(account)["events"]
    assert event["type"] == "connection.active" and event["data"]["connectionId"] == connection
    assert send_all(quiet) == 0  # nothing was queued to the disabled endpoint


def test_events_are_filtered_by_type_and_time_and_paged_newest_first(quiet: Service) -> None:
    account = quiet.account()
    connections = [account.connect("microblog", f"@acme{i}") for i in range(5)]
    account.move("disconnect", connections[0])
    start = utcnow().replace(microsecond=0) - timedelta(hours=10)
    listed = list(reversed(events(account)["events"]))  # oldest first
    for hours, event in enumerate(listed):  # one an hour, from ten hours ago
        age(quiet, event["id"], start + timedelta(hours=hours))

    removed = events(account, type="connection.removed")["events"]
    assert [e["data"]["connectionId"] for e in removed] == [connections[0]]
    window = events(
        account,
        since=(start + timedelta(hours=1)).isoformat(),
        until=(start + timedelta(hours=3)).isoformat(),
    )["events"]
    assert [e["id"] for e in window] == [listed[2]["id"], listed[1]["id"]]  # until: exclusive

    pages: list[str] = []
    cursor = None
    while True:
        page = events(account, limit=2, **({"cursor": cursor} if cursor else {}))
        pages.extend(e["id"] for e in page["events"])
        assert len(page["events"]) <= 2
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert pages == [e["id"] for e in reversed(listed)]

    client, headers = quiet.client, account.headers
    for query, field in [
        ({"type": "post.exploded"}, "type"),
        ({"since": "2026-11-01T10:00:00"}, "since"),  # no offset: no moment
        ({"until": "yesterday"}, "until"),
        ({"cursor": "bm90IGEgY3Vyc29y"}, "cursor"),
        ({"limit": "0"}, "limit"),
    ]:
        refused = client.get("/api/events", params=query, headers=headers)
        assert refused.status_code == 400, (query, refused.text)
        assert error_of(refused)["field"] == field, refused.text


def test_an_event_is_redelivered_to_an_endpoint_it_happened_before(
    quiet: Service, receiver: Receiver
) -> None:
    account = quiet.account()
    other = quiet.account()
    account.connect("microblog", "@early")  # before any endpoint existed
    [event] = events(account)["events"]
    webhook_id = subscribe_verified(account, receiver)
    post = quiet.client.post

    answer = post(
        f"/api/events/{event['id']}/redeliver",
        json={"webhookId": webhook_id},
        headers=account.headers,
    )
    assert answer.status_code == 202, answer.text
    delivery = answer.json()["delivery"]
    assert delivery["eventId"] == event["id"] and delivery["state"] == "pending"
    assert send_all(quiet) == 1
    [got] = receiver.events()
    assert (got.id, got.type, got.data) == (event["id"], event["type"], event["data"])

    theirs = subscribe_verified(other, receiver)
    refusals = [
        ("/api/events/evt_000000000000000000000000/redeliver", webhook_id, 404, "event_not_found"),
        (
            f"/api/events/{event['id']}/redeliver",
            "whk_000000000000000000000000",
            404,
            "webhook_not_found",
        ),
        (f"/api/events/{event['id']}/redeliver", theirs, 404, "webhook_not_found"),
    ]
    for path, target, status, code in refusals:
        refused = post(path, json={"webhookId": target}, headers=account.headers)
        assert (refused.status_code, error_of(refused)["code"]) == (status, code), refused.text
    foreign = post(
        f"/api/events/{event['id']}/redeliver", json={"webhookId": theirs}, headers=other.headers
    )
    assert error_of(foreign)["code"] == "event_not_found"  # another account's event: unknown
    missing = post(f"/api/events/{event['id']}/redeliver", json={}, headers=account.headers)
    assert missing.status_code == 400 and error_of(missing)["field"] == "webhookId"

    quiet.client.patch(
        f"/api/webhooks/{webhook_id}", json={"enabled": False}, headers=account.headers
    )
    disabled = post(
        f"/api/events/{event['id']}/redeliver",
        json={"webhookId": webhook_id},
        headers=account.headers,
    )
    assert disabled.status_code == 409 and error_of(disabled)["code"] == "webhook_disabled"
    assert send_all(quiet) == 0


def test_failed_deliveries_since_a_time_are_queued_again_in_bulk(
    quiet: Service, receiver: Receiver
) -> None:
    account = quiet.account()
    webhook_id = subscribe_verified(account, receiver)
    for i in range(5):
        account.connect("microblog", f"@acme{i}")
    now = utcnow()
    listed = list(reversed(events(account)["events"]))  # oldest first
    states = [  # (hours ago, state) of each event's delivery
        (5, "failed"),
        (3, "failed"),
        (2, "delivered"),
        (1, "failed"),
        (0.5, "pending"),
    ]
    for event, (hours, state) in zip(listed, states, strict=True):
        age(quiet, event["id"], now - timedelta(hours=hours))
        with transaction(quiet.sessions) as db:
            db.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.event_id == event["id"])
                .values(state=state)
            )
    path = f"/api/webhooks/{webhook_id}/redeliver"
    since = (now - timedelta(hours=4)).isoformat()
    post = quiet.client.post

    answer = post(path, json={"since": since, "state": "failed"}, headers=account.headers)
    assert answer.status_code == 202, answer.text
    assert answer.json() == {"success": True, "queued": 2}
    again = post(path, json={"since": since}, headers=account.headers)  # failed by default
    assert again.json()["queued"] == 0  # both are waiting already: not queued twice
    delivered = post(path, json={"since": since, "state": "delivered"}, headers=account.headers)
    assert delivered.json()["queued"] == 1

    # The pending one (sent on its own) and the three queued anew, oldest first.
    assert send_all(quiet) == 4
    assert [e.id for e in receiver.events()] == [listed[i]["id"] for i in (4, 1, 3, 2)]

    for body, field in [
        ({"since": "2026-11-01T10:00:00"}, "since"),
        ({}, "since"),
        ({"since": since, "state": "pending"}, "state"),
        ({"since": 1700000000}, "since"),
    ]:
        refused = post(path, json=body, headers=account.headers)
        assert refused.status_code == 400 and error_of(refused)["field"] == field, refused.text
    other = quiet.account()
    foreign = post(path, json={"since": since}, headers=other.headers)
    assert foreign.status_code == 404 and error_of(foreign)["code"] == "webhook_not_found"
    quiet.client.patch(
        f"/api/webhooks/{webhook_id}", json={"enabled": False}, headers=account.headers
    )
    disabled = post(path, json={"since": since}, headers=account.headers)
    assert disabled.status_code == 409 and error_of(disabled)["code"] == "webhook_disabled"


def test_the_retention_purge_bounds_events_nobody_listened_to(quiet: Service) -> None:
    account = quiet.account()
    account.connect("microblog", "@old")
    account.connect("microblog", "@recent")
    old, recent = reversed(events(account)["events"])
    days = quiet.settings.webhook_retention_days
    age(quiet, old["id"], utcnow() - timedelta(days=days, minutes=1))
    assert by_hand(quiet).forget_old() == 1
    assert [e["id"] for e in events(account)["events"]] == [recent["id"]]


def test_the_client_lists_and_redelivers_events(quiet: Service, receiver: Receiver) -> None:
    account = quiet.account()
    for i in range(3):
        account.connect("microblog", f"@acme{i}")
    webhook_id = subscribe_verified(account, receiver)
    client = Client(api_key=account.key, http_client=quiet.client)

    page = client.list_events(type="connection.active", limit=2)
    assert len(page.events) == 2 and page.next_cursor
    every = list(client.iter_events(page_size=2))
    assert [e.id for e in every][:2] == [e.id for e in page.events] and len(every) == 3
    assert every[-1].data["name"] == "@acme0" and every[-1].created_at is not None
    recent = client.list_events(since=datetime.now(UTC) - timedelta(minutes=5))
    assert len(recent.events) == 3

    delivery = client.redeliver_event(every[-1].id, webhook_id=webhook_id)
    assert delivery.event_id == every[-1].id and delivery.state == "pending"
    with pytest.raises(NotFoundError) as unknown:
        client.redeliver_event("evt_000000000000000000000000", webhook_id=webhook_id)
    assert unknown.value.code == "event_not_found"
    assert send_all(quiet) == 1
    with transaction(quiet.sessions) as db:
        db.execute(update(WebhookDelivery).values(state="failed"))
    queued = client.redeliver_webhook(webhook_id, since=datetime.now(UTC) - timedelta(hours=1))
    assert queued.queued == 1
    with pytest.raises(ClientValidationError):
        client.redeliver_webhook(webhook_id, since=datetime.now(UTC), state="pending")
    with pytest.raises(ValueError, match="aware"):
        client.list_events(since=datetime(2026, 1, 1))
    client.close()
    quiet.client.patch(
        f"/api/webhooks/{webhook_id}", json={"enabled": False}, headers=account.headers
    )
    with pytest.raises(ConflictError):
        Client(api_key=account.key, http_client=quiet.client).redeliver_event(
            every[0].id, webhook_id=webhook_id
        )
