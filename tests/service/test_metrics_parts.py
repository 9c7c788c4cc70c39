"""Metrics of posts made of several parts: a thread's replies are posts of their own on
the network and are read each (``parts``, summed into the post's ``totals`` and the
campaign's); a carousel is one post and a first comment is not the post's reach, so
neither adds a part. Each reply is a read of the network's budget. The ``post.metrics``
event carries the same parts and totals to a real receiver."""

from __future__ import annotations

from typing import Any

from pressroom.platforms import Platform
from pressroom.service.metrics.budgets import budget_of
from pressroom.service.metrics.repository import FIGURES
from tests.conftest import Service
from tests.service.test_carousels import carousel_body
from tests.service.test_metrics_api import CAMPAIGN, finished, metrics_of, refresh, tag
from tests.service.test_webhooks import hooked, subscribe  # noqa: F401 (hooked: a fixture)
from tests.support.publish import connect, publish, valid_body
from tests.support.receiver import running_receiver


def published(account: Any, platform: Platform, body: dict[str, Any]) -> dict[str, Any]:
    response = publish(account, platform, body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def summed(*snapshots: dict[str, Any]) -> dict[str, int | None]:
    sums: dict[str, int | None] = {}
    for name in FIGURES:
        values = [s[name] for s in snapshots if s[name] is not None]
        sums[name] = sum(values) if values else None
    return sums


def test_each_reply_of_a_thread_is_read_and_summed_into_the_posts_totals(
    service: Service,
) -> None:
    account = service.account()
    threads = {
        platform: published(
            account,
            platform,
            valid_body(
                account,
                platform,
                text="part 1",
                thread=[{"text": "part 2"}, {"text": "part 3"}],
                campaign=tag("e1", f"thread-{platform.value}"),
            ),
        )
        for platform in (Platform.MICROBLOG, Platform.TEXT_THREAD)
    }
    done = finished(account, refresh(account)["roundId"])
    for platform, result in threads.items():
        assert done["networks"][platform.value]["asked"] == 3, done  # a read per part
        found = metrics_of(account, result["recordId"])
        replies = [p for p in result["parts"] if p["kind"] == "reply"]
        assert [(p["index"], p["kind"], p["platformPostId"]) for p in found["parts"]] == [
            (p["index"], "reply", p["platformPostId"]) for p in replies
        ]
        assert all(len(p["series"]) == 1 for p in found["parts"])
        assert [p["latest"]["partIndex"] for p in found["parts"]] == [1, 2]
        assert found["latest"]["partIndex"] == 0 and len(found["series"]) == 1
        expected = summed(found["latest"], *(p["latest"] for p in found["parts"]))
        assert found["totals"] == expected
        assert any(v is not None and v > (found["latest"][k] or 0) for k, v in expected.items())
    totals = account.get(f"/api/campaigns/{CAMPAIGN}/metrics").json()  # type: ignore[attr-defined]
    assert totals["measured"] == 2
    for network in totals["networks"]:
        assert network["posts"] == 1
        record = threads[Platform(network["platform"])]["recordId"]
        assert network["totals"] == metrics_of(account, record)["totals"]


def test_a_carousel_and_a_first_comment_add_no_part(service: Service) -> None:
    account = service.account()
    carousel = published(
        account, Platform.PHOTO_SHARING, carousel_body(account, Platform.PHOTO_SHARING)
    )
    commented = published(
        account,
        Platform.PAGE_SOCIAL,
        valid_body(account, Platform.PAGE_SOCIAL, firstComment="Links in this comment"),
    )
    assert len(carousel["parts"]) > 1 and len(commented["parts"]) == 2
    done = finished(account, refresh(account)["roundId"])
    for platform, result in ((Platform.PHOTO_SHARING, carousel), (Platform.PAGE_SOCIAL, commented)):
        assert done["networks"][platform.value]["asked"] == 1, done
        found = metrics_of(account, result["recordId"])
        assert found["parts"] == []
        assert found["totals"] == {name: found["latest"][name] for name in FIGURES}


def test_replies_count_against_the_budget_and_the_rest_wait(service: Service) -> None:
    account = service.account()
    budget = budget_of(Platform.MICROBLOG)
    connection = connect(account, Platform.MICROBLOG)
    thread = published(
        account,
        Platform.MICROBLOG,
        valid_body(
            account,
            Platform.MICROBLOG,
            connection_id=connection,
            text="part 1",
            thread=[{"text": f"part {n}"} for n in range(2, budget + 1)],
        ),
    )
    single = published(
        account,
        Platform.MICROBLOG,
        valid_body(account, Platform.MICROBLOG, connection_id=connection, text="alone"),
    )
    done = finished(account, refresh(account)["roundId"])
    network = done["networks"][Platform.MICROBLOG.value]
    assert network["asked"] == budget == network["budget"], network
    assert len(metrics_of(account, thread["recordId"])["parts"]) == budget - 1
    assert metrics_of(account, single["recordId"])["series"] == []  # next round's first
    finished(account, refresh(account)["roundId"])
    assert len(metrics_of(account, single["recordId"])["series"]) == 1


def test_the_post_metrics_event_carries_a_threads_parts_and_totals(
    hooked: Service,  # noqa: F811
) -> None:
    """A receiver subscribed to ``post.metrics`` hears of the whole thread in one event per
    post and round: part 0's figures as ``metrics``, each reply read as ``parts`` (as the
    metrics API lists them, without the series) and the post's ``totals``."""
    account = hooked.account()
    with running_receiver() as receiver:
        subscribe(account, receiver, ["post.metrics"])
        thread = published(
            account,
            Platform.MICROBLOG,
            valid_body(
                account,
                Platform.MICROBLOG,
                text="part 1",
                thread=[{"text": "part 2"}, {"text": "part 3"}],
            ),
        )
        single = published(
            account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG, text="alone")
        )
        finished(account, refresh(account)["roundId"])
        receiver.wait_for(2)
        heard = {event.data["postId"]: event.data for event in receiver.events()}
    assert len(receiver.events()) == 2 and set(heard) == {thread["recordId"], single["recordId"]}

    whole = metrics_of(account, thread["recordId"])
    data = heard[thread["recordId"]]
    assert data["metrics"] == {name: whole["latest"][name] for name in FIGURES}
    assert [part["index"] for part in data["parts"]] == [1, 2]
    assert data["parts"] == [
        {key: value for key, value in part.items() if key != "series"} for part in whole["parts"]
    ]
    assert (
        data["totals"]
        == whole["totals"]
        == summed(whole["latest"], *(part["latest"] for part in whole["parts"]))
    )
    assert data["totals"] != data["metrics"]  # the replies' figures are in it

    alone = metrics_of(account, single["recordId"])
    data = heard[single["recordId"]]
    assert data["parts"] == []
    assert data["totals"] == data["metrics"] == {name: alone["latest"][name] for name in FIGURES}
