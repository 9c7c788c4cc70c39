"""The campaigns an account's posts came from, read from the posts' ``campaign`` columns:
what the Campaigns page lists even when Prefect is out of reach."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pressroom.service.db.models import Post


@dataclass
class RunSummary:
    flow_run_id: str
    edition: str | None
    counts: dict[str, int] = field(default_factory=dict)
    """Posts per status."""
    last_at: datetime | None = None


@dataclass
class CampaignSummary:
    name: str
    editions: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    """Posts per status, every edition together."""
    runs: list[RunSummary] = field(default_factory=list)
    """Newest first."""
    last_at: datetime | None = None

    @property
    def last_run(self) -> RunSummary | None:
        return self.runs[0] if self.runs else None


def campaigns(db: Session, account_id: str) -> list[CampaignSummary]:
    """Every campaign seen on the account's posts, most recently active first."""
    rows = db.execute(
        select(
            Post.campaign_name,
            Post.campaign_edition,
            Post.campaign_flow_run_id,
            Post.status,
            func.count(),
            func.max(Post.created_at),
        )
        .where(Post.account_id == account_id, Post.campaign_name.is_not(None))
        .group_by(Post.campaign_name, Post.campaign_edition, Post.campaign_flow_run_id, Post.status)
    ).all()
    found: dict[str, CampaignSummary] = {}
    runs: dict[tuple[str, str], RunSummary] = {}
    for name, edition, run_id, status, count, last in rows:
        summary = found.setdefault(name, CampaignSummary(name))
        if edition and edition not in summary.editions:
            summary.editions.append(edition)
        summary.counts[status] = summary.counts.get(status, 0) + count
        summary.last_at = max(filter(None, (summary.last_at, last)), default=None)
        if run_id:
            run = runs.setdefault((name, run_id), RunSummary(run_id, edition))
            run.counts[status] = run.counts.get(status, 0) + count
            run.last_at = max(filter(None, (run.last_at, last)), default=None)
    for (name, _), run in runs.items():
        found[name].runs.append(run)
    for summary in found.values():
        summary.editions.sort()
        summary.runs.sort(key=_newest, reverse=True)
    return sorted(found.values(), key=_newest, reverse=True)


def run_counts(db: Session, account_id: str, flow_run_ids: list[str]) -> dict[str, dict[str, int]]:
    """Posts per status of each of these Prefect flow runs (the calendar's counts)."""
    if not flow_run_ids:
        return {}
    rows = db.execute(
        select(Post.campaign_flow_run_id, Post.status, func.count())
        .where(Post.account_id == account_id, Post.campaign_flow_run_id.in_(flow_run_ids))
        .group_by(Post.campaign_flow_run_id, Post.status)
    ).all()
    counts: dict[str, dict[str, int]] = {}
    for run_id, status, count in rows:
        counts.setdefault(run_id, {})[status] = count
    return counts


def _newest(item: CampaignSummary | RunSummary) -> float:
    return item.last_at.timestamp() if item.last_at else 0.0
