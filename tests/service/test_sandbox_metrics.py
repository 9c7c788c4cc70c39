"""The sandbox reports a post's figures as a documented function of its id and age:
the same answer for the same moment, growing with time, refused on a revoked token."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from pressroom.platforms import Platform
from pressroom.service.db.models import Post
from pressroom.service.db.session import transaction
from pressroom.service.drivers import drivers_of
from pressroom.service.drivers.base import (
    AccessRevoked,
    Account,
    MetricsDriver,
    MetricsUnsupported,
    PostMetrics,
)
from pressroom.service.drivers.sandbox_metrics import REPORTED
from tests.conftest import Service
from tests.support.publish import publish, valid_body


@pytest.mark.parametrize("platform", list(Platform))
def test_every_label_reports_figures_that_grow_and_repeat(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = valid_body(account, platform)
    response = publish(account, platform, body)
    assert response.status_code == 200, response.text
    with transaction(service.sessions, write=False) as db:
        post = db.get(Post, response.json()["recordId"])
        assert post is not None and post.platform_post_id and post.published_at
    driver = drivers_of(service.client.app)[platform]  # type: ignore[arg-type]
    assert isinstance(driver, MetricsDriver)
    who = Account(body["connectionId"], "someone")
    start = post.published_at

    def at(seconds: float) -> PostMetrics:
        driver.clock = lambda: start + timedelta(seconds=seconds)  # type: ignore[attr-defined]
        return driver.fetch_metrics(who, post.platform_post_id)  # type: ignore[arg-type]

    hour, day = at(3600), at(86400)
    assert at(3600) == hour  # the same moment, the same figures
    counted = {name for name, value in vars(hour).items() if value is not None}
    assert counted == REPORTED[platform]
    for name in counted:
        assert getattr(day, name) >= getattr(hour, name)
    big = max(getattr(day, name) for name in counted)
    assert big >= math.floor(5 * math.sqrt(86400)) // 16 > 0
    with pytest.raises(MetricsUnsupported):
        driver.fetch_metrics(who, "no-such-post")


def test_a_revoked_connection_is_refused(service: Service) -> None:
    account = service.account()
    body = valid_body(account, Platform.MICROBLOG)
    response = publish(account, Platform.MICROBLOG, body)
    with transaction(service.sessions, write=False) as db:
        post = db.get(Post, response.json()["recordId"])
        assert post is not None and post.platform_post_id
    driver = drivers_of(service.client.app)[Platform.MICROBLOG]  # type: ignore[arg-type]
    who = Account(body["connectionId"], "someone")
    assert driver.fetch_metrics(who, post.platform_post_id).impressions is not None  # type: ignore[attr-defined]
    account.move("expire_token", body["connectionId"])
    with pytest.raises(AccessRevoked):
        driver.fetch_metrics(who, post.platform_post_id)  # type: ignore[attr-defined]
