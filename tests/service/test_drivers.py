"""The sandbox drivers: one per label, platform-shaped answers, and their knobs."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pressroom.platforms import MediaKind, Platform
from pressroom.service.db.base import utcnow
from pressroom.service.drivers import build_drivers
from pressroom.service.drivers.base import (
    Account,
    Delivery,
    Media,
    PlatformUnavailable,
    ThumbnailChange,
)
from pressroom.settings import SandboxSettings, Settings
from tests.conftest import Service
from tests.support.publish import deliveries


def delivery(text: str = "hello") -> Delivery:
    return Delivery(
        platform=Platform.MICROBLOG,
        account=Account("conn_1", "@acme"),
        fields={"text": text},
        media=None,
        reference="post_1",
    )


def outcomes(service: Service, count: int) -> list[str]:
    """Publish ``count`` times on fresh drivers; each outcome is an id or ``failed``."""
    drivers = build_drivers(service.settings, service.sessions)
    seen = []
    for index in range(count):
        try:
            seen.append(drivers[Platform.MICROBLOG].publish(delivery(str(index))).platform_post_id)
        except PlatformUnavailable:
            seen.append("failed")
    return seen


def test_one_driver_per_label(service: Service) -> None:
    drivers = build_drivers(service.settings, service.sessions)
    assert set(drivers) == set(Platform)
    assert all(driver.platform == platform for platform, driver in drivers.items())


def test_a_seed_makes_ids_and_failures_repeatable(service: Service) -> None:
    service.settings.sandbox.sandbox_seed = 7
    service.settings.sandbox.sandbox_failure_rate = 0.5
    first, second = outcomes(service, 12), outcomes(service, 12)
    assert first == second
    assert "failed" in first and any(o != "failed" for o in first)
    service.settings.sandbox.sandbox_seed = 8
    assert outcomes(service, 12) != first


def test_failure_before_sending_leaves_no_trace(service: Service) -> None:
    service.settings.sandbox.sandbox_failure_rate = 1.0
    driver = build_drivers(service.settings, service.sessions)[Platform.MICROBLOG]
    with pytest.raises(PlatformUnavailable) as failure:
        driver.publish(delivery())
    assert failure.value.sent is False and failure.value.retry_after >= 1
    assert deliveries(service) == []


def test_failure_after_sending_leaves_the_post_on_the_platform(service: Service) -> None:
    service.settings.sandbox.sandbox_failure_rate = 1.0
    service.settings.sandbox.sandbox_failure_mode = "after"
    drivers = build_drivers(service.settings, service.sessions)
    with pytest.raises(PlatformUnavailable) as failure:
        drivers[Platform.MICROBLOG].publish(delivery("it went out"))
    assert failure.value.sent is True
    [record] = deliveries(service)
    assert record.payload["fields"] == {"text": "it went out"}

    image = Media("file_1", MediaKind.IMAGE, "image/png", "key")
    with pytest.raises(PlatformUnavailable):
        drivers[Platform.VIDEO_SHARING].set_thumbnail(
            ThumbnailChange(Account("conn_2", "Acme TV"), "abcdefghijk", image)
        )
    assert len(deliveries(service, kind="thumbnail")) == 1


def test_page_ids_are_stable_per_page(service: Service) -> None:
    driver = build_drivers(service.settings, service.sessions)[Platform.PAGE_SOCIAL]
    page = Account("conn_page", "Acme Page")
    ids = [
        driver.publish(Delivery(Platform.PAGE_SOCIAL, page, {}, None, f"post_{i}")).platform_post_id
        for i in range(2)
    ]
    assert ids[0].split("_")[0] == ids[1].split("_")[0]
    assert ids[0] != ids[1]


def test_the_knobs_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESSROOM_SANDBOX_LATENCY_MS", "250")
    monkeypatch.setenv("PRESSROOM_SANDBOX_FAILURE_RATE", "0.25")
    monkeypatch.setenv("PRESSROOM_SANDBOX_FAILURE_MODE", "after")
    monkeypatch.setenv("PRESSROOM_SANDBOX_SEED", "42")
    monkeypatch.setenv("PRESSROOM_IDEMPOTENCY_WAIT_SECONDS", "2.5")
    knobs = SandboxSettings()
    assert (knobs.sandbox_latency_ms, knobs.sandbox_failure_rate) == (250, 0.25)
    assert (knobs.sandbox_failure_mode, knobs.sandbox_seed) == ("after", 42)
    assert Settings().idempotency_wait_seconds == 2.5
    monkeypatch.setenv("PRESSROOM_SANDBOX_FAILURE_RATE", "1.5")
    with pytest.raises(ValueError, match="less than or equal to 1"):
        SandboxSettings()


@pytest.mark.parametrize(("dedupe", "expected"), [(True, 1), (False, 2)])
def test_dedupe_by_client_token_can_be_turned_off(
    service: Service, dedupe: bool, expected: int
) -> None:
    service.settings.sandbox.sandbox_dedupe = dedupe
    driver = build_drivers(service.settings, service.sessions)[Platform.MICROBLOG]
    tokened = Delivery(
        Platform.MICROBLOG,
        Account("conn_1", "@acme"),
        {"text": "hi"},
        None,
        "post_1",
        dedup_key="tok",
    )
    driver.publish(tokened)
    driver.publish(tokened)
    assert len(deliveries(service)) == expected


def test_find_delivery_searches_the_accounts_posts_by_content_since_the_send(
    service: Service,
) -> None:
    driver = build_drivers(service.settings, service.sessions)[Platform.MICROBLOG]
    before = utcnow()
    sent = driver.publish(delivery("launch day"))
    found = driver.find_delivery(delivery("launch day"), before)
    assert found is not None and found.platform_post_id == sent.platform_post_id
    assert driver.find_delivery(delivery("other words"), before) is None
    elsewhere = Delivery(
        Platform.MICROBLOG, Account("conn_2", "@x"), {"text": "launch day"}, None, "p"
    )
    assert driver.find_delivery(elsewhere, before) is None
    assert driver.find_delivery(delivery("launch day"), utcnow() + timedelta(minutes=1)) is None


def test_dedupe_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESSROOM_SANDBOX_DEDUPE", "0")
    assert SandboxSettings().sandbox_dedupe is False
