"""``Idempotency-Key`` (DESIGN, "Resolved details"): replays, conflicts, what is kept."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from pressroom.platforms import Platform
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import (
    Connection,
    File,
    IdempotencyRecord,
    Post,
    SandboxDelivery,
    ServiceProcess,
)
from pressroom.service.db.session import transaction
from pressroom.service.drivers import drivers_of
from pressroom.service.publishing import repository
from tests.conftest import AccountHandle, Service
from tests.support.files import make_file
from tests.support.publish import deliveries, error_of, post_count, publish, valid_body

MICRO = Platform.MICROBLOG
PATH = "/api/v2/microblog/publish"


def keys(service: Service) -> list[IdempotencyRecord]:
    with transaction(service.sessions, write=False) as db:
        return list(db.scalars(select(IdempotencyRecord)))


def posts(service: Service) -> list[Post]:
    with transaction(service.sessions, write=False) as db:
        return list(db.scalars(select(Post).order_by(Post.created_at)))


def test_same_key_and_body_replays_the_first_result_and_posts_nothing(service: Service) -> None:
    account = service.account()
    body = valid_body(account, MICRO, text="launch day")
    first = publish(account, MICRO, body, key="launch-1")
    assert first.status_code == 200
    assert first.headers["Idempotency-Key"] == "launch-1"
    assert "Idempotent-Replayed" not in first.headers

    # Same content, other key order and spacing: the same request.
    reordered = json.dumps(dict(reversed(list(body.items()))), indent=2)
    again = service.client.post(
        PATH,
        content=reordered,
        headers={
            **account.headers,
            "Idempotency-Key": "launch-1",
            "Content-Type": "application/json",
        },
    )
    assert again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Idempotency-Key"] == "launch-1"
    assert len(deliveries(service)) == 1 and post_count(service) == 1


def test_same_key_with_another_body_is_refused(service: Service) -> None:
    account = service.account()
    body = valid_body(account, MICRO)
    assert publish(account, MICRO, body, key="k").status_code == 200
    other = publish(account, MICRO, {**body, "text": "something else"}, key="k")
    assert other.status_code == 409
    error = error_of(other)
    assert error["code"] == "idempotency_key_reused" and error["field"] == "Idempotency-Key"
    assert "use a new key" in error["message"]
    assert other.headers["Idempotency-Key"] == "k"
    # The same key on another route is another request too.
    pro = account.connect("professional_network", "Acme")
    elsewhere = publish(
        account, Platform.PROFESSIONAL_NETWORK, {"connectionId": pro, "text": body["text"]}, key="k"
    )
    assert elsewhere.status_code == 409
    assert len(deliveries(service)) == 1


def test_keys_belong_to_one_account(service: Service) -> None:
    first, second = service.account(), service.account()
    for account in (first, second):
        response = publish(account, MICRO, valid_body(account, MICRO), key="shared")
        assert response.status_code == 200
        assert "Idempotent-Replayed" not in response.headers
    assert len(deliveries(service)) == 2


@pytest.mark.parametrize(
    "change",
    [
        {"text": "x" * 281},  # a content rule
        {"text": None},  # the schema
        {"fileId": "file_1"},  # media on a text-only platform
    ],
)
def test_a_400_is_kept_for_the_key(service: Service, change: dict[str, Any]) -> None:
    """Resending a body that broke a rule gets the same answer; fixing it needs a new key."""
    account = service.account()
    body = valid_body(account, MICRO, **change)
    first = publish(account, MICRO, body, key="bad")
    assert first.status_code == 400 and first.headers["Idempotency-Key"] == "bad"
    again = publish(account, MICRO, body, key="bad")
    assert again.status_code == 400 and again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    fixed = publish(account, MICRO, {**body, "text": "fine", "fileId": None}, key="bad")
    assert fixed.status_code == 409
    assert error_of(fixed)["code"] == "idempotency_key_reused"
    assert post_count(service) == 0


def test_an_answer_caused_by_state_frees_the_key(service: Service) -> None:
    """A file still processing is a 409 now and a success later, under the same key."""
    account = service.account()
    video = make_file(account, "video", status="processing")
    body = valid_body(account, Platform.VIDEO_SHARING, fileId=video)
    early = publish(account, Platform.VIDEO_SHARING, body, key="video-1")
    assert early.status_code == 409 and early.headers["Idempotency-Key"] == "video-1"
    assert keys(service) == []
    with transaction(service.sessions) as db:
        db.execute(update(File).where(File.id == video).values(status="ready"))
    later = publish(account, Platform.VIDEO_SHARING, body, key="video-1")
    assert later.status_code == 200 and "Idempotent-Replayed" not in later.headers


def test_a_transient_platform_failure_is_a_503_and_a_retry_with_the_key_posts_once(
    service: Service,
) -> None:
    account = service.account()
    body = valid_body(account, MICRO)
    service.settings.sandbox.sandbox_failure_rate = 1.0
    failed = publish(account, MICRO, body, key="retry-me")
    assert failed.status_code == 503
    error = error_of(failed)
    assert error["code"] == "platform_unavailable"
    assert "nothing was published" in error["message"]
    assert int(failed.headers["Retry-After"]) >= 1
    assert failed.headers["Idempotency-Key"] == "retry-me"
    assert deliveries(service) == [] and keys(service) == []

    service.settings.sandbox.sandbox_failure_rate = 0.0
    retried = publish(account, MICRO, body, key="retry-me")
    assert retried.status_code == 200 and "Idempotent-Replayed" not in retried.headers
    assert publish(account, MICRO, body, key="retry-me").headers["Idempotent-Replayed"] == "true"
    assert len(deliveries(service)) == 1
    assert [(p.status, p.idempotency_key) for p in posts(service)] == [
        ("failed", "retry-me"),
        ("published", "retry-me"),
    ]


def test_a_failure_after_the_platform_received_the_post_is_recorded_as_unknown(
    service: Service,
) -> None:
    """Mode ``after``: the post is live but the answer was a 503; the record says so."""
    account = service.account()
    body = valid_body(account, MICRO)
    service.settings.sandbox.sandbox_failure_rate = 1.0
    service.settings.sandbox.sandbox_failure_mode = "after"
    response = publish(account, MICRO, body, key="unsure")
    assert response.status_code == 503
    error = error_of(response)
    assert error["code"] == "platform_unavailable"
    assert error["recordStatus"] == "unknown"
    assert "may have been published" in error["message"]
    assert len(deliveries(service)) == 1  # the platform has it

    listed = account.get("/api/posts", params={"idempotencyKey": "unsure"}).json()  # type: ignore[attr-defined]
    [record] = listed["posts"]
    assert record["status"] == "unknown"
    assert record["recordId"] in error["message"]
    assert record["result"] == response.json()


def test_a_failure_before_sending_says_not_sent_and_frees_the_key(service: Service) -> None:
    account = service.account()
    body = valid_body(account, MICRO)
    service.settings.sandbox.sandbox_failure_rate = 1.0
    response = publish(account, MICRO, body, key="not-sent")
    assert response.status_code == 503
    assert error_of(response)["recordStatus"] == "not_sent"
    service.settings.sandbox.sandbox_failure_rate = 0.0
    assert publish(account, MICRO, body, key="not-sent").status_code == 200
    assert len(deliveries(service)) == 1


def test_a_retry_after_an_unknown_outcome_looks_the_post_up_instead_of_resending(
    service: Service,
) -> None:
    """The key stays held after the 503; the retry finds the post on the platform and
    answers with it. The sandbox's own dedupe by client token is off, as most networks
    have none: a resend would show as a second delivery."""
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = valid_body(account, MICRO)
    service.settings.sandbox.sandbox_failure_rate = 1.0
    service.settings.sandbox.sandbox_failure_mode = "after"
    assert publish(account, MICRO, body, key="resend").status_code == 503
    [first] = deliveries(service)

    service.settings.sandbox.sandbox_failure_rate = 0.0
    retried = publish(account, MICRO, body, key="resend")
    assert retried.status_code == 200, retried.text
    assert retried.headers["Idempotent-Replayed"] == "true"
    assert retried.json()["microblogPostId"] == first.platform_post_id
    assert len(deliveries(service)) == 1
    [record] = posts(service)
    assert (record.status, record.platform_post_id) == ("published", first.platform_post_id)
    # From now on the key replays that answer without asking the platform again.
    again = publish(account, MICRO, body, key="resend")
    assert again.json() == retried.json()
    assert len(deliveries(service)) == 1
    # Without a key there is nothing to hold, and a resend is a new post.
    assert publish(account, MICRO, body).status_code == 200
    assert len(deliveries(service)) == 2


def test_a_held_key_whose_post_never_arrived_sends_it_once(service: Service) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = held_body(account)
    hold_key(account, "lost", state="unknown")
    add_attempt(service, account, body, "post_lost", key="lost", status="unknown")
    response = publish(account, MICRO, body, key="lost")
    assert response.status_code == 200, response.text
    assert "Idempotent-Replayed" not in response.headers
    assert len(deliveries(service)) == 1
    assert sorted((p.id == "post_lost", p.status) for p in posts(service)) == [
        (False, "published"),
        (True, "failed"),
    ]


def test_an_unexpected_end_after_sending_holds_the_key(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A timeout or dropped connection once the request left: 500 with recordStatus
    unknown, and a retry looks before it sends."""
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = valid_body(account, MICRO)
    sandbox = drivers_of(service.client.app)[MICRO]  # type: ignore[arg-type]
    sent, sent_on_loop = sandbox.publish, sandbox.publish_async  # type: ignore[attr-defined]

    def times_out(delivery: Any) -> Any:
        sent(delivery)
        raise TimeoutError("the platform did not answer")

    async def times_out_on_loop(delivery: Any) -> Any:  # the path the API takes
        await sent_on_loop(delivery)
        raise TimeoutError("the platform did not answer")

    monkeypatch.setattr(sandbox, "publish", times_out)
    monkeypatch.setattr(sandbox, "publish_async", times_out_on_loop)
    response = publish(account, MICRO, body, key="timeout")
    assert response.status_code == 500
    assert error_of(response)["recordStatus"] == "unknown"
    monkeypatch.undo()
    retried = publish(account, MICRO, body, key="timeout")
    assert retried.status_code == 200
    assert retried.headers["Idempotent-Replayed"] == "true"
    assert len(deliveries(service)) == 1


