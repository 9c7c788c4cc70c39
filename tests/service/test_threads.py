"""Threads on microblog (X) and text_thread (Threads): the `thread` field, each part a
reply to the one before, the parts recorded and shown, and a later part refused."""

from __future__ import annotations

from typing import Any

import pytest

from pressroom.platforms import Platform
from pressroom.rules import all_rules, rule_by_id
from pressroom.rules.model import PartsPerThread
from pressroom.rules.x import POSTS_PER_WINDOW
from pressroom.service.db.models import SandboxDelivery
from pressroom.service.drivers import drivers_of
from pressroom.service.drivers.base import AccessRevoked, PlatformRefused
from tests.conftest import AccountHandle, Service
from tests.support.publish import deliveries, error_of, publish, valid_body
from tests.support.rules import patch_rule

THREADED = [Platform.MICROBLOG, Platform.TEXT_THREAD]


@pytest.mark.parametrize("platform", THREADED)
def test_a_thread_goes_out_as_a_chain_of_replies(service: Service, platform: Platform) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = valid_body(account, platform, text="one", thread=[{"text": "two"}, {"text": "three"}])
    response = publish(account, platform, body, key="chain")
    assert response.status_code == 200, response.text
    result = response.json()

    sent = deliveries(service)
    assert [d.payload["fields"] for d in sent] == [{"text": t} for t in ("one", "two", "three")]
    assert sent[0].payload["replyTo"] is None
    assert sent[1].payload["replyTo"] == sent[0].platform_post_id
    assert sent[2].payload["replyTo"] == sent[1].platform_post_id

    parts = result["parts"]
    assert parts == [
        {
            "index": i,
            "kind": "post" if i == 0 else "reply",
            "platformPostId": d.platform_post_id,
            "url": d.url,
            "status": "published",
        }
        for i, d in enumerate(sent)
    ]
    assert result["url"] == sent[0].url  # the spec's fields describe part 0

    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["status"] == "published"
    assert record["parts"] == parts
    one = service.client.get(f"/api/posts/{result['recordId']}", headers=account.headers)
    assert one.json()["post"]["parts"] == parts

    again = publish(account, platform, body, key="chain")
    assert again.json() == result
    assert len(deliveries(service)) == 3


def test_a_single_post_has_no_parts(service: Service) -> None:
    account = service.account()
    response = publish(account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG))
    assert "parts" not in response.json()
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["parts"] == []


@pytest.mark.parametrize(
    ("thread", "field", "code", "rule"),
    [
        ([{"text": "ok"}, {"text": "x" * 281}], "thread[1].text", "text_too_long", None),
        (
            [{"text": "字" * 141}],
            "thread[0].text",
            "validation_error",
            "microblog.weighted_length",
        ),
        ([{"text": "  "}], "thread[0].text", "validation_error", None),
        ([{"text": "ok", "fileIds": ["file_1"]}], "thread[0].fileIds", "validation_error", None),
        ([], "thread", "validation_error", None),  # the schema's minItems, said as ours
        (
            [{"text": "more"}] * POSTS_PER_WINDOW,
            "thread",
            "validation_error",
            "microblog.thread_parts",
        ),
    ],
)
def test_a_thread_is_checked_before_anything_is_sent(
    service: Service, thread: list[dict[str, Any]], field: str, code: str, rule: str | None
) -> None:
    account = service.account()
    body = valid_body(account, Platform.MICROBLOG, thread=thread)
    response = publish(account, Platform.MICROBLOG, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"], error.get("rule")) == (code, field, rule)
    if rule is not None:
        assert error["docUrl"].startswith("https://")
    assert deliveries(service) == []


def test_a_thread_fits_just_inside_the_parts_rule(service: Service) -> None:
    account = service.account()
    thread = [{"text": f"part {i}"} for i in range(1, POSTS_PER_WINDOW)]
    body = valid_body(account, Platform.MICROBLOG, thread=thread)
    response = publish(account, Platform.MICROBLOG, body)
    assert response.status_code == 200, response.text
    assert len(response.json()["parts"]) == POSTS_PER_WINDOW


@pytest.mark.parametrize(
    "rule_id", [rule.id for rule in all_rules() if isinstance(rule, PartsPerThread)]
)
def test_every_parts_rule_takes_its_limit_and_refuses_one_more(
    service: Service, monkeypatch: pytest.MonkeyPatch, rule_id: str
) -> None:
    """Each network's parts-per-thread rule of the table, just inside and just outside,
    at a limit lowered here (as the media cases lower sizes) so a case posts 3 parts."""
    platform = rule_by_id(rule_id).platform
    patch_rule(monkeypatch, rule_id, max_parts=3)
    account = service.account()
    inside = [{"text": f"part {i}"} for i in range(1, 3)]
    response = publish(account, platform, valid_body(account, platform, thread=inside))
    assert response.status_code == 200, response.text
    assert len(response.json()["parts"]) == 3
    outside = [{"text": f"more {i}"} for i in range(1, 4)]
    response = publish(account, platform, valid_body(account, platform, thread=outside))
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"], error.get("rule")) == (
        "validation_error",
        "thread",
        rule_id,
    )
    assert len(deliveries(service)) == 3  # the first thread's parts, nothing of the second


