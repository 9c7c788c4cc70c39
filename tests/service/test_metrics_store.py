"""Metric snapshots per post record, and each post's standing: kept on SQLite and
PostgreSQL, read back oldest first, and the longest-unasked post asked first."""

from __future__ import annotations

from datetime import timedelta

from pressroom.platforms import Platform
from pressroom.service.db.base import utcnow
from pressroom.service.db.session import transaction
from pressroom.service.drivers.base import PostMetrics
from pressroom.service.metrics.repository import FIGURES, MetricsRepository, PostFilter
from tests.conftest import Service
from tests.support.publish import publish, valid_body


def test_snapshots_make_a_series_and_the_oldest_asked_post_comes_first(service: Service) -> None:
    account = service.account()
    ids = []
    for _ in range(3):
        response = publish(account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG))
        assert response.status_code == 200, response.text
        ids.append(response.json()["recordId"])
    now = utcnow()
    with transaction(service.sessions) as db:
        repo = MetricsRepository(db)
        repo.add_snapshot(ids[0], PostMetrics(impressions=10, likes=1), now - timedelta(hours=2))
        repo.add_snapshot(ids[0], PostMetrics(impressions=25, likes=3), now - timedelta(hours=1))
        repo.mark_unavailable(ids[1], "the network keeps no figures", now, final=True)
    with transaction(service.sessions, write=False) as db:
        repo = MetricsRepository(db)
        series = repo.series(ids[0])
        assert [(s.impressions, s.likes, s.shares) for s in series] == [
            (10, 1, None),
            (25, 3, None),
        ]
        assert set(FIGURES) == {
            "impressions",
            "views",
            "likes",
            "comments",
            "shares",
            "saves",
            "clicks",
        }
        state = repo.state(ids[1])
        assert state is not None and state.unavailable_reason == "the network keeps no figures"
        # Never asked first, then the longest since asked; a final "not available" never.
        asked = repo.candidates(account.id, Platform.MICROBLOG.value, PostFilter(), 10)
        assert [p.id for p in asked] == [ids[2], ids[0]]
        only = repo.candidates(
            account.id, Platform.MICROBLOG.value, PostFilter(record_ids=(ids[0],)), 10
        )
        assert [p.id for p in only] == [ids[0]]
    with transaction(service.sessions) as db:
        # A snapshot after a "not available" clears it.
        MetricsRepository(db).add_snapshot(ids[1], PostMetrics(likes=2), now)
    with transaction(service.sessions, write=False) as db:
        state = MetricsRepository(db).state(ids[1])
        assert state is not None and state.unavailable_reason is None