def test_the_reconciler_settles_unknown_posts_without_a_retry(service: Service) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = valid_body(account, MICRO)
    service.settings.sandbox.sandbox_failure_rate = 1.0
    service.settings.sandbox.sandbox_failure_mode = "after"
    assert publish(account, MICRO, body, key="settle").status_code == 503
    service.settings.sandbox.sandbox_failure_rate = 0.0
    [delivered] = deliveries(service)

    reconciler = service.client.app.state.reconciler  # type: ignore[attr-defined]
    assert reconciler.reconcile() == 1
    [record] = posts(service)
    assert (record.status, record.platform_post_id) == ("published", delivered.platform_post_id)
    # The held key now replays the answer the look-up found.
    replayed = publish(account, MICRO, body, key="settle")
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.json()["recordId"] == record.id
    assert len(deliveries(service)) == 1
    assert reconciler.reconcile() == 0


def test_the_reconciler_gives_up_a_post_the_platform_never_got(service: Service) -> None:
    account = service.account()
    body = held_body(account)
    long_ago = utcnow() - timedelta(minutes=20)
    hold_key(account, "gone", state="unknown", created_at=long_ago)
    add_attempt(service, account, body, "post_gone", key="gone", status="unknown", at=long_ago)
    reconciler = service.client.app.state.reconciler  # type: ignore[attr-defined]
    assert reconciler.reconcile() == 1
    assert [p.status for p in posts(service)] == ["failed"]
    # The key is free again: a retry sends the post.
    assert publish(account, MICRO, body, key="gone").status_code == 200
    assert len(deliveries(service)) == 1