def test_a_later_part_refused_leaves_the_post_partial(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    sandbox = drivers_of(service.client.app)[Platform.MICROBLOG]  # type: ignore[arg-type]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]

    async def refuses_part_three(delivery: Any) -> Any:
        if delivery.fields.get("text") == "three":
            raise PlatformRefused("X refuses it: a duplicate", field="text")
        return await sent_on_loop(delivery)

    monkeypatch.setattr(sandbox, "publish_async", refuses_part_three)
    body = valid_body(
        account,
        Platform.MICROBLOG,
        text="one",
        thread=[{"text": "two"}, {"text": "three"}, {"text": "four"}],
    )
    response = publish(account, Platform.MICROBLOG, body, key="cut")
    assert response.status_code == 400, response.text
    answer = response.json()
    assert answer["error"]["field"] == "thread[1].text"
    sent = deliveries(service)
    assert [d.payload["fields"]["text"] for d in sent] == ["one", "two"]
    assert [(p["index"], p["status"], p["platformPostId"]) for p in answer["parts"]] == [
        (0, "published", sent[0].platform_post_id),
        (1, "published", sent[1].platform_post_id),
        (2, "failed", None),
    ]
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["status"] == "partial"
    assert [p["status"] for p in record["parts"]] == ["published", "published", "failed"]

    # The key is kept: the same request sends nothing again.
    again = publish(account, Platform.MICROBLOG, body, key="cut")
    assert again.status_code == 400
    assert again.json()["parts"] == answer["parts"]
    assert len(deliveries(service)) == 2


def five_parts(account: AccountHandle, platform: Platform) -> dict[str, Any]:
    """A thread of five parts, told apart by their words: ``part 1`` to ``part 5``."""
    return valid_body(
        account, platform, text="part 1", thread=[{"text": f"part {n}"} for n in range(2, 6)]
    )


def fail_once(service: Service, platform: Platform, words: str, mode: str) -> list[str]:
    """The sandbox fails the next delivery of ``words`` as its failure knobs make it
    (``before``: nothing recorded; ``after``: recorded, then a 503), once; the texts it
    failed."""
    knobs = service.settings.sandbox
    sandbox = drivers_of(service.client.app)[platform]  # type: ignore[arg-type]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]
    failed: list[str] = []

    async def failing(delivery: Any) -> Any:
        if delivery.fields.get("text") != words or failed:
            return await sent_on_loop(delivery)
        failed.append(words)
        knobs.sandbox_failure_rate, knobs.sandbox_failure_mode = 1.0, mode  # type: ignore[assignment]
        try:
            return await sent_on_loop(delivery)
        finally:
            knobs.sandbox_failure_rate = 0.0

    sandbox.publish_async = failing  # type: ignore[attr-defined]
    return failed


def assert_one_chain(service: Service, count: int) -> list[SandboxDelivery]:
    """Every part reached the network exactly once, each replying to the one before."""
    sent = deliveries(service)
    assert [d.payload["fields"]["text"] for d in sent] == [f"part {n}" for n in range(1, count + 1)]
    assert [d.payload["replyTo"] for d in sent] == [None] + [d.platform_post_id for d in sent[:-1]]
    return sent


@pytest.mark.parametrize("platform", THREADED)
@pytest.mark.parametrize(
    ("words", "mode", "first_status", "post_status"),
    [
        ("part 3", "before", 503, "partial"),  # part 3 never reached the network
        ("part 3", "after", 503, "unknown"),  # part 3 reached it; its answer was lost
        ("part 1", "after", 503, "unknown"),  # part 0 itself reached it, answer lost
    ],
)
def test_a_retry_with_the_key_resumes_after_the_parts_that_stand(
    service: Service,
    platform: Platform,
    words: str,
    mode: str,
    first_status: int,
    post_status: str,
) -> None:
    service.settings.sandbox.sandbox_dedupe = False  # a double send must not hide behind it
    account = service.account()
    body = five_parts(account, platform)
    failed = fail_once(service, platform, words, mode)

    cut = publish(account, platform, body, key="resume")
    assert cut.status_code == first_status, cut.text
    assert failed == [words]
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["status"] == post_status
    reached = int(words.split()[1]) - (mode == "before")
    assert len(deliveries(service)) == reached

    again = publish(account, platform, body, key="resume")
    assert again.status_code == 200, again.text
    sent = assert_one_chain(service, 5)
    result = again.json()
    assert result["recordId"] == record["recordId"]  # the same record, continued
    assert [(p["platformPostId"], p["status"]) for p in result["parts"]] == [
        (d.platform_post_id, "published") for d in sent
    ]
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert (record["status"], record["parts"]) == ("published", result["parts"])

    replay = publish(account, platform, body, key="resume")
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json() == result
    assert len(deliveries(service)) == 5


def test_a_resumed_thread_refused_again_stays_partial_and_held(service: Service) -> None:
    """A part the network refuses for good is refused on every retry; the key stays held
    and the parts that stand are never sent again."""
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = five_parts(account, Platform.MICROBLOG)
    sandbox = drivers_of(service.client.app)[Platform.MICROBLOG]  # type: ignore[arg-type]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]

    async def refuses_part_four(delivery: Any) -> Any:
        if delivery.fields.get("text") == "part 4":
            raise PlatformRefused("X refuses it: a duplicate", field="text")
        return await sent_on_loop(delivery)

    sandbox.publish_async = refuses_part_four  # type: ignore[attr-defined]
    for _ in range(3):
        response = publish(account, Platform.MICROBLOG, body, key="refused")
        assert response.status_code == 400, response.text
        assert "Idempotent-Replayed" not in response.headers
        assert error_of(response)["field"] == "thread[2].text"
        assert [p["status"] for p in response.json()["parts"]] == ["published"] * 3 + ["failed"]
        assert_one_chain(service, 3)
    sandbox.publish_async = sent_on_loop  # type: ignore[attr-defined]
    assert publish(account, Platform.MICROBLOG, body, key="refused").status_code == 200
    assert_one_chain(service, 5)


@pytest.mark.parametrize("platform", THREADED)
def test_a_revoked_token_on_a_later_part_turns_the_connection_inactive(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = five_parts(account, platform)
    sandbox = drivers_of(service.client.app)[platform]  # type: ignore[arg-type]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]

    async def revoked_at_part_two(delivery: Any) -> Any:
        if delivery.fields.get("text") == "part 2":
            raise AccessRevoked("the token was revoked")
        return await sent_on_loop(delivery)

    sandbox.publish_async = revoked_at_part_two  # type: ignore[attr-defined]
    response = publish(account, platform, body, key="revoked")
    assert response.status_code == 409, response.text
    assert (error_of(response)["code"], error_of(response)["field"]) == (
        "connection_inactive",
        "connectionId",
    )
    listed = service.client.get("/api/connections/unified", headers=account.headers).json()
    assert {c["id"]: c["status"] for c in listed}[body["connectionId"]] == "inactive"
    # Inactive, the retry is refused before anything is sent, and the key stays held.
    again = publish(account, platform, body, key="revoked")
    assert again.status_code == 409
    assert len(deliveries(service)) == 1
