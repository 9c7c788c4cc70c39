"""A thread's later parts with files on text_thread (Threads): one file or a carousel per
part, checked before anything is sent and named ``thread[i].fileIds[j]``, sent with the
part's reply; open_microblog's (Bluesky) parts take one to four images; microblog's parts
stay text only."""

from __future__ import annotations

import pytest

from pressroom.platforms import Platform
from tests.conftest import Service
from tests.service.test_threads import assert_one_chain, fail_once
from tests.support.files import make_file
from tests.support.publish import deliveries, error_of, publish, valid_body
from tests.support.rules import patch_rule

THREADS = Platform.TEXT_THREAD
BLUESKY = Platform.OPEN_MICROBLOG


def test_thread_parts_carry_one_file_or_a_carousel(service: Service) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    one = make_file(account, "image")
    pair = [make_file(account, "image"), make_file(account, "video")]
    thread = [{"text": "two", "fileIds": [one]}, {"text": "three", "fileIds": pair}]
    body = valid_body(account, THREADS, text="one", thread=thread)
    response = publish(account, THREADS, body, key="with-files")
    assert response.status_code == 200, response.text

    sent = deliveries(service)
    assert [d.payload["fields"] for d in sent] == [{"text": t} for t in ("one", "two", "three")]
    assert sent[0].payload["media"] is None
    assert sent[1].payload["media"]["fileId"] == one
    assert sent[1].payload["replyTo"] == sent[0].platform_post_id
    assert [item["fileId"] for item in sent[2].payload["items"]] == pair
    assert sent[2].payload["replyTo"] == sent[1].platform_post_id
    assert [p["kind"] for p in response.json()["parts"]] == ["post", "reply", "reply"]

    again = publish(account, THREADS, body, key="with-files")
    assert again.json() == response.json()
    assert len(deliveries(service)) == 3


@pytest.mark.parametrize(
    ("files", "field", "code"),
    [
        (["missing"], "thread[1].fileIds[0]", "file_not_found"),
        (["", "x"], "thread[1].fileIds[0]", "validation_error"),
        ("not_ready", "thread[1].fileIds[1]", "file_not_ready"),
        ("too_many", "thread[1].fileIds", "validation_error"),
    ],
)
def test_a_parts_files_are_checked_before_anything_is_sent(
    service: Service,
    monkeypatch: pytest.MonkeyPatch,
    files: list[str] | str,
    field: str,
    code: str,
) -> None:
    patch_rule(monkeypatch, "text_thread.carousel_items", max_items=2)
    account = service.account()
    if files == "not_ready":
        files = [make_file(account, "image"), make_file(account, "image", status="processing")]
    elif files == "too_many":
        files = [make_file(account, "image") for _ in range(3)]
    assert isinstance(files, list)
    thread = [{"text": "two"}, {"text": "three", "fileIds": files}]
    response = publish(account, THREADS, valid_body(account, THREADS, thread=thread))
    assert response.status_code in (400, 404, 409, 422), response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == (code, field)
    assert deliveries(service) == []


def test_bluesky_thread_parts_carry_images_each_with_its_alt_text(service: Service) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    one = make_file(account, "image")
    four = [make_file(account, "image") for _ in range(4)]
    thread = [{"text": "two", "fileIds": [one]}, {"text": "three", "fileIds": four}]
    alts = {one: "A red square", four[2]: "A blue one"}
    body = valid_body(account, BLUESKY, text="one", thread=thread, fileAlts=alts)
    response = publish(account, BLUESKY, body, key="bluesky-files")
    assert response.status_code == 200, response.text
    sent = deliveries(service)
    assert sent[1].payload["media"]["fileId"] == one
    assert sent[1].payload["media"]["altText"] == "A red square"
    assert [(i["fileId"], i.get("altText")) for i in sent[2].payload["items"]] == [
        (four[0], None),
        (four[1], None),
        (four[2], "A blue one"),
        (four[3], None),
    ]
    assert sent[2].payload["replyTo"] == sent[1].platform_post_id


@pytest.mark.parametrize(
    ("kinds", "field", "code"),
    [
        (["image", "video"], "thread[0].fileIds[1]", "media_kind_not_allowed"),
        (["image"] * 5, "thread[0].fileIds", "validation_error"),
    ],
)
def test_a_bluesky_part_takes_images_only_and_four_at_most(
    service: Service, kinds: list[str], field: str, code: str
) -> None:
    account = service.account()
    thread = [{"text": "two", "fileIds": [make_file(account, kind) for kind in kinds]}]
    response = publish(account, BLUESKY, valid_body(account, BLUESKY, thread=thread))
    assert response.status_code in (400, 422), response.text
    assert (error_of(response)["code"], error_of(response)["field"]) == (code, field)
    assert deliveries(service) == []


def test_microblog_thread_parts_stay_text_only(service: Service) -> None:
    account = service.account()
    thread = [{"text": "two", "fileIds": [make_file(account, "image")]}]
    response = publish(
        account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG, thread=thread)
    )
    assert response.status_code == 400, response.text
    assert error_of(response)["field"] == "thread[0].fileIds"
    assert deliveries(service) == []


@pytest.mark.parametrize("mode", ["before", "after"])
def test_a_retry_resumes_a_part_with_files_exactly_once(service: Service, mode: str) -> None:
    """A part with files that failed (``before``: never reached the network; ``after``:
    reached it, its answer lost, so found by the look-up) is sent once in all, with its
    files, when the retry continues the thread."""
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    pair = [make_file(account, "image"), make_file(account, "image")]
    thread = [{"text": "part 2"}, {"text": "part 3", "fileIds": pair}, {"text": "part 4"}]
    body = valid_body(account, THREADS, text="part 1", thread=thread)
    failed = fail_once(service, THREADS, "part 3", mode)

    cut = publish(account, THREADS, body, key="resume-files")
    assert cut.status_code == 503, cut.text
    assert failed == ["part 3"]

    again = publish(account, THREADS, body, key="resume-files")
    assert again.status_code == 200, again.text
    sent = assert_one_chain(service, 4)
    assert [item["fileId"] for item in sent[2].payload["items"]] == pair
    assert [p["status"] for p in again.json()["parts"]] == ["published"] * 4
