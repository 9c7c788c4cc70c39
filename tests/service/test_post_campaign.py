"""A post's ``campaign`` (our extension): taken by every publish body, kept on the post
record, found by ``GET /api/posts``'s filters, and no part of the Idempotency-Key
fingerprint."""

from __future__ import annotations

from typing import Any

from pressroom.platforms import Platform
from pressroom.service.publishing.campaign import MAX_CHARS
from tests.conftest import AccountHandle, Service
from tests.support.publish import deliveries, error_of, post_count, publish, valid_body

RUN_A = "0b6f3c1e-8f0a-4c52-9d3e-3f1a2b4c5d6e"
RUN_B = "7d1e2f3a-4b5c-4d6e-8f90-a1b2c3d4e5f6"


def campaign(post_id: str, flow_run_id: str = RUN_A, **changes: Any) -> dict[str, Any]:
    return {
        "name": "spring-launch",
        "edition": "2026-w48",
        "postId": post_id,
        "flowRunId": flow_run_id,
    } | changes


def listed(account: AccountHandle, **params: Any) -> list[dict[str, Any]]:
    response = account.service.client.get("/api/posts", params=params, headers=account.headers)
    assert response.status_code == 200, response.text
    posts: list[dict[str, Any]] = response.json()["posts"]
    return posts


def test_every_label_takes_a_campaign_kept_on_its_record_and_found_by_the_filters(
    service: Service,
) -> None:
    account = service.account()
    sent: dict[str, dict[str, Any]] = {}
    for i, platform in enumerate(Platform):
        tag = campaign(f"post-{platform.value}", RUN_A if i % 2 == 0 else RUN_B)
        response = publish(account, platform, valid_body(account, platform, campaign=tag))
        assert response.status_code == 200, (platform, response.text)
        sent[response.json()["recordId"]] = tag
    later = campaign("teaser", RUN_B, edition="2026-w49")
    response = publish(account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG))
    untagged = response.json()["recordId"]
    response = publish(
        account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG, campaign=later)
    )
    sent[response.json()["recordId"]] = later
    other = campaign("x", name="autumn")
    response = publish(
        account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG, campaign=other)
    )
    sent[response.json()["recordId"]] = other

    every = {p["recordId"]: p for p in listed(account, limit=100)}
    assert {rid: every[rid]["campaign"] for rid in sent} == sent
    assert every[untagged]["campaign"] is None

    def found(**params: Any) -> set[str]:
        return {p["recordId"] for p in listed(account, limit=100, **params)}

    spring = {rid for rid, tag in sent.items() if tag["name"] == "spring-launch"}
    assert found(campaign="spring-launch") == spring and len(spring) == len(Platform) + 1
    assert found(campaign="spring-launch", edition="2026-w48") == spring - {
        rid for rid, tag in sent.items() if tag["edition"] == "2026-w49"
    }
    assert found(edition="2026-w49") == {rid for rid, tag in sent.items() if tag is later}
    assert found(flowRunId=RUN_A) == {rid for rid, tag in sent.items() if tag["flowRunId"] == RUN_A}
    assert found(campaign="autumn", flowRunId=RUN_B) == set()
    assert found(campaign="nothing-like-it") == set()
    # Pages of a filtered list go on where the last one stopped.
    first = account.service.client.get(
        "/api/posts", params={"campaign": "spring-launch", "limit": 3}, headers=account.headers
    ).json()
    rest = listed(account, campaign="spring-launch", cursor=first["nextCursor"], limit=100)
    assert {p["recordId"] for p in first["posts"] + rest} == spring
    # The campaign is the service's business: no network receives it.
    assert all("campaign" not in d.payload for d in deliveries(service))


def test_the_same_key_with_a_new_flow_run_replays_the_first_answer(service: Service) -> None:
    """A re-run of an edition sends each post's key again with its own flow run id."""
    account = service.account()
    body = valid_body(account, Platform.MICROBLOG, campaign=campaign("hello", RUN_A))
    first = publish(account, Platform.MICROBLOG, body, key="spring-hello")
    assert first.status_code == 200, first.text

    again = publish(
        account,
        Platform.MICROBLOG,
        body | {"campaign": campaign("hello", RUN_B)},
        key="spring-hello",
    )
    assert again.status_code == 200, again.text
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json() == first.json()
    assert post_count(service) == 1 and len(deliveries(service)) == 1
    # The record keeps the run that published it.
    assert [p["recordId"] for p in listed(account, flowRunId=RUN_A)] == [first.json()["recordId"]]
    assert listed(account, flowRunId=RUN_B) == []
    # What is posted still belongs to the key: another text under it is refused.
    other = publish(account, Platform.MICROBLOG, body | {"text": "another"}, key="spring-hello")
    assert other.status_code == 409 and error_of(other)["code"] == "idempotency_key_reused"


def test_campaign_values_are_checked_and_named_in_the_refusal(service: Service) -> None:
    account = service.account()
    connection = account.connect("microblog", "@acme")

    def refusal(tag: object, key: str | None = None) -> dict[str, Any]:
        body = {"connectionId": connection, "text": "hi", "campaign": tag}
        response = publish(account, Platform.MICROBLOG, body, key=key)
        assert response.status_code == 400, response.text
        return error_of(response)

    too_long = "x" * (MAX_CHARS + 1)
    for tag, field in (
        ({"name": too_long}, "campaign.name"),
        ({"name": ""}, "campaign.name"),
        ({"edition": "w48"}, "campaign.name"),
        ({"name": "n", "edition": too_long}, "campaign.edition"),
        ({"name": "n", "postId": too_long}, "campaign.postId"),
        ({"name": "n", "flowRunId": too_long}, "campaign.flowRunId"),
        ({"name": "n", "runId": "r"}, "campaign.runId"),
        ("spring-launch", "campaign"),
    ):
        error = refusal(tag)
        assert (error["code"], error["field"]) == ("validation_error", field), tag
    assert post_count(service) == 0

    # The longest values are kept whole (PostgreSQL's columns are as long as the limit).
    longest = {k: "y" * MAX_CHARS for k in ("name", "edition", "postId", "flowRunId")}
    body = {"connectionId": connection, "text": "hi", "campaign": longest}
    assert publish(account, Platform.MICROBLOG, body).status_code == 200
    assert listed(account, campaign="y" * MAX_CHARS)[0]["campaign"] == longest

    # A refused campaign is not kept under the key: the corrected body, whose fingerprint
    # is the same, is published rather than answered with the refusal again.
    refusal({"name": too_long}, key="fix-me")
    fixed = publish(
        account,
        Platform.MICROBLOG,
        {"connectionId": connection, "text": "hi", "campaign": campaign("hi")},
        key="fix-me",
    )
    assert fixed.status_code == 200, fixed.text
    assert "Idempotent-Replayed" not in fixed.headers
