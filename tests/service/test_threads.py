"""Threads on microblog (X) and text_thread (Threads): the `thread` field, each part a
reply to the one before, the parts recorded and shown, and a later part refused."""

from __future__ import annotations

from typing import Any

import pytest

from pressroom.platforms import Platform
from pressroom.rules.x import POSTS_PER_WINDOW
from pressroom.service.drivers import drivers_of
from pressroom.service.drivers.base import PlatformRefused
from tests.conftest import Service
from tests.support.publish import deliveries, error_of, publish, valid_body

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
