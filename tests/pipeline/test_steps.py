"""The publish step's unknown-outcome rules, without Prefect.

Against our service a timed-out publish is looked up and then resent with the same key;
against a service that neither keeps post records nor echoes ``Idempotency-Key`` (the
hosted service's shape, recorded here with httpx's MockTransport since it cannot run
here) the row is ``unconfirmed`` and nothing is sent again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest
from PIL import Image

from pressroom.campaign import PlannedPost, load, plan
from pressroom.client import Client
from pressroom.pipeline.outcomes import PublishFailed, Status
from pressroom.pipeline.retrying import TransientFailure
from pressroom.pipeline.steps import IdempotencyEvidence, publish_post
from tests.pipeline.conftest import LiveService
from tests.support.media import make_image

CAMPAIGN = "name: steps\nposts:\n  - id: hi\n    microblog: {text: 'Hello there.'}\n"
CONNECTIONS = [{"id": "c1", "platform": "microblog", "name": "@acme"}]


def planned_post(tmp_path: Path, connections: list[dict[str, str]]) -> PlannedPost:
    path = tmp_path / "steps.yaml"
    path.write_text(CAMPAIGN)
    [planned] = plan(load(path), connections).posts
    return planned


def test_a_timeout_against_our_service_is_resolved_then_resent_with_the_same_key(
    live_service: LiveService, tmp_path: Path
) -> None:
    connection = live_service.connect("microblog", "@acme")
    planned = planned_post(tmp_path, [{"id": connection, "platform": "microblog", "name": "@acme"}])
    live_service.settings.sandbox.sandbox_latency_ms = 1500
    evidence = IdempotencyEvidence()
    with Client(timeout=0.3) as impatient, pytest.raises(TransientFailure, match="safe to resend"):
        publish_post(impatient, planned, {}, key="k-timeout", evidence=evidence, attempt=1)
    with Client() as patient:
        row = publish_post(patient, planned, {}, key="k-timeout", evidence=evidence, attempt=2)
    assert row.status is Status.PUBLISHED
    assert len(live_service.deliveries()) == 1


def hosted_service(publish_calls: list[httpx.Request], *, echo: bool) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v2/microblog/publish":
            publish_calls.append(request)
            if len(publish_calls) == 1 and not echo:
                raise httpx.ReadTimeout("no answer", request=request)
            headers = {"Idempotency-Key": request.headers["Idempotency-Key"]} if echo else {}
            return httpx.Response(
                200,
                headers=headers,
                json={
                    "success": True,
                    "platform": "microblog",
                    "connectionId": "c1",
                    "status": "published",
                    "publishedAt": "2026-11-23T10:00:00Z",
                    "url": "https://microblog.example/acme/status/1",
                    "microblogPostId": "1",
                },
            )
        # No post read-back route on the hosted service: a plain 404 page.
        return httpx.Response(404, text="Not Found")

    return httpx.MockTransport(answer)


def test_without_echo_or_lookup_an_unknown_outcome_is_unconfirmed_and_not_resent(
    tmp_path: Path,
) -> None:
    calls: list[httpx.Request] = []
    http = httpx.Client(
        transport=hosted_service(calls, echo=False), base_url="https://hosted.example"
    )
    with (
        Client(api_key="prk_live_x", http_client=http) as hosted,
        pytest.raises(PublishFailed) as failed,
    ):
        publish_post(
            hosted,
            planned_post(tmp_path, CONNECTIONS),
            {},
            key="k1",
            evidence=IdempotencyEvidence(),
            attempt=1,
        )
    assert failed.value.row.status is Status.UNCONFIRMED
    assert "check the platform" in (failed.value.row.error or "")
    assert len(calls) == 1


def test_a_service_that_echoed_the_key_before_may_be_retried_after_a_timeout(
    tmp_path: Path,
) -> None:
    calls: list[httpx.Request] = []
    evidence = IdempotencyEvidence()
    http = httpx.Client(
        transport=hosted_service(calls, echo=True), base_url="https://hosted.example"
    )
    with Client(api_key="prk_live_x", http_client=http) as hosted:
        planned = planned_post(tmp_path, CONNECTIONS)
        publish_post(hosted, planned, {}, key="k0", evidence=evidence, attempt=1)
    assert evidence.honoured

    timeouts: list[httpx.Request] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/publish"):
            timeouts.append(request)
            raise httpx.ReadTimeout("no answer", request=request)
        return httpx.Response(404, text="Not Found")

    http = httpx.Client(transport=httpx.MockTransport(flaky), base_url="https://hosted.example")
    with (
        Client(api_key="prk_live_x", http_client=http) as hosted,
        pytest.raises(TransientFailure, match="safe to resend"),
    ):
        publish_post(hosted, planned, {}, key="k1", evidence=evidence, attempt=1)
    assert json.loads(timeouts[0].content)["text"] == "Hello there."


def test_a_5xx_whose_record_is_unknown_is_looked_up_not_resent(tmp_path: Path) -> None:
    """``error.recordStatus: unknown``: the platform got the request; the pipeline asks
    for the record before anything is sent again."""
    publishes: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v2/microblog/publish":
            publishes.append(request)
            return httpx.Response(
                503,
                headers={"Retry-After": "1"},
                json={
                    "success": False,
                    "error": {
                        "code": "platform_unavailable",
                        "message": "the platform failed after receiving the post",
                        "field": None,
                        "recordStatus": "unknown",
                    },
                },
            )
        assert request.url.path == "/api/posts"
        return httpx.Response(
            200,
            json={
                "success": True,
                "posts": [
                    {
                        "recordId": "post_1",
                        "platform": "microblog",
                        "connectionId": "c1",
                        "status": "published",
                        "url": "https://microblog.example/acme/status/1",
                        "idempotencyKey": "k-unknown",
                    }
                ],
                "nextCursor": None,
            },
        )

    http = httpx.Client(transport=httpx.MockTransport(answer), base_url="https://ours.example")
    with Client(api_key="prk_live_x", http_client=http) as ours:
        row = publish_post(
            ours,
            planned_post(tmp_path, CONNECTIONS),
            {},
            key="k-unknown",
            evidence=IdempotencyEvidence(),
            attempt=1,
        )
    assert row.status is Status.PUBLISHED and row.url == "https://microblog.example/acme/status/1"
    assert len(publishes) == 1


def test_a_retry_after_is_waited_through_the_sleep_the_caller_gives(tmp_path: Path) -> None:
    """The task hands in a sleep that lets its platform's place go for the wait
    (``tasks.common.held``); the step must wait a 429's Retry-After through it."""

    def throttled(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            429,
            headers={"Retry-After": "7"},
            json={
                "success": False,
                "error": {"code": "rate_limited", "message": "slow down", "field": None},
            },
        )

    waits: list[float] = []
    http = httpx.Client(transport=httpx.MockTransport(throttled), base_url="https://ours.example")
    with (
        Client(api_key="prk_live_x", http_client=http) as ours,
        pytest.raises(TransientFailure, match="slow down"),
    ):
        publish_post(
            ours,
            planned_post(tmp_path, CONNECTIONS),
            {},
            key="k-429",
            evidence=IdempotencyEvidence(),
            attempt=1,
            sleep=waits.append,
        )
    assert waits == [7.0]


