"""The reconciler settles a thread whose later part's outcome is unknown, part by part
as a retry would, sending nothing: every part found, the post is published; a part the
network never got (past the look-up window), the post is partial and a retry with its
key sends only the rest."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import delete, select, update

from pressroom.platforms import Platform
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Post, PostPart, SandboxDelivery
from pressroom.service.db.session import transaction
from tests.conftest import Service
from tests.service.test_threads import THREADED, assert_one_chain, fail_once, five_parts
from tests.support.publish import deliveries, publish


def record(service: Service) -> Post:
    with transaction(service.sessions, write=False) as db:
        [post] = db.scalars(select(Post))
        return post


def part_statuses(service: Service) -> list[str]:
    with transaction(service.sessions, write=False) as db:
        return list(db.scalars(select(PostPart.status).order_by(PostPart.index)))


@pytest.mark.parametrize("platform", THREADED)
@pytest.mark.parametrize(("words", "settled"), [("part 5", "published"), ("part 3", "partial")])
def test_the_reconciler_finds_a_later_part_of_unknown_outcome(
    service: Service, platform: Platform, words: str, settled: str
) -> None:
    """The part reached the network, its answer was lost: the pass finds it. The last
    part found, the post is published; an earlier one, the parts after it never went
    out, so the post is partial and a retry with the key sends only them."""
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = five_parts(account, platform)
    fail_once(service, platform, words, "after")
    cut = publish(account, platform, body, key="reconcile")
    assert cut.status_code == 503, cut.text
    assert record(service).status == "unknown"
    reached = int(words.split()[1])
    assert len(deliveries(service)) == reached

    reconciler = service.client.app.state.reconciler  # type: ignore[attr-defined]
    assert reconciler.reconcile() == 1
    post = record(service)
    assert post.status == settled
    assert part_statuses(service) == ["published"] * reached
    assert len(deliveries(service)) == reached  # the pass sends nothing
    assert reconciler.reconcile() == 0

    again = publish(account, platform, body, key="reconcile")
    assert again.status_code == 200, again.text
    assert again.json()["recordId"] == post.id
    assert_one_chain(service, 5)
    assert [p["status"] for p in again.json()["parts"]] == ["published"] * 5


@pytest.mark.parametrize("platform", THREADED)
def test_a_part_the_network_never_got_leaves_the_thread_partial_once_the_window_closes(
    service: Service, platform: Platform
) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = five_parts(account, platform)
    fail_once(service, platform, "part 3", "after")
    assert publish(account, platform, body, key="lost").status_code == 503
    with transaction(service.sessions) as db:  # the network lost part 3 after all
        db.execute(
            delete(SandboxDelivery).where(
                SandboxDelivery.payload["fields"]["text"].as_string() == "part 3"
            )
        )
    assert len(deliveries(service)) == 2

    reconciler = service.client.app.state.reconciler  # type: ignore[attr-defined]
    assert reconciler.reconcile() == 0  # within the window: it may show yet
    assert record(service).status == "unknown"
    assert part_statuses(service) == ["published", "published", "unknown"]

    long_ago = utcnow() - timedelta(minutes=20)
    with transaction(service.sessions) as db:
        db.execute(update(Post).values(created_at=long_ago))
        db.execute(update(PostPart).values(created_at=long_ago))
    assert reconciler.reconcile() == 1
    assert record(service).status == "partial"
    assert part_statuses(service) == ["published", "published", "failed"]

    again = publish(account, platform, body, key="lost")
    assert again.status_code == 200, again.text
    assert_one_chain(service, 5)
    assert [p["status"] for p in again.json()["parts"]] == ["published"] * 5
