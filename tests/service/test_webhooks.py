"""Webhooks against a real receiver (an HTTP server on loopback that verifies every
request's Standard Webhooks signature, as an integrator's would): every event type, the
outbox written with its change, at-least-once delivery through a receiver that is down,
slow or failing, ordering per resource, secret rotation, and the management API."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from pressroom.platforms import Platform
from pressroom.service.app import create_app
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Account, WebhookDelivery, WebhookEndpoint, WebhookEvent
from pressroom.service.db.session import transaction
from pressroom.service.drivers import drivers_of
from pressroom.service.drivers.base import PlatformRefused
from pressroom.service.events.catalog import BY_DEFAULT, SUBSCRIBABLE
from pressroom.service.webhooks import queue
from pressroom.service.webhooks.dispatcher import Dispatcher, schedule_of
from pressroom.settings import Settings
from tests.conftest import AccountHandle, Service
from tests.support.media import make_fake_video, make_image
from tests.support.publish import error_of, publish, twin_of, valid_body
from tests.support.receiver import Receiver, running_receiver
from tests.support.uploads import upload_file
from tests.support.waiting import wait_until

MICRO = Platform.MICROBLOG
T = TypeVar("T")
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


def test_every_event_is_delivered_signed_and_verified(
    hooked: Service, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
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

    sandbox = drivers_of(client.app)[MICRO]  # type: ignore[arg-type]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]

    async def refuses_replies(delivery: Any) -> Any:
        if delivery.reply_to is not None:
            raise PlatformRefused("X refuses it: a duplicate", field="text")
        return await sent_on_loop(delivery)

    monkeypatch.setattr(sandbox, "publish_async", refuses_replies)
    thread = {**body, "text": "cut", "thread": [{"text": "short"}]}
    assert publish(account, MICRO, thread, key="cut").status_code == 400  # post.partial
    monkeypatch.undo()

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
    # An endpoint made without ``events`` gets every event on by default (``post.metrics``
    # only goes to an endpoint that names it: test_metrics_api).
    assert set(by_type) == set(BY_DEFAULT), set(BY_DEFAULT) - set(by_type)

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
        lambda: sum(len(d["attempts"]) for d in deliveries_of(hooked, account, _only(hooked))) >= 6,
        "several failed attempts while the receiver is down",
    )
    receiver.up()  # the same port
    outbox = events_in_outbox(hooked)
    receiver.wait_for(len(outbox))
    # Every delivery recorded delivered: none is left to send, so nothing more can arrive.
    wait_until(lambda: queue.pending(hooked.sessions) == [], "every delivery recorded")
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
    receiver.delay = 1.5  # slower than the 1 s timeout, set first: no quick 200 slips in
    receiver.status = 200
    wait_until(
        lambda: any(
            a["status"] is None
            for d in deliveries_of(hooked, account, made["webhook"]["id"])
            for a in d["attempts"]
        ),
        "an attempt that timed out",
    )
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
    tuned = fast(settings)
    app = create_app(tuned)
    with TestClient(app) as client:
        service = Service(client, app.state.session_factory, tuned)
        account = service.account()
        made = subscribe(account, receiver)
        receiver.status = 503
        account.connect("microblog", "@acme")
        path = f"/api/webhooks/{made['webhook']['id']}"
        receiver.wait_for(2, answered=503)  # it keeps failing, and the retry period passes:
        # aged in the database, so the attempts before it do not hang on the machine's speed
        period = timedelta(seconds=tuned.webhook_retry_period_seconds)
        with transaction(service.sessions) as db:
            db.execute(update(WebhookDelivery).values(created_at=utcnow() - period))

        def disabled() -> dict[str, Any] | None:
            found: dict[str, Any] = client.get(path, headers=account.headers).json()["webhook"]
            return found if not found["enabled"] else None

        endpoint = wait_until(disabled, "the endpoint disabled")
        assert "HTTP 503" in endpoint["disabledReason"]
        [delivery] = deliveries_of(service, account, made["webhook"]["id"])
        assert delivery["state"] == "failed" and len(delivery["attempts"]) >= 2
        account.connect("microblog", "@acme2")  # not queued while disabled, so never sent
        assert len(deliveries_of(service, account, made["webhook"]["id"])) == 1
        assert queue.pending(service.sessions) == []
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
def test_once_the_grace_period_ends_only_the_new_secret_signs(
    hooked: Service, receiver: Receiver
) -> None:
    """A receiver that never took the new secret verifies nothing once the old one's grace
    has run out: the old secret stops signing then, not merely at the next rotation."""
    account = hooked.account()
    made = subscribe(account, receiver)
    old = made["secret"]
    path = f"/api/webhooks/{made['webhook']['id']}"
    rotated = hooked.client.post(
        f"{path}/rotate-secret", json={"graceSeconds": 3600}, headers=account.headers
    )
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()["secret"]
    # The hour passes: the grace period recorded on the endpoint is over.
    with transaction(hooked.sessions) as db:
        db.execute(
            update(WebhookEndpoint)
            .where(WebhookEndpoint.id == made["webhook"]["id"])
            .values(previous_secret_until=utcnow() - timedelta(seconds=1))
        )
    receiver.secrets[:] = [old]
    account.connect("microblog", "@after-grace")
    first = wait_until(lambda: receiver.received[:1], "an attempt")[0]
    assert first.event is None, "the old secret still signed after its grace period"
    assert len(first.headers["webhook-signature"].split(" ")) == 1
    receiver.secrets[:] = [new]
    receiver.wait_for(1)
    assert [e.data["name"] for e in receiver.events()] == ["@after-grace"]


def test_a_delivery_whose_sender_died_mid_send_is_sent_again_once_its_lease_runs_out(
    hooked: Service, receiver: Receiver
) -> None:
    """The sender claimed the delivery and died before recording anything: while its lease
    lasts nobody else may take the delivery; once it has run out another sender sends it."""
    hooked.client.app.state.webhook_dispatcher.stop()  # type: ignore[attr-defined]
    account = hooked.account()
    made = subscribe(account, receiver)
    account.connect("microblog", "@acme")
    lease = timedelta(minutes=5)
    died = queue.claim(hooked.sessions, "sender-that-died", lease)
    assert died is not None
    assert queue.claim(hooked.sessions, "another-sender", lease) is None, "held by its lease"
    with transaction(hooked.sessions) as db:  # the five minutes pass
        db.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.id == died.delivery_id)
            .values(lease_expires_at=utcnow() - timedelta(seconds=1))
        )
    successor = Dispatcher(hooked.sessions, hooked.settings)
    try:
        assert successor.send_one(), "the delivery was not taken once its lease ran out"
    finally:
        successor.stop()
    [event] = receiver.events()
    assert event.id == died.event.id
    [delivery] = deliveries_of(hooked, account, made["webhook"]["id"])
    assert delivery["state"] == "delivered"
    assert [a["status"] for a in delivery["attempts"]] == [200]  # the dead sender logged none


@ON_SQLITE
def test_a_host_that_resolves_to_a_non_public_address_at_send_time_is_not_sent_to(
    settings: Settings, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host name passes when the endpoint is saved (only its form can be checked then);
    at send time it resolves to a loopback address, so nothing is sent. The resolver is
    injected for that one made-up name (every other name resolves as usual): no hosts
    file, and the address it gives is this machine's, so even a wrong send leaves nothing
    but loopback."""
    name = "hooks.pressroom.test"
    resolve = socket.getaddrinfo

    def resolver(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == name:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return resolve(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    tuned = fast(settings, webhook_development=False)
    app = create_app(tuned)
    with TestClient(app) as client:
        service = Service(client, app.state.session_factory, tuned)
        account = service.account()
        url = f"https://{name}:{receiver.port}/hooks"
        made = client.post("/api/webhooks", json={"url": url}, headers=account.headers)
        assert made.status_code == 201, made.text
        account.connect("microblog", "@acme")
        [delivery] = wait_until(
            lambda: [
                d
                for d in deliveries_of(service, account, made.json()["webhook"]["id"])
                if d["attempts"]
            ],
            "an attempt",
        )
        [attempt, *_] = delivery["attempts"]
        assert attempt["status"] is None
        assert attempt["excerpt"].startswith("not sent:") and "127.0.0.1" in attempt["excerpt"]
        assert receiver.received == []
    app.state.engine.dispose()


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
    # Nothing goes to a deleted endpoint: its queue went with it, and nothing new was queued.
    assert queue.pending(hooked.sessions) == []
    assert len(receiver.events()) == 2


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


def race(senders: int, attempt: Callable[[str], T]) -> list[tuple[str, T]]:
    """``attempt(owner)`` in ``senders`` threads at once: each waits at a barrier until all
    are ready, so the calls overlap. Each owner with what its call returned."""
    barrier = threading.Barrier(senders)

    def run(owner: str) -> tuple[str, T]:
        barrier.wait(timeout=30)
        return owner, attempt(owner)

    with ThreadPoolExecutor(max_workers=senders) as pool:
        return list(pool.map(run, [f"sender-{i}" for i in range(senders)]))


def test_deliveries_are_claimed_once_across_senders(hooked: Service, receiver: Receiver) -> None:
    """Eight senders race for one queue (threads here; processes in production, and in the
    next test): each due delivery is claimed by exactly one of them, and a resource's next
    event waits for the one before."""
    dispatcher = hooked.client.app.state.webhook_dispatcher  # type: ignore[attr-defined]
    dispatcher.stop()  # the test's threads are the senders
    account = hooked.account()
    subscribe(account, receiver)
    first = account.connect("microblog", "@one")
    second = account.connect("microblog", "@two")
    account.move("expire_token", first)
    lease = timedelta(seconds=30)

    def claim(owner: str) -> queue.Claimed | None:
        return queue.claim(hooked.sessions, owner, lease)

    won = {owner: c for owner, c in race(8, claim) if c is not None}
    assert sorted((c.event.data["connectionId"], c.event.type) for c in won.values()) == sorted(
        [(first, "connection.active"), (second, "connection.active")]
    )
    assert claim("late-sender") is None, "@one's inactive event waits for its active one"

    # @one's active event is delivered: its inactive one is due, and one sender of eight wins it.
    [(owner, one)] = [(o, c) for o, c in won.items() if c.event.data["connectionId"] == first]
    delivered = queue.Attempt(200, 1, "ok")
    assert (
        queue.finish(
            hooked.sessions, one.delivery_id, owner, delivered, schedule_of(hooked.settings)
        )
        == "delivered"
    )
    [after] = [c for _, c in race(8, claim) if c is not None]
    assert (after.event.data["connectionId"], after.event.type) == (first, "connection.inactive")


def _claim_in_a_process(database_url: str, owner: str, barrier: Any, results: Any) -> None:
    """One sender process: its own engine, a claim once every process is at the barrier."""
    from pressroom.service.db.session import make_engine, make_session_factory

    engine = make_engine(database_url)
    try:
        sessions = make_session_factory(engine)
        barrier.wait(timeout=60)
        claimed = queue.claim(sessions, owner, timedelta(seconds=30))
        results.put((owner, claimed.delivery_id if claimed else None))
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
def test_a_delivery_is_claimed_once_across_processes(
    hooked: Service, receiver: Receiver, database_url: str
) -> None:
    """Four sender processes, each with its own connections to PostgreSQL, claim at the same
    moment: exactly one gets the delivery."""
    import multiprocessing

    hooked.client.app.state.webhook_dispatcher.stop()  # type: ignore[attr-defined]
    account = hooked.account()
    subscribe(account, receiver)
    account.connect("microblog", "@acme")
    [(delivery_id, _, _, _)] = queue.pending(hooked.sessions)
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(4), context.Queue()
    processes = [
        context.Process(
            target=_claim_in_a_process, args=(database_url, f"process-{i}", barrier, results)
        )
        for i in range(4)
    ]
    for process in processes:
        process.start()
    answers = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert [claimed for _, claimed in answers if claimed is not None] == [delivery_id]


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


def test_the_docs_document_every_event_and_setting() -> None:
    service_docs = Path(__file__).resolve().parents[2] / "docs" / "service"
    catalogue = (service_docs / "events.md").read_text()
    for event in (*SUBSCRIBABLE, "webhook.test"):
        assert f"| `{event}` |" in catalogue, event
    section = (service_docs / "webhooks.md").read_text()
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


def test_post_events_carry_the_posts_campaign(
    hooked: Service, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each post event says which campaign, edition, post and run it belongs to, as the
    record does, whichever path settled it: a publish, a failure, a lookup of an unknown
    outcome, a thread cut short and resumed."""
    hooked.settings.sandbox.sandbox_dedupe = False
    account = hooked.account()
    subscribe(
        account,
        receiver,
        ["post.published", "post.failed", "post.unknown", "post.resolved", "post.partial"],
    )
    run = "5f0c2a4e-1b3d-4c5e-8f70-9a1b2c3d4e5f"

    def sent_by(post_id: str) -> dict[str, Any]:
        return {"name": "spring-launch", "edition": "manual", "postId": post_id, "flowRunId": run}

    body = valid_body(account, MICRO)
    assert (
        publish(account, MICRO, {**body, "campaign": sent_by("fine")}, key="fine").status_code
        == 200
    )
    assert publish(account, MICRO, {**body, "text": "plain"}, key="plain").status_code == 200
    hooked.settings.sandbox.sandbox_failure_rate = 1.0
    hooked.settings.sandbox.sandbox_failure_mode = "before"
    refused = {**body, "text": "refused", "campaign": sent_by("refused")}
    assert publish(account, MICRO, refused, key="no").status_code == 503
    hooked.settings.sandbox.sandbox_failure_mode = "after"
    lost = {**body, "text": "lost", "campaign": sent_by("lost")}
    assert publish(account, MICRO, lost, key="lost").status_code == 503
    hooked.settings.sandbox.sandbox_failure_rate = 0.0
    assert publish(account, MICRO, lost, key="lost").status_code == 200  # looked up

    sandbox = drivers_of(hooked.client.app)[MICRO]  # type: ignore[arg-type]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]

    async def refuses_replies(delivery: Any) -> Any:
        if delivery.reply_to is not None:
            raise PlatformRefused("X refuses it: a duplicate", field="text")
        return await sent_on_loop(delivery)

    monkeypatch.setattr(sandbox, "publish_async", refuses_replies)
    thread = {**body, "text": "cut", "thread": [{"text": "short"}], "campaign": sent_by("cut")}
    assert publish(account, MICRO, thread, key="cut").status_code == 400  # post.partial
    monkeypatch.undo()
    assert publish(account, MICRO, thread, key="cut").status_code == 200  # resumed

    receiver.wait_for(7)
    got = [(e.type, e.data["campaign"]) for e in receiver.events()]
    records = hooked.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert sorted(got, key=str) == sorted(
        [
            ("post.published", sent_by("fine")),
            ("post.published", None),
            ("post.failed", sent_by("refused")),
            ("post.unknown", sent_by("lost")),
            ("post.resolved", sent_by("lost")),
            ("post.partial", sent_by("cut")),
            ("post.published", sent_by("cut")),
        ],
        key=str,
    )
    # The same shape as the record's own ``campaign`` on GET /api/posts.
    assert sorted((r["campaign"] or {}).get("postId", "") for r in records) == [
        "",
        "cut",
        "fine",
        "lost",
        "refused",
    ]
    assert all(r["campaign"] == sent_by(r["campaign"]["postId"]) for r in records if r["campaign"])