PNG_CAMPAIGN = """\
name: fitted
media:
  cover: {path: cover.png}
posts:
  - id: cover
    media: cover
    photo_sharing: {caption: "New cover.", fit: crop}
"""


def fitted_post(live_service: LiveService, tmp_path: Path) -> tuple[PlannedPost, dict[str, str]]:
    """A PNG banner to photo_sharing (Instagram takes JPEG only, and no shape wider than
    1.91:1 unless cropped or padded: the campaign says crop), uploaded and ready."""
    connection = live_service.connect("photo_sharing", "acme.photos", account_type="business")
    make_image(tmp_path / "cover.png", size=(320, 100))
    path = tmp_path / "fitted.yaml"
    path.write_text(PNG_CAMPAIGN)
    entry = {"id": connection, "platform": "photo_sharing", "name": "acme.photos"}
    [planned] = plan(load(path), [entry]).posts
    with Client() as client:
        uploaded = client.upload(tmp_path / "cover.png")
    return planned, {"cover": uploaded.file_id}


def test_a_publish_waits_while_its_file_is_converted_for_the_network(
    live_service: LiveService, tmp_path: Path
) -> None:
    """The service answers 409 file_not_ready (transient, Retry-After) while it makes a
    JPEG of the PNG, cropped as the campaign asked; the step waits each Retry-After and
    sends the same request again."""
    planned, file_ids = fitted_post(live_service, tmp_path)
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(0.1)

    with Client() as client:
        row = publish_post(
            client,
            planned,
            file_ids,
            key="k-fit",
            evidence=IdempotencyEvidence(),
            attempt=1,
            sleep=sleep,
        )
    assert row.status is Status.PUBLISHED and row.attempts == 1
    assert waits and all(wait >= 1 for wait in waits)  # the service's Retry-After
    [delivered] = live_service.deliveries()
    assert delivered.payload["media"]["contentType"] == "image/jpeg"
    assert planned.publish_body(file_ids)["fit"] == "crop"
    with Image.open(live_service.stored_path(delivered.payload["media"]["storageKey"])) as sent:
        assert (sent.format, sent.size) == ("JPEG", (191, 100))  # its centre at 1.91:1


def test_a_file_not_converted_in_time_is_a_transient_failure_for_a_later_try(
    live_service: LiveService, tmp_path: Path
) -> None:
    planned, file_ids = fitted_post(live_service, tmp_path)
    live_service.settings.processing_delay_ms = 60_000  # the derive job is held
    with Client() as client, pytest.raises(TransientFailure, match="file_not_ready"):
        publish_post(
            client,
            planned,
            file_ids,
            key="k-slow",
            evidence=IdempotencyEvidence(),
            attempt=1,
            media_wait=0.5,
            sleep=lambda _: None,
        )
    assert live_service.deliveries() == []
