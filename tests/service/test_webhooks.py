"""Webhooks against a real receiver (an HTTP server on loopback that verifies every
request's Standard Webhooks signature, as an integrator's would): every event type, the
outbox written with its change, at-least-once delivery through a receiver that is down,
slow or failing, ordering per resource, secret rotation, and the management API."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from pressroom.platforms import Platform
from pressroom.service.app import create_app
from pressroom.service.db.models import Account, WebhookDelivery, WebhookEvent
from pressroom.service.db.session import transaction
from pressroom.service.events.catalog import SUBSCRIBABLE
from pressroom.settings import Settings
from tests.conftest import AccountHandle, Service
from tests.support.media import make_fake_video, make_image
from tests.support.publish import error_of, publish, twin_of, valid_body
from tests.support.receiver import Receiver, running_receiver
from tests.support.uploads import upload_file

MICRO = Platform.MICROBLOG
ON_SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def fast(settings: Settings, **changes: Any) -> Settings:
    """Retries in fractions of a second, and http to loopback allowed (development)."""
    values: dict[str, Any] = {
        "webhook_development": True,
        "webhook_retry_base_seconds": 0.05,
        "webhook_retry_max_delay_seconds": 0.3,
        "webhook_retry_period_seconds": 30.0,
        "webhook_poll_seconds": 0.02,
        "webhook_timeout_seconds": 1.0,
        **changes,
    }
    return settings.model_copy(update=values)


@pytest.fixture
def hooked(settings: Settings) -> Iterator[Service]:
    """The service with its webhook sender running, tuned for tests."""
    tuned = fast(settings)
    app = create_app(tuned)
    with TestClient(app) as client:
        yield Service(client, app.state.session_factory, tuned)
    app.state.engine.dispose()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as found:
        yield found


def subscribe(
    account: AccountHandle, receiver: Receiver, events: list[str] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"url": receiver.url, "description": "tests"}
    if events is not None:
        body["events"] = events
    made = account.service.client.post("/api/webhooks", json=body, headers=account.headers)
    assert made.status_code == 201, made.text
    answer: dict[str, Any] = made.json()
    receiver.secrets.append(answer["secret"])
    return answer


def events_in_outbox(service: Service) -> list[WebhookEvent]:
    with transaction(service.sessions, write=False) as db:
        return list(db.scalars(select(WebhookEvent).order_by(WebhookEvent.created_at)))


def deliveries_of(service: Service, account: AccountHandle, webhook_id: str) -> list[Any]:
    answer = service.client.get(f"/api/webhooks/{webhook_id}/deliveries", headers=account.headers)
    assert answer.status_code == 200, answer.text
    found: list[Any] = answer.json()["deliveries"]
    return found


def wait_until(check: Any, what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return found


def test_every_event_is_delivered_signed_and_verified(
    hooked: Service, receiver: Receiver, tmp_path: Path
) -> None:
    hooked.settings.sandbox.sandbox_dedupe = False
    account = hooked.account()
    subscribe(account, receiver)
    client, headers = hooked.client, account.headers

    ready = upload_file(client, headers, make_image(tmp_path / "still.png"))
    failed = upload_file(client, headers, make_fake_video(tmp_path / "fake.mp4"))
    assert (ready["status"], failed["status"]) == ("ready", "failed")

    body = valid_body(account, MICRO)  # connection.active
    published = publish(account, MICRO, body, key="fine").json()
    hooked.settings.sandbox.sandbox_failure_rate = 1.0
    hooked.settings.sandbox.sandbox_failure_mode = "before"
    assert publish(account, MICRO, {**body, "text": "refused"}, key="no").status_code == 503
    hooked.settings.sandbox.sandbox_failure_mode = "after"
    assert publish(account, MICRO, {**body, "text": "lost"}, key="lost").status_code == 503
    hooked.settings.sandbox.sandbox_failure_rate = 0.0
    assert publish(account, MICRO, {**body, "text": "lost"}, key="lost").status_code == 200

    photo = account.connect("photo_sharing", "acme.photos", account_type="business")
    twin = twin_of(account, photo)
    account.move("expire_token", body["connectionId"])
    account.move("disconnect", photo)
    rotated = client.post("/api/user/api-key", headers=headers)
    assert rotated.status_code == 200

    expected = len(events_in_outbox(hooked))
    receiver.wait_for(expected)
    got = receiver.events()
    assert sorted(e.id for e in got) == sorted(e.id for e in events_in_outbox(hooked))
    by_type: dict[str, list[Any]] = {}
    for event in got:
        assert event.account_id == account.id
        by_type.setdefault(event.type, []).append(event.data)
    assert set(by_type) == set(SUBSCRIBABLE), set(SUBSCRIBABLE) - set(by_type)

    assert by_type["file.ready"] == [{k: v for k, v in ready.items() if k != "success"}]
    assert by_type["file.failed"][0]["fileId"] == failed["fileId"]
    assert by_type["file.failed"][0]["failureReason"]
    [sent] = by_type["post.published"]
    assert sent["platformPostId"] == published["microblogPostId"]
    assert sent["url"].startswith("https://") and sent["idempotencyKey"] == "fine"
    [refused] = by_type["post.failed"]
    assert refused["error"]["code"] == "platform_unavailable"
    [unknown] = by_type["post.unknown"]
    [resolved] = by_type["post.resolved"]
    assert resolved["postId"] == unknown["postId"] and resolved["status"] == "published"
    inactive = {(d["connectionId"], d["reason"]) for d in by_type["connection.inactive"]}
    assert inactive == {(body["connectionId"], "token_expired"), (twin, "parent_removed")}
    assert [d["connectionId"] for d in by_type["connection.removed"]] == [photo]
    assert {d["connectionId"] for d in by_type["connection.active"]} == {
        body["connectionId"],
        photo,
        twin,
    }
    [key] = by_type["api_key.rotated"]
    assert key["last4"] == rotated.json()["apiKey"][-4:]
    assert rotated.json()["apiKey"] not in str(receiver.received)  # never the key itself
    # Each resource's events arrive in the order they happened.
    post_events = [e.type for e in got if e.data.get("postId") == unknown["postId"]]
    assert post_events == ["post.unknown", "post.resolved"]


@ON_SQLITE
def test_an_event_is_written_with_its_change_or_not_at_all(
    hooked: Service, receiver: Receiver
) -> None:
    account = hooked.account()
    subscribe(account, receiver)
    connection = account.connect("microblog", "@acme")
    with pytest.raises(RuntimeError), transaction(hooked.sessions) as db:
        from pressroom.service.connections import service as connections

        connections.disconnect(db, connection)
        assert db.scalar(select(func.count()).select_from(WebhookEvent)) == 2
        raise RuntimeError("the change fails after the event was written")
    types = [e.type for e in events_in_outbox(hooked)]
    assert types == ["connection.active"]  # the removal rolled back with its event
    receiver.wait_for(1)
    assert [e.type for e in receiver.events()] == ["connection.active"]


@ON_SQLITE
def test_a_receiver_down_for_a_while_gets_every_event_once_in_order(
    hooked: Service, receiver: Receiver
) -> None:
    account = hooked.account()
    subscribe(account, receiver)
    receiver.down()
    connections = [account.connect("microblog", f"@acme{i}") for i in range(3)]
    for connection in connections:
        account.move("expire_token", connection)
        account.move("reconnect", connection)
    wait_until(
        lambda: any(a["attempts"] for a in deliveries_of(hooked, account, _only(hooked))),
        "a failed attempt while the receiver is down",
    )
    time.sleep(0.5)  # several retries fail meanwhile
    receiver.up()  # the same port
    outbox = events_in_outbox(hooked)
    receiver.wait_for(len(outbox))
    time.sleep(0.3)  # nothing more arrives
    got = receiver.events()
    assert [e.id for e in got if e] and len({e.id for e in got}) == len(outbox)
    assert {e.id for e in got} == {e.id for e in outbox}
    for connection in connections:
        sent = [e.type for e in got if e.data["connectionId"] == connection]
        assert sent == ["connection.active", "connection.inactive", "connection.active"]
    log = deliveries_of(hooked, account, _only(hooked))
    assert {d["state"] for d in log} == {"delivered"}
    failed_first = [a for d in log for a in d["attempts"] if a["status"] is None]
    assert failed_first and "no answer" in failed_first[0]["excerpt"]


def _only(service: Service) -> str:
    with transaction(service.sessions, write=False) as db:
        [endpoint_id] = db.scalars(select(WebhookDelivery.endpoint_id).distinct())
    return endpoint_id


@ON_SQLITE
def test_500s_and_a_slow_receiver_are_retried_with_one_webhook_id(
    hooked: Service, receiver: Receiver
) -> None:
    from pressroom.service.ops.metrics import REGISTRY

    def attempts(outcome: str) -> float:
        name = "pressroom_webhook_attempt_duration_seconds_count"
        return REGISTRY.get_sample_value(name, {"outcome": outcome}) or 0.0

    before = {o: attempts(o) for o in ("retry", "delivered")}
    account = hooked.account()
    made = subscribe(account, receiver)
    receiver.status = 500
    account.connect("microblog", "@acme")
    receiver.wait_for(3, answered=500)
    receiver.status, receiver.delay = 200, 1.5  # slower than the 1 s timeout
    time.sleep(2.0)
    receiver.delay = 0.0
    [delivery] = wait_until(
        lambda: [
            d
            for d in deliveries_of(hooked, account, made["webhook"]["id"])
            if d["state"] == "delivered"
        ],
        "the delivery to succeed",
    )
    ids = {r.headers["webhook-id"] for r in receiver.received}
    assert len(ids) == 1  # every attempt carried the event's id
    statuses = [a["status"] for a in delivery["attempts"]]
    assert statuses[:3] == [500, 500, 500] and statuses[-1] == 200
    assert None in statuses, "a timed-out attempt is logged without a status"
    assert delivery["state"] == "delivered"
    excerpt = delivery["attempts"][0]["excerpt"]
    assert excerpt.startswith('{"seen"') and len(excerpt) <= 500
    assert attempts("delivered") - before["delivered"] == 1
    assert attempts("retry") - before["retry"] == len(statuses) - 1  # each shown in /metrics


@ON_SQLITE
def test_retry_after_is_honoured(hooked: Service, receiver: Receiver) -> None:
    account = hooked.account()
    subscribe(account, receiver)
    receiver.status, receiver.retry_after = 429, "1"
    account.connect("microblog", "@acme")
    receiver.wait_for(1, answered=429)
    first = time.monotonic()
    receiver.status, receiver.retry_after = 200, None
    receiver.wait_for(1)
    assert time.monotonic() - first >= 0.8  # not the 0.05 s backoff


@ON_SQLITE
def test_an_endpoint_that_keeps_failing_is_disabled_with_a_reason(
    settings: Settings, receiver: Receiver
) -> None:
    tuned = fast(settings, webhook_retry_period_seconds=0.5)
    app = create_app(tuned)
    with TestClient(app) as client:
        service = Service(client, app.state.session_factory, tuned)
        account = service.account()
        made = subscribe(account, receiver)
        receiver.status = 503
        account.connect("microblog", "@acme")
        path = f"/api/webhooks/{made['webhook']['id']}"

        def disabled() -> dict[str, Any] | None:
            found: dict[str, Any] = client.get(path, headers=account.headers).json()["webhook"]
            return found if not found["enabled"] else None

        endpoint = wait_until(disabled, "the endpoint disabled")
        assert "HTTP 503" in endpoint["disabledReason"]
        [delivery] = deliveries_of(service, account, made["webhook"]["id"])
        assert delivery["state"] == "failed" and len(delivery["attempts"]) >= 2
        account.connect("microblog", "@acme2")  # not sent while disabled
        time.sleep(0.3)
        assert len(deliveries_of(service, account, made["webhook"]["id"])) == 1
        receiver.status = 200
        enabled = client.patch(path, json={"enabled": True}, headers=account.headers)
        assert enabled.json()["webhook"]["disabledReason"] is None
        redelivered = client.post(
            f"{path}/deliveries/{delivery['id']}/redeliver", headers=account.headers
        )
        assert redelivered.status_code == 202
        assert redelivered.json()["delivery"]["eventId"] == delivery["eventId"]
        receiver.wait_for(1)
        assert receiver.events()[0].id == delivery["eventId"]  # the same webhook-id
    app.state.engine.dispose()


@ON_SQLITE
def test_a_rotated_secret_signs_beside_the_old_one_during_the_grace_period(
    hooked: Service, receiver: Receiver
) -> None:
    account = hooked.account()
    made = subscribe(account, receiver)
    old = made["secret"]
    path = f"/api/webhooks/{made['webhook']['id']}"
    account.connect("microblog", "@one")
    receiver.wait_for(1)

    rotated = hooked.client.post(
        f"{path}/rotate-secret", json={"graceSeconds": 3600}, headers=account.headers
    )
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()["secret"]
    assert new != old and rotated.json()["webhook"]["previousSecretExpiresAt"]
    account.connect("microblog", "@two")  # mid-stream: a receiver not yet updated...
    receiver.wait_for(2)
    last = receiver.received[-1]
    assert len(last.headers["webhook-signature"].split(" ")) == 2
    receiver.secrets[:] = [new]  # ...and one that already has the new secret: both verify
    account.connect("microblog", "@three")
    receiver.wait_for(3)

    again = hooked.client.post(
        f"{path}/rotate-secret", json={"graceSeconds": 0}, headers=account.headers
    )
    third = again.json()["secret"]
    assert again.json()["webhook"]["previousSecretExpiresAt"] is None
    account.connect("microblog", "@four")  # no grace: the receiver's secret no longer signs
    wait_until(lambda: any(r.event is None for r in receiver.received), "a refused signature")
    assert len(receiver.received[-1].headers["webhook-signature"].split(" ")) == 1
    receiver.secrets[:] = [third]
    receiver.wait_for(4)
    assert [e.data["name"] for e in receiver.events()] == ["@one", "@two", "@three", "@four"]


@ON_SQLITE
def test_endpoints_are_managed_through_the_api(hooked: Service, receiver: Receiver) -> None:
    account = hooked.account()
    other = hooked.account()
    made = subscribe(account, receiver, events=["connection.removed"])
    webhook = made["webhook"]
    assert made["secret"].startswith("whsec_")
    assert webhook["events"] == ["connection.removed"] and webhook["enabled"]
    path = f"/api/webhooks/{webhook['id']}"
    client, headers = hooked.client, account.headers

    listed = client.get("/api/webhooks", headers=headers).json()
    assert [w["id"] for w in listed["webhooks"]] == [webhook["id"]] and "secret" not in str(listed)
    assert client.get(path, headers=other.headers).status_code == 404
    assert error_of(client.get(path, headers=other.headers))["code"] == "webhook_not_found"

    connection = account.connect("microblog", "@acme")  # active: not subscribed
    account.move("disconnect", connection)
    receiver.wait_for(1)
    assert [e.type for e in receiver.events()] == ["connection.removed"]

    changed = client.patch(
        path, json={"events": ["api_key.rotated"], "description": "keys"}, headers=headers
    )
    assert changed.json()["webhook"]["events"] == ["api_key.rotated"]
    tested = client.post(f"{path}/test", headers=headers)
    assert tested.status_code == 202
    receiver.wait_for(2)
    assert receiver.events()[-1].type == "webhook.test"
    assert receiver.events()[-1].data["endpointId"] == webhook["id"]

    assert client.delete(path, headers=headers).json() == {"success": True, "id": webhook["id"]}
    assert client.get(path, headers=headers).status_code == 404
    client.post("/api/user/api-key", headers=headers)
    time.sleep(0.2)
    assert len(receiver.events()) == 2  # nothing goes to a deleted endpoint


@ON_SQLITE
@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("ftp://example.com/hook", "https"),
        ("http://example.com/hook", "https"),
        ("https://user:pw@example.com/hook", "credentials"),
        ("https://10.1.2.3/hook", "not a public"),
        ("https://169.254.169.254/latest/meta-data", "not a public"),
        ("https://[::1]/hook", "not a public"),
        ("https://localhost/hook", "not a public"),
        ("https://example.com:99999/hook", "port"),
    ],
)
def test_unsafe_targets_are_refused_naming_the_url(service: Service, url: str, rule: str) -> None:
    account = service.account()
    answer = service.client.post("/api/webhooks", json={"url": url}, headers=account.headers)
    assert answer.status_code == 400, answer.text
    error = error_of(answer)
    assert error["field"] == "url" and rule in error["message"]


@ON_SQLITE
def test_private_targets_are_allowed_only_when_the_operator_says_so(
    settings: Settings, receiver: Receiver
) -> None:
    """Loopback over http needs development mode; a private address needs the operator's
    permission; and a redirect is an answer, never followed."""
    tuned = fast(settings, webhook_development=False, webhook_allow_private_targets=True)
    app = create_app(tuned)
    with TestClient(app) as client:
        service = Service(client, app.state.session_factory, tuned)
        account = service.account()
        refused = client.post("/api/webhooks", json={"url": receiver.url}, headers=account.headers)
        assert "https" in error_of(refused)["message"]
        assert (
            client.post(
                "/api/webhooks", json={"url": "https://10.1.2.3/hook"}, headers=account.headers
            ).status_code
            == 201
        )
    app.state.engine.dispose()


@ON_SQLITE
def test_bad_bodies_name_the_field(service: Service) -> None:
    account = service.account()
    post = service.client.post
    unknown = post(
        "/api/webhooks",
        json={"url": "https://example.com/h", "events": ["post.exploded"]},
        headers=account.headers,
    )
    assert (
        error_of(unknown)["field"] == "events" and "post.exploded" in error_of(unknown)["message"]
    )
    empty = post(
        "/api/webhooks",
        json={"url": "https://example.com/h", "events": []},
        headers=account.headers,
    )
    assert error_of(empty)["field"] == "events"
    assert post("/api/webhooks", json={}, headers=account.headers).status_code == 400
    with transaction(service.sessions, write=False) as db:
        assert db.scalar(select(func.count()).select_from(Account)) == 1


def test_deliveries_are_claimed_once_across_senders(hooked: Service, receiver: Receiver) -> None:
    """Several senders (threads here, processes in production) over one queue: each
    delivery is claimed by one, and a resource's next event waits for the one before."""
    from datetime import timedelta

    from pressroom.service.webhooks import queue

    dispatcher = hooked.client.app.state.webhook_dispatcher  # type: ignore[attr-defined]
    dispatcher.stop()  # the test claims by hand
    account = hooked.account()
    subscribe(account, receiver)
    first = account.connect("microblog", "@one")
    second = account.connect("microblog", "@two")
    account.move("expire_token", first)
    lease = timedelta(seconds=30)
    a = queue.claim(hooked.sessions, "sender-a", lease)
    b = queue.claim(hooked.sessions, "sender-b", lease)
    c = queue.claim(hooked.sessions, "sender-c", lease)
    assert a is not None and b is not None
    assert (a.event.type, b.event.type) == ("connection.active", "connection.active")
    assert {a.event.data["connectionId"], b.event.data["connectionId"]} == {first, second}
    assert c is None, "@one's inactive event waits for its active one"


