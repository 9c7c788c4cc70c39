"""The client's metrics methods against the real app over HTTP: a round started, waited
for, and its figures read back, blocking and async alike."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from pressroom.client import AsyncClient, Client, NotFoundError, ValidationError
from pressroom.platforms import Platform
from tests.conftest import AccountHandle, Service
from tests.support.publish import publish, valid_body


def published(account: AccountHandle, platform: Platform) -> str:
    campaign = {"name": "launch", "edition": "e1", "postId": platform.value, "flowRunId": "r"}
    response = publish(account, platform, valid_body(account, platform, campaign=campaign))
    assert response.status_code == 200, response.text
    record_id: str = response.json()["recordId"]
    return record_id


def test_a_round_is_started_waited_for_and_read_back(
    service: Service, client_for: Callable[..., Client]
) -> None:
    account = service.account()
    micro = published(account, Platform.MICROBLOG)
    video = published(account, Platform.VIDEO_SHARING)
    client = client_for(account)
    started = client.refresh_metrics(since_days=7, campaign="launch")
    assert started.round_id and started.filters == {"sinceDays": 7, "campaign": "launch"}
    done = client.wait_for_metrics_round(started.round_id, timeout=30, interval=0.05)
    assert done.status == "done" and done.networks["microblog"].refreshed == 1
    figures = client.post_metrics(micro)
    assert figures.available and figures.latest is not None and len(figures.series) == 1
    assert figures.latest.impressions is not None and figures.latest.views is None
    assert client.post_metrics(video).latest.views is not None  # type: ignore[union-attr]
    totals = client.campaign_metrics("launch")
    assert totals.measured == 2
    assert {n.platform: n.totals.likes for n in totals.networks} == {
        "microblog": figures.latest.likes,
        "video_sharing": client.post_metrics(video).latest.likes,  # type: ignore[union-attr]
    }
    with pytest.raises(ValidationError) as refused:
        client.refresh_metrics(since_days=0)
    assert refused.value.field == "sinceDays"
    with pytest.raises(NotFoundError) as missing:
        client.campaign_metrics("never")
    assert missing.value.code == "campaign_not_found"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_async_client_reads_the_same(service: Service, anyio_backend: str) -> None:
    account = service.account()
    record_id = published(account, Platform.PIN_BOARD)
    transport = httpx.ASGITransport(app=service.client.app)
    async with (
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as http,
        AsyncClient(api_key=account.key, http_client=http) as client,
    ):
        started = await client.refresh_metrics(record_ids=[record_id])
        done = await client.wait_for_metrics_round(started.round_id, timeout=30, interval=0.05)
        assert done.networks["pin_board"].asked == 1
        figures = await client.post_metrics(record_id)
        assert figures.latest is not None and figures.latest.saves is not None
