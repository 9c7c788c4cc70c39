"""The metrics reads: a post's series and standing, a campaign's totals."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from sqlalchemy.orm import Session

from pressroom import error_codes
from pressroom.platforms import Platform
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Account, MetricRound, MetricSnapshot
from pressroom.service.errors import ServiceError
from pressroom.service.metrics.repository import FIGURES, MetricsRepository, PostFilter, figures_of
from pressroom.service.metrics.schemas import (
    CampaignMetricsResponse,
    EditionTotals,
    Figures,
    MetricsRound,
    NetworkRound,
    NetworkTotals,
    PartMetrics,
    PartReading,
    PostMetricsResponse,
    RefreshRequest,
    Snapshot,
)
from pressroom.service.publishing.repository import PostRepository


def filter_of(db: Session, account: Account, body: RefreshRequest) -> PostFilter:
    """The round's choice of posts; an unknown record id is named, not ignored."""
    for record_id in body.record_ids or ():
        if PostRepository(db).get(account.id, record_id) is None:
            raise ServiceError(
                error_codes.POST_NOT_FOUND,
                f"recordIds: no post {record_id!r} in this account.",
                field="recordIds",
            )
    return PostFilter(
        published_since=utcnow() - timedelta(days=body.since_days) if body.since_days else None,
        record_ids=tuple(body.record_ids or ()),
        campaign=body.campaign,
    )


def round_json(found: MetricRound, *, running_already: bool = False) -> MetricsRound:
    return MetricsRound(
        round_id=found.id,
        status=found.status,
        running_already=running_already,
        filters=found.filters,
        networks={k: NetworkRound.model_validate(v) for k, v in (found.networks or {}).items()},
        started_at=found.started_at,
        finished_at=found.finished_at,
    )


def get_round(db: Session, account: Account, round_id: str) -> MetricsRound:
    found = MetricsRepository(db).get_round(account.id, round_id)
    if found is None:
        raise ServiceError(
            error_codes.METRICS_ROUND_NOT_FOUND, f"No metrics round {round_id!r} in this account."
        )
    return round_json(found)


def _snapshot(row: MetricSnapshot) -> Snapshot:
    return Snapshot(taken_at=row.taken_at, part_index=row.part_index, **figures_of(row))


def post_metrics(db: Session, account: Account, record_id: str) -> PostMetricsResponse:
    post = PostRepository(db).get(account.id, record_id)
    if post is None:
        raise ServiceError(error_codes.POST_NOT_FOUND, f"No post {record_id!r} in this account.")
    repo = MetricsRepository(db)
    series = [_snapshot(row) for row in repo.series(post.id)]
    readings, totals = latest_readings(db, post.id)
    measured = [
        PartMetrics(
            index=part.index,
            kind=part.kind,
            platform_post_id=part.platform_post_id,
            latest=part.latest,
            series=[_snapshot(row) for row in repo.series(post.id, part_index=part.index)],
        )
        for part in readings
    ]
    state = repo.state(post.id)
    reason = state.unavailable_reason if state is not None else None
    return PostMetricsResponse(
        record_id=post.id,
        platform=post.platform,
        available=reason is None,
        unavailable_reason=reason,
        refreshed_at=state.refreshed_at if state is not None else None,
        latest=series[-1] if series else None,
        series=series,
        parts=measured,
        totals=totals,
    )


def latest_readings(db: Session, post_id: str) -> tuple[list[PartReading], Figures | None]:
    """The post's parts after the first with their newest figures, and its ``totals``
    (the newest of part 0 and of each of those): what ``post.metrics`` carries, the
    same as ``post_metrics`` answers less the series."""
    newest = MetricsRepository(db).latest_per_part(post_id)
    parts = {part.index: part for part in PostRepository(db).parts_of([post_id]).get(post_id, [])}
    readings = [
        PartReading(
            index=row.part_index,
            kind=parts[row.part_index].kind if row.part_index in parts else None,
            platform_post_id=(
                parts[row.part_index].platform_post_id if row.part_index in parts else None
            ),
            latest=_snapshot(row),
        )
        for row in newest
        if row.part_index > 0
    ]
    return readings, _totals(newest) if newest else None


def _totals(rows: Iterable[MetricSnapshot]) -> Figures:
    sums: dict[str, int | None] = dict.fromkeys(FIGURES)
    for row in rows:
        for name in FIGURES:
            value = getattr(row, name)
            if value is not None:
                sums[name] = (sums[name] or 0) + value
    return Figures(**sums)


def _per_network(rows: list[tuple[str, MetricSnapshot]]) -> list[NetworkTotals]:
    by: dict[str, list[MetricSnapshot]] = {}
    for platform, row in rows:
        by.setdefault(platform, []).append(row)
    order = [p.value for p in Platform]
    return [
        NetworkTotals(
            platform=platform, posts=len({s.post_id for s in snaps}), totals=_totals(snaps)
        )
        for platform, snaps in sorted(by.items(), key=lambda item: order.index(item[0]))
    ]


def campaign_metrics(db: Session, account: Account, name: str) -> CampaignMetricsResponse:
    repo = MetricsRepository(db)
    count = repo.campaign_posts(account.id, name)
    if count == 0:
        raise ServiceError(
            error_codes.CAMPAIGN_NOT_FOUND, f"No post of this account carries campaign {name!r}."
        )
    latest = repo.campaign_latest(account.id, name)
    editions: dict[str | None, list[tuple[str, MetricSnapshot]]] = {}
    for post, row in latest:
        editions.setdefault(post.campaign_edition, []).append((post.platform, row))
    return CampaignMetricsResponse(
        campaign=name,
        posts=count,
        measured=len({post.id for post, _ in latest}),
        networks=_per_network([(post.platform, row) for post, row in latest]),
        editions=[
            EditionTotals(edition=edition, networks=_per_network(rows))
            for edition, rows in sorted(editions.items(), key=lambda item: item[0] or "")
        ],
    )