def test_an_unknown_post_stays_held_within_the_look_up_window_and_is_found_when_it_shows(
    service: Service,
) -> None:
    """A network may take a while to show a post it received: within ``LOOKUP_WINDOW`` a
    look-up that finds nothing leaves the record ``unknown`` and its key held; when the
    post shows, the next pass records it published, and it is never sent again."""
    from pressroom.service.publishing.unknowns import delivery_of

    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = held_body(account)
    hold_key(account, "late", state="unknown")
    add_attempt(service, account, body, "post_late", key="late", status="unknown")
    reconciler = service.client.app.state.reconciler  # type: ignore[attr-defined]
    assert reconciler.reconcile() == 0
    [record] = posts(service)
    assert record.status == "unknown"
    assert [(k.key, k.state) for k in keys(service)] == [("late", "unknown")]

    # The network shows the post now, as it received it.
    with transaction(service.sessions, write=False) as db:
        delivery = delivery_of(db, record)
    shown = drivers_of(service.client.app)[MICRO].publish(delivery)  # type: ignore[arg-type]
    assert reconciler.reconcile() == 1
    [record] = posts(service)
    assert (record.status, record.platform_post_id) == ("published", shown.platform_post_id)
    replayed = publish(account, MICRO, body, key="late")
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.json()["recordId"] == "post_late"
    assert len(deliveries(service)) == 1


