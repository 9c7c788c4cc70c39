"""Metrics fetched back: ``POST /api/posts/metrics/refresh`` starts a leased round per
account, within each network's budget, oldest-asked first; ``GET /api/posts/{recordId}/
metrics`` and ``GET /api/campaigns/{name}/metrics`` read the snapshots back; the
``post.metrics`` event goes only to endpoints that name it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from pressroom.platforms import Platform
from pressroom.service.app import create_app
from pressroom.service.db.models import WebhookDelivery, WebhookEvent
from pressroom.service.db.session import transaction
from pressroom.service.drivers import drivers_of
from pressroom.service.metrics.budgets import budget_of
from pressroom.service.metrics.repository import FIGURES
from pressroom.settings import Settings
from tests.conftest import AccountHandle, Service
from tests.support.publish import connect, publish, valid_body

CAMPAIGN = "spring-launch"


def refresh(account: AccountHandle, body: dict[str, Any] | None = None) -> dict[str, Any]:
    answer = account.service.client.post(
        "/api/posts/metrics/refresh", json=body, headers=account.headers
    )
    assert answer.status_code == 202, answer.text
    found: dict[str, Any] = answer.json()["round"]
    return found


def finished(account: AccountHandle, round_id: str, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        answer = account.get(f"/api/posts/metrics/rounds/{round_id}")
        assert answer.status_code == 200, answer.text  # type: ignore[attr-defined]
        found: dict[str, Any] = answer.json()["round"]  # type: ignore[attr-defined]
        if found["status"] != "running":
            return found
        assert time.monotonic() < deadline, found
        time.sleep(0.05)


def metrics_of(account: AccountHandle, record_id: str) -> dict[str, Any]:
    answer = account.get(f"/api/posts/{record_id}/metrics")
    assert answer.status_code == 200, answer.text  # type: ignore[attr-defined]
    found: dict[str, Any] = answer.json()  # type: ignore[attr-defined]
    return found


def published(account: AccountHandle, platform: Platform, **extra: Any) -> str:
    response = publish(account, platform, valid_body(account, platform, **extra))
    assert response.status_code == 200, response.text
    record_id: str = response.json()["recordId"]
    return record_id


def tag(edition: str, post_id: str) -> dict[str, Any]:
    return {"name": CAMPAIGN, "edition": edition, "postId": post_id, "flowRunId": "run-1"}


def test_a_round_fills_a_series_for_every_network_and_the_campaign_sums_them(
    service: Service,
) -> None:
    account = service.account()
    records = {
        platform: published(
            account,
            platform,
            campaign=tag("2026-w48" if i % 2 else "2026-w49", f"p-{platform.value}"),
        )
        for i, platform in enumerate(Platform)
    }
    outsider = published(account, Platform.MICROBLOG)
    first = refresh(account, {"campaign": CAMPAIGN})
    assert first["status"] == "running" and first["filters"] == {"campaign": CAMPAIGN}
    done = finished(account, first["roundId"])
    assert done["status"] == "done"
    assert set(done["networks"]) == {p.value for p in Platform}
    assert all(n["refreshed"] == 1 and n["asked"] == 1 for n in done["networks"].values())
    assert metrics_of(account, outsider)["series"] == []  # not in the campaign
    finished(account, refresh(account, {"sinceDays": 1})["roundId"])
    latest: dict[Platform, dict[str, Any]] = {}
    for platform, record_id in records.items():
        found = metrics_of(account, record_id)
        assert found["available"] is True and found["platform"] == platform.value
        series = found["series"]
        assert len(series) == 2 and found["latest"] == series[-1]
        counted = [name for name in FIGURES if series[-1][name] is not None]
        assert counted, platform
        assert all(series[1][name] >= series[0][name] for name in counted)
        latest[platform] = series[-1]
    totals = account.get(f"/api/campaigns/{CAMPAIGN}/metrics").json()  # type: ignore[attr-defined]
    assert totals["posts"] == len(Platform) and totals["measured"] == len(Platform)
    assert [n["platform"] for n in totals["networks"]] == [p.value for p in Platform]
    for network in totals["networks"]:
        figures = latest[Platform(network["platform"])]
        assert network["totals"] == {name: figures[name] for name in FIGURES}
    by_edition = {e["edition"]: e["networks"] for e in totals["editions"]}
    assert sorted(by_edition) == ["2026-w48", "2026-w49"]
    assert sum(len(n) for n in by_edition.values()) == len(Platform)


def test_a_second_call_while_a_round_runs_answers_with_it(service: Service) -> None:
    account = service.account()
    published(account, Platform.MICROBLOG)
    published(account, Platform.PIN_BOARD)
    service.settings.sandbox.sandbox_latency_ms = 400
    first = refresh(account)
    again = refresh(account, {"sinceDays": 3})
    assert again["roundId"] == first["roundId"] and again["runningAlready"] is True
    service.settings.sandbox.sandbox_latency_ms = 0
    finished(account, first["roundId"])
    other = service.account()  # another account's round is its own
    published(other, Platform.MICROBLOG)
    assert refresh(other)["roundId"] != first["roundId"]
    later = refresh(account)
    assert later["roundId"] != first["roundId"] and later["runningAlready"] is False
    finished(account, later["roundId"])


def test_no_network_is_asked_more_than_its_budget_and_the_longest_unasked_go_first(
    service: Service,
) -> None:
    account = service.account()
    budget = budget_of(Platform.MICROBLOG)
    connection = connect(account, Platform.MICROBLOG)
    records = [
        published(account, Platform.MICROBLOG, connection_id=connection, text=f"post {i}")
        for i in range(budget + 3)
    ]
    done = finished(account, refresh(account)["roundId"])
    network = done["networks"][Platform.MICROBLOG.value]
    assert network["asked"] == network["refreshed"] == budget == network["budget"]
    left = [r for r in records if not metrics_of(account, r)["series"]]
    assert left == records[budget:]  # oldest published first among the never asked
    done = finished(account, refresh(account)["roundId"])
    assert done["networks"][Platform.MICROBLOG.value]["asked"] == budget
    # The three never asked went first, then the longest unasked of the rest.
    counts = [len(metrics_of(account, r)["series"]) for r in records]
    assert counts == [2] * (budget - 3) + [1] * 3 + [1] * 3


def test_a_post_whose_network_gives_nothing_says_not_available_and_why(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = service.account()
    connection = connect(account, Platform.MICROBLOG)
    revoked = published(account, Platform.MICROBLOG, connection_id=connection)
    no_reader = published(account, Platform.PIN_BOARD)

    class Publisher:
        """A driver that publishes but reads no metrics."""

        platform = Platform.PIN_BOARD

    drivers = drivers_of(service.client.app)  # type: ignore[arg-type]
    monkeypatch.setitem(drivers, Platform.PIN_BOARD, Publisher())  # type: ignore[arg-type]
    account.move("expire_token", connection)
    done = finished(account, refresh(account)["roundId"])
    assert done["networks"]["microblog"]["unavailable"] == 1
    assert done["networks"]["pin_board"] == {
        "refreshed": 0,
        "unavailable": 1,
        "failed": 0,
        "budget": budget_of(Platform.PIN_BOARD),
        "asked": 0,
        "stopped": None,
    }
    for record_id, words in ((revoked, "token was refused"), (no_reader, "cannot read")):
        found = metrics_of(account, record_id)
        assert found["available"] is False and found["latest"] is None
        assert words in found["unavailableReason"], found
        assert found["refreshedAt"] is not None
    account.move("reconnect", connection)
    finished(account, refresh(account, {"recordIds": [revoked]})["roundId"])
    assert metrics_of(account, revoked)["available"] is True


def test_bad_requests_are_named(service: Service) -> None:
    account = service.account()
    other = service.account()
    foreign = published(other, Platform.MICROBLOG)
    client, headers = service.client, account.headers
    cases = [
        (
            client.post("/api/posts/metrics/refresh", json={"sinceDays": 0}, headers=headers),
            400,
            "validation_error",
            "sinceDays",
        ),
        (
            client.post("/api/posts/metrics/refresh", json={"recordIds": []}, headers=headers),
            400,
            "validation_error",
            "recordIds",
        ),
        (
            client.post("/api/posts/metrics/refresh", json={"since": 3}, headers=headers),
            400,
            "validation_error",
            "since",
        ),
        (
            client.post(
                "/api/posts/metrics/refresh", json={"recordIds": [foreign]}, headers=headers
            ),
            404,
            "post_not_found",
            "recordIds",
        ),
        (client.get(f"/api/posts/{foreign}/metrics", headers=headers), 404, "post_not_found", None),
        (
            client.get("/api/posts/metrics/rounds/mrnd_nope", headers=headers),
            404,
            "metrics_round_not_found",
            None,
        ),
        (
            client.get("/api/campaigns/never/metrics", headers=headers),
            404,
            "campaign_not_found",
            None,
        ),
        (client.post("/api/posts/metrics/refresh"), 401, "missing_api_key", None),
    ]
    for answer, status, code, field in cases:
        assert answer.status_code == status, answer.text
        error = answer.json()["error"]
        assert (error["code"], error["field"]) == (code, field), answer.text
    # A JSON null body is no body: every published post. Calls racing each other are
    # all answered with the one round.
    with ThreadPoolExecutor(4) as pool:
        rounds = list(
            pool.map(
                lambda _: client.post(
                    "/api/posts/metrics/refresh",
                    content=b"null",
                    headers={**headers, "Content-Type": "application/json"},
                ),
                range(8),
            )
        )
    assert all(r.status_code == 202 for r in rounds), [r.text for r in rounds]
    ids = {r.json()["round"]["roundId"] for r in rounds}
    for round_id in ids:
        finished(account, round_id)


@pytest.fixture
def hookable(settings: Settings) -> Iterator[Service]:
    """Loopback webhook addresses allowed (development), so endpoints can be made."""
    tuned = settings.model_copy(update={"webhook_development": True})
    app = create_app(tuned)
    with TestClient(app) as client:
        yield Service(client, app.state.session_factory, tuned)
    app.state.engine.dispose()


def test_post_metrics_goes_only_to_endpoints_that_name_it(hookable: Service) -> None:
    account = hookable.account()
    record_id = published(account, Platform.MICROBLOG, campaign=tag("e1", "p1"))

    def endpoint(events: list[str] | None) -> str:
        body: dict[str, Any] = {"url": "http://127.0.0.1:9/hook"}
        if events is not None:
            body["events"] = events
        made = hookable.client.post("/api/webhooks", json=body, headers=account.headers)
        assert made.status_code == 201, made.text
        made_events = made.json()["webhook"]["events"]
        assert ("post.metrics" in made_events) is (events is not None)
        webhook_id: str = made.json()["webhook"]["id"]
        return webhook_id

    everything = endpoint(None)
    named = endpoint(["post.metrics"])
    finished(account, refresh(account)["roundId"])
    with transaction(hookable.sessions, write=False) as db:
        events = list(db.scalars(select(WebhookEvent).where(WebhookEvent.type == "post.metrics")))
        assert len(events) == 1
        data = events[0].data
        to = set(
            db.scalars(
                select(WebhookDelivery.endpoint_id).where(WebhookDelivery.event_id == events[0].id)
            )
        )
    assert to == {named} and everything not in to
    assert data["postId"] == record_id and data["campaign"] == CAMPAIGN
    latest = metrics_of(account, record_id)["latest"]
    assert data["metrics"] == {name: latest[name] for name in FIGURES}
