"""On PostgreSQL, every process on the database counts against the same window."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from pressroom.service.app import create_app
from pressroom.service.ratelimit import FixedWindowLimiter, SharedLimiter
from pressroom.settings import Settings
from tests.conftest import Service


def test_the_count_lives_where_the_processes_meet(settings: Settings, service: Service) -> None:
    limiter = service.client.app.state.rate_limiter  # type: ignore[attr-defined]
    on_postgres = settings.database_url.startswith("postgresql")
    assert isinstance(limiter, SharedLimiter if on_postgres else FixedWindowLimiter)


@pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
def test_two_processes_on_one_database_share_a_keys_window(
    settings: Settings, service: Service
) -> None:
    account = service.account()
    replica = create_app(settings.model_copy(update={"rate_limit_per_minute": 3}), migrate=False)
    service.client.app.state.rate_limiter.per_minute = 3  # type: ignore[attr-defined]
    with TestClient(replica) as other:
        answers = [
            client.get("/api/connections/unified", headers=account.headers).status_code
            for client in (service.client, other, service.client, other)
        ]
    replica.state.engine.dispose()
    assert answers == [200, 200, 200, 429]