def test_a_request_still_running_answers_409_in_progress(service: Service) -> None:
    account = service.account()
    body = held_body(account)
    hold_key(account, "busy")
    service.settings.idempotency_wait_seconds = 0
    response = publish(account, MICRO, body, key="busy")
    assert response.status_code == 409
    assert error_of(response)["code"] == "idempotency_request_in_progress"
    assert response.headers["Retry-After"] == "1"
    assert response.headers["Idempotency-Key"] == "busy"
    other = publish(account, MICRO, {**body, "text": "other"}, key="busy")
    assert error_of(other)["code"] == "idempotency_key_reused"
    assert deliveries(service) == []


def test_an_abandoned_claim_is_looked_up_then_sent_once(service: Service) -> None:
    """A request whose process died mid-publish does not hold its key forever: after
    ABANDONED_AFTER the next request asks the platform, which has nothing, and sends."""
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = held_body(account)
    long_ago = utcnow() - timedelta(minutes=11)
    hold_key(account, "orphan", created_at=long_ago)
    add_attempt(service, account, body, "post_orphan", key="orphan", status="sending", at=long_ago)
    response = publish(account, MICRO, body, key="orphan")
    assert response.status_code == 200 and "Idempotent-Replayed" not in response.headers
    assert sorted((p.id == "post_orphan", p.status) for p in posts(service)) == [
        (False, "published"),
        (True, "failed"),
    ]
    assert len(deliveries(service)) == 1


def register_process(service: Service, process_id: str, *, silent_for: timedelta) -> None:
    """Another API process in the registry, whose last heartbeat was ``silent_for`` ago."""
    beat = utcnow() - silent_for
    with transaction(service.sessions) as db:
        db.add(
            ServiceProcess(
                id=process_id,
                host="api-2",
                pid=4242,
                kind="api",
                storage="local",
                started_at=beat,
                heartbeat_at=beat,
            )
        )


def test_a_claim_whose_process_died_is_looked_up_at_once_then_sent_once(
    service: Service,
) -> None:
    """A replica killed mid-publish: its claim is given up as soon as its heartbeat is four
    beats old, not after ABANDONED_AFTER. The retry asks the platform first, which has
    nothing, and sends once."""
    service.settings.sandbox.sandbox_dedupe = False
    service.settings.idempotency_wait_seconds = 0
    account = service.account()
    body = held_body(account)
    stale = 4 * timedelta(seconds=service.settings.process_heartbeat_seconds)
    register_process(service, "proc_killed", silent_for=stale + timedelta(seconds=1))
    sent_at = utcnow() - timedelta(seconds=5)
    hold_key(account, "killed", created_at=sent_at, claimed_by="proc_killed")
    add_attempt(service, account, body, "post_killed", key="killed", status="sending", at=sent_at)

    response = publish(account, MICRO, body, key="killed")
    assert response.status_code == 200, response.text
    assert "Idempotent-Replayed" not in response.headers
    assert len(deliveries(service)) == 1
    assert sorted((p.id == "post_killed", p.status) for p in posts(service)) == [
        (False, "published"),
        (True, "failed"),
    ]
    assert publish(account, MICRO, body, key="killed").headers["Idempotent-Replayed"] == "true"
    assert len(deliveries(service)) == 1


def test_a_claim_whose_process_lives_is_still_in_progress(service: Service) -> None:
    service.settings.idempotency_wait_seconds = 0
    account = service.account()
    body = held_body(account)
    register_process(service, "proc_busy", silent_for=timedelta(seconds=1))
    hold_key(account, "busy", created_at=utcnow() - timedelta(minutes=2), claimed_by="proc_busy")
    response = publish(account, MICRO, body, key="busy")
    assert error_of(response)["code"] == "idempotency_request_in_progress"
    assert deliveries(service) == []


def test_a_claim_records_the_process_that_holds_it(service: Service) -> None:
    account = service.account()
    body = held_body(account)
    assert publish(account, MICRO, body, key="mine").status_code == 200
    [record] = keys(service)
    assert record.claimed_by == service.client.app.state.registration.id


def test_keys_are_kept_seven_days_then_forgotten(service: Service) -> None:
    account = service.account()
    body = valid_body(account, MICRO)
    assert publish(account, MICRO, body, key="weekly").status_code == 200
    [record] = keys(service)
    assert record.expires_at - record.created_at >= timedelta(days=7)
    assert record.state == "completed" and record.response_status == 200

    with transaction(service.sessions) as db:
        # A week passes: the service's key and the platform's memory of it both lapse.
        db.execute(update(IdempotencyRecord).values(expires_at=utcnow() - timedelta(seconds=1)))
        db.execute(update(SandboxDelivery).values(created_at=utcnow() - timedelta(days=8)))
    fresh = publish(account, MICRO, body, key="weekly")
    assert fresh.status_code == 200 and "Idempotent-Replayed" not in fresh.headers
    assert len(deliveries(service)) == 2 and len(keys(service)) == 1