@ON_SQLITE
def test_the_openapi_document_lists_every_event(service: Service) -> None:
    document = service.client.get("/openapi.json").json()
    hooks = document["webhooks"]
    assert set(hooks) == {*SUBSCRIBABLE, "webhook.test"}
    ready = hooks["file.ready"]["post"]
    assert (
        "webhook-signature" in ready["description"]
        and "GET /api/upload/status" in (ready["description"])
    )
    body = ready["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schema = document["components"]["schemas"][body.rsplit("/", 1)[-1]]
    assert {"id", "type", "timestamp", "accountId", "data"} <= set(schema["properties"])


def test_the_readme_documents_every_event_and_setting() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme[readme.index("## Webhooks") : readme.index("## Benchmarks")]
    for event in (*SUBSCRIBABLE, "webhook.test"):
        assert f"| `{event}` |" in section, event
    for name in Settings.model_fields:
        if name.startswith("webhook_"):
            assert f"PRESSROOM_{name.upper()}" in section, name


@ON_SQLITE
def test_a_redirect_is_an_answer_never_followed(hooked: Service, receiver: Receiver) -> None:
    account = hooked.account()
    made = subscribe(account, receiver)
    with running_receiver() as elsewhere:
        receiver.status, receiver.location = 307, elsewhere.url
        account.connect("microblog", "@acme")
        receiver.wait_for(2, answered=307)
        assert elsewhere.received == []
        [delivery] = deliveries_of(hooked, account, made["webhook"]["id"])
        assert delivery["state"] == "pending"
        assert {a["status"] for a in delivery["attempts"]} == {307}


@ON_SQLITE
def test_old_settled_events_are_forgotten_and_pending_ones_kept(
    hooked: Service, receiver: Receiver
) -> None:
    from datetime import timedelta

    from sqlalchemy import update

    from pressroom.service.db.base import utcnow
    from pressroom.service.db.models import WebhookAttempt

    account = hooked.account()
    made = subscribe(account, receiver)
    account.connect("microblog", "@sent")
    receiver.wait_for(1)
    sent = receiver.events()[0].id
    receiver.status = 500
    account.connect("microblog", "@failing")
    receiver.wait_for(1, answered=500)
    long_ago = utcnow() - timedelta(days=hooked.settings.webhook_retention_days + 1)
    with transaction(hooked.sessions) as db:
        db.execute(update(WebhookEvent).values(created_at=long_ago))
    account.connect("microblog", "@recent")  # new, and sent or not, kept

    dispatcher = hooked.client.app.state.webhook_dispatcher  # type: ignore[attr-defined]
    assert dispatcher.forget_old() == 1
    remaining = {e.data["name"] for e in events_in_outbox(hooked)}
    assert remaining == {"@failing", "@recent"}
    log = deliveries_of(hooked, account, made["webhook"]["id"])
    assert len(log) == 2 and sent not in {d["eventId"] for d in log}
    with transaction(hooked.sessions, write=False) as db:
        attempts = db.scalar(select(func.count()).select_from(WebhookAttempt))
        kept = db.scalar(select(func.count()).select_from(WebhookDelivery))
    assert kept == 2 and attempts >= 1  # the sent event's delivery and attempt went with it
