"""Where a key's rate-limit count lives follows the database (``pressroom.service.ratelimit``):
in each process's memory on SQLite, the one-process embedded default; in the database on
PostgreSQL, so every process and replica counts against the same window."""

from __future__ import annotations

import math

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from pressroom.service.app import create_app
from pressroom.service.db.models import RateLimitWindow
from pressroom.service.db.session import transaction
from pressroom.service.ratelimit import WINDOW_SECONDS, FixedWindowLimiter, SharedLimiter
from pressroom.settings import Settings
from tests.conftest import Service

LIMITED = "/api/connections/unified"


def test_the_count_lives_where_the_processes_meet(settings: Settings, service: Service) -> None:
    limiter = service.client.app.state.rate_limiter  # type: ignore[attr-defined]
    on_postgres = settings.database_url.startswith("postgresql")
    assert isinstance(limiter, SharedLimiter if on_postgres else FixedWindowLimiter)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_on_sqlite_each_process_counts_in_its_own_memory(settings: Settings) -> None:
    """Past its limit a key gets 429 ``rate_limited`` with ``Retry-After`` from the app that
    counted it; another app on the same database file (as a second process would be)
    counts the same key from zero; and no count is written to the database."""
    limited = settings.model_copy(update={"rate_limit_per_minute": 3})
    first, second = create_app(limited), create_app(limited, migrate=False)
    with TestClient(first) as one, TestClient(second) as two:
        account = Service(one, first.state.session_factory, limited).account()
        answers = [one.get(LIMITED, headers=account.headers) for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        refused = answers[-1]
        assert refused.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(refused.headers["Retry-After"]) <= math.ceil(WINDOW_SECONDS)
        answers = [two.get(LIMITED, headers=account.headers) for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        assert one.get(LIMITED, headers=account.headers).status_code == 429  # still its window
        with transaction(first.state.session_factory, write=False) as db:
            assert db.scalar(select(func.count()).select_from(RateLimitWindow)) == 0
    first.state.engine.dispose()
    second.state.engine.dispose()


def test_an_in_memory_window_starts_afresh_once_it_has_passed() -> None:
    """The fixed window: what is left of it is the wait, and when it has passed the key
    counts from zero again."""
    limiter = FixedWindowLimiter(per_minute=2)
    assert limiter.hit("key", now=100.0) is None
    assert limiter.hit("key", now=110.0) is None
    assert limiter.hit("key", now=130.0) == pytest.approx(WINDOW_SECONDS - 30.0)
    assert limiter.hit("other", now=130.0) is None  # each key has its own window
    assert limiter.hit("key", now=100.0 + WINDOW_SECONDS) is None
    assert limiter.hit("key", now=101.0 + WINDOW_SECONDS) is None
    assert limiter.hit("key", now=102.0 + WINDOW_SECONDS) is not None


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
            client.get(LIMITED, headers=account.headers).status_code
            for client in (service.client, other, service.client, other)
        ]
    replica.state.engine.dispose()
    assert answers == [200, 200, 200, 429]