def test_an_accounts_expired_keys_are_forgotten_as_it_takes_one(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once a minute per process (``repository.PURGE_EVERY``), not on every claim."""
    account = service.account()
    body = valid_body(account, MICRO)
    assert publish(account, MICRO, body, key="first").status_code == 200
    with transaction(service.sessions) as db:
        db.execute(update(IdempotencyRecord).values(expires_at=utcnow() - timedelta(seconds=1)))
    assert publish(account, MICRO, {**body, "text": "second"}, key="second").status_code == 200
    assert sorted(k.key for k in keys(service)) == ["first", "second"]  # within the minute

    monkeypatch.setattr(repository, "_purged", {})  # as a minute later
    assert publish(account, MICRO, {**body, "text": "third"}, key="third").status_code == 200
    assert sorted(k.key for k in keys(service)) == ["second", "third"]


@pytest.mark.parametrize("key", ["", "   ", "k" * 256])
def test_a_malformed_key_is_refused(service: Service, key: str) -> None:
    account = service.account()
    response = publish(account, MICRO, valid_body(account, MICRO), key=key)
    assert response.status_code == 400
    assert error_of(response)["field"] == "Idempotency-Key"
    assert post_count(service) == 0


def test_every_answer_echoes_the_key_and_auth_comes_first(service: Service) -> None:
    account = service.account()
    body = valid_body(account, MICRO)
    unauthorised = service.client.post(
        PATH, json=body, headers={"X-API-Key": "prk_live_wrong", "Idempotency-Key": "e"}
    )
    assert unauthorised.status_code == 401 and unauthorised.headers["Idempotency-Key"] == "e"
    assert keys(service) == []
    for response in (
        publish(account, MICRO, {**body, "connectionId": "conn_missing"}, key="e"),
        publish(account, MICRO, body, key="e"),
    ):
        assert response.headers["Idempotency-Key"] == "e"
    thumb = service.client.post(
        "/api/v2/video_sharing/thumbnail/nope",
        json={"thumbnailFileId": "f"},
        headers={**account.headers, "Idempotency-Key": "t"},
    )
    assert thumb.status_code == 404 and thumb.headers["Idempotency-Key"] == "t"


HELD_CONNECTION = "conn_held"
HELD_HASH = "35d0365bcb09b91be1cc2189634cd1f2dcfaca059bb18dbc3b46fc14bfb199ad"
"""The request hash of ``POST PATH`` with ``held_body``: sha256 of ``"POST {PATH}\\n"``
then the body as compact JSON with sorted keys. Written out, not computed by the code
under test, so a hash that changed (and no longer matched stored keys) would show."""


def held_body(account: AccountHandle) -> dict[str, Any]:
    """A microblog body that is the same in every run: its connection has a fixed id."""
    made = account.connect("microblog", "@held")
    with transaction(account.service.sessions) as db:
        db.execute(update(Connection).where(Connection.id == made).values(id=HELD_CONNECTION))
    return {"connectionId": HELD_CONNECTION, "text": "held elsewhere"}


def hold_key(
    account: AccountHandle,
    key: str,
    *,
    created_at: Any = None,
    state: str = "in_progress",
    claimed_by: str | None = None,
) -> None:
    """A claim on ``held_body`` as a request running in another process would hold it
    (``in_progress``), or as one that ended not knowing its outcome left it (``unknown``)."""
    now = created_at or utcnow()
    with transaction(account.service.sessions) as db:
        db.add(
            IdempotencyRecord(
                account_id=account.id,
                key=key,
                endpoint=PATH,
                request_hash=HELD_HASH,
                state=state,
                created_at=now,
                expires_at=now + timedelta(days=7),
                claimed_by=claimed_by,
            )
        )


def add_attempt(
    service: Service,
    account: AccountHandle,
    body: dict[str, Any],
    post_id: str,
    *,
    key: str,
    status: str,
    at: Any = None,
) -> None:
    """A post record of an attempt made under ``key`` by an earlier request."""
    with transaction(service.sessions) as db:
        db.add(
            Post(
                id=post_id,
                account_id=account.id,
                connection_id=body["connectionId"],
                platform="microblog",
                request=body,
                status=status,
                idempotency_key=key,
                created_at=at or utcnow(),
            )
        )


def test_keys_cannot_be_configured_to_live_less_than_seven_days() -> None:
    from pydantic import ValidationError

    from pressroom.settings import Settings

    with pytest.raises(ValidationError, match="greater than or equal to 7"):
        Settings(idempotency_ttl_days=3)
