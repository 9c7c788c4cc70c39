"""SQL for metric snapshots, each post's metrics standing, and refresh rounds."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, exists, select, update
from sqlalchemy.orm import Session

from pressroom.service.db.models import (
    MetricRound,
    MetricSnapshot,
    PeriodicLease,
    Post,
    PostMetricsState,
    PostPart,
)
from pressroom.service.drivers.base import PostMetrics
from pressroom.statuses import PartKind, PostStatus

FIGURES = tuple(field.name for field in fields(PostMetrics))
"""The figures a snapshot keeps, in ``PostMetrics``'s order (its one source)."""

RUNNING = "running"
DONE = "done"
FAILED = "failed"


def figures_of(snapshot: MetricSnapshot) -> dict[str, int | None]:
    return {name: getattr(snapshot, name) for name in FIGURES}


@dataclass(frozen=True)
class PostFilter:
    """Which of an account's published posts a round asks about."""

    published_since: datetime | None = None
    record_ids: tuple[str, ...] = ()
    campaign: str | None = None


class MetricsRepository:
    def __init__(self, db: Session) -> None:
        self.db = db

    # Snapshots and a post's standing.

    def add_snapshot(
        self, post_id: str, metrics: PostMetrics, taken_at: datetime, *, part_index: int = 0
    ) -> MetricSnapshot:
        snapshot = MetricSnapshot(
            post_id=post_id,
            part_index=part_index,
            taken_at=taken_at,
            **{name: getattr(metrics, name) for name in FIGURES},
        )
        self.db.add(snapshot)
        state = self._state(post_id)
        state.refreshed_at = taken_at
        state.unavailable_reason = None
        state.unavailable_at = None
        state.unavailable_final = False
        self.db.flush()
        return snapshot

    def mark_unavailable(self, post_id: str, reason: str, at: datetime, *, final: bool) -> None:
        state = self._state(post_id)
        state.refreshed_at = at
        state.unavailable_reason = reason
        state.unavailable_at = at
        state.unavailable_final = final
        self.db.flush()

    def mark_asked(self, post_id: str, at: datetime) -> None:
        """Asked, and the network could not answer now: it goes to the back of the queue."""
        self._state(post_id).refreshed_at = at
        self.db.flush()

    def _state(self, post_id: str) -> PostMetricsState:
        state = self.db.get(PostMetricsState, post_id)
        if state is None:
            state = PostMetricsState(post_id=post_id, unavailable_final=False)
            self.db.add(state)
        return state

    def state(self, post_id: str) -> PostMetricsState | None:
        return self.db.get(PostMetricsState, post_id)

    def series(self, post_id: str, *, part_index: int = 0) -> list[MetricSnapshot]:
        """Oldest first."""
        return list(
            self.db.scalars(
                select(MetricSnapshot)
                .where(MetricSnapshot.post_id == post_id, MetricSnapshot.part_index == part_index)
                .order_by(MetricSnapshot.taken_at, MetricSnapshot.id)
            )
        )

    def measured_parts(self, post_id: str) -> list[tuple[int, str]]:
        """The parts after the first whose figures are read (index, network id): a
        thread's published replies, each a post of its own on the network."""
        rows = self.db.execute(
            select(PostPart.index, PostPart.platform_post_id)
            .where(
                PostPart.post_id == post_id,
                PostPart.index > 0,
                PostPart.kind == PartKind.REPLY.value,
                PostPart.status == PostStatus.PUBLISHED.value,
                PostPart.platform_post_id.is_not(None),
            )
            .order_by(PostPart.index)
        )
        return [(index, str(part_id)) for index, part_id in rows.tuples()]

    def latest_per_part(self, post_id: str) -> list[MetricSnapshot]:
        """The newest snapshot of each part of the post that has one, part 0 first."""
        rows = self.db.scalars(
            select(MetricSnapshot)
            .where(MetricSnapshot.post_id == post_id)
            .order_by(
                MetricSnapshot.part_index, MetricSnapshot.taken_at.desc(), MetricSnapshot.id.desc()
            )
        )
        latest: dict[int, MetricSnapshot] = {}
        for row in rows:
            latest.setdefault(row.part_index, row)
        return list(latest.values())

    def candidates(
        self, account_id: str, platform: str, chosen: PostFilter, limit: int
    ) -> list[Post]:
        """The account's published posts on ``platform`` a round may ask about, the
        longest unasked first (never asked before all), those the network will never
        answer for left out."""
        query = (
            select(Post)
            .outerjoin(PostMetricsState, PostMetricsState.post_id == Post.id)
            .where(
                Post.account_id == account_id,
                Post.platform == platform,
                Post.status.in_((PostStatus.PUBLISHED.value, PostStatus.PARTIAL.value)),
                Post.platform_post_id.is_not(None),
                (PostMetricsState.unavailable_final.is_(None))
                | (PostMetricsState.unavailable_final.is_(False)),
            )
        )
        if chosen.published_since is not None:
            query = query.where(Post.published_at >= chosen.published_since)
        if chosen.record_ids:
            query = query.where(Post.id.in_(chosen.record_ids))
        if chosen.campaign is not None:
            query = query.where(Post.campaign_name == chosen.campaign)
        query = query.order_by(
            PostMetricsState.refreshed_at.is_not(None),
            PostMetricsState.refreshed_at,
            Post.published_at,
            Post.id,
        ).limit(limit)
        return list(self.db.scalars(query))

    def platforms_with_posts(self, account_id: str) -> list[str]:
        return sorted(
            self.db.scalars(
                select(Post.platform)
                .where(Post.account_id == account_id, Post.platform_post_id.is_not(None))
                .distinct()
            )
        )

    def campaign_latest(self, account_id: str, name: str) -> list[tuple[Post, MetricSnapshot]]:
        """Each measured part of the campaign's posts with its newest snapshot (a post
        without parts: part 0 alone; a thread: each of its parts read)."""
        rows = self.db.execute(
            select(Post, MetricSnapshot)
            .join(MetricSnapshot, MetricSnapshot.post_id == Post.id)
            .where(Post.account_id == account_id, Post.campaign_name == name)
            .order_by(
                Post.created_at,
                Post.id,
                MetricSnapshot.part_index,
                MetricSnapshot.taken_at.desc(),
                MetricSnapshot.id.desc(),
            )
        )
        latest: dict[tuple[str, int], tuple[Post, MetricSnapshot]] = {}
        for post, snapshot in rows.tuples():
            latest.setdefault((post.id, snapshot.part_index), (post, snapshot))
        return list(latest.values())

    def campaign_posts(self, account_id: str, name: str) -> int:
        return len(
            list(
                self.db.scalars(
                    select(Post.id).where(Post.account_id == account_id, Post.campaign_name == name)
                )
            )
        )

    # Rounds.

    def add_round(self, round_: MetricRound) -> MetricRound:
        self.db.add(round_)
        self.db.flush()
        return round_

    def get_round(self, account_id: str, round_id: str) -> MetricRound | None:
        return self.db.scalar(
            select(MetricRound).where(
                MetricRound.id == round_id, MetricRound.account_id == account_id
            )
        )

    def drop_round(self, round_id: str) -> None:
        """A round that never ran: another was running."""
        self.db.execute(delete(MetricRound).where(MetricRound.id == round_id))

    def finish_round(
        self, round_id: str, status: str, networks: dict[str, Any], at: datetime
    ) -> None:
        """Only a running round: one already found abandoned stays ``failed``."""
        self.db.execute(
            update(MetricRound)
            .where(and_(MetricRound.id == round_id, MetricRound.status == RUNNING))
            .values(status=status, networks=networks, finished_at=at)
        )

    def add_round_lease(self, round_id: str, name: str, expires_at: datetime) -> None:
        """The round's own lease, written with its row: never a moment when the round
        runs without one."""
        self.db.add(PeriodicLease(name=name, owner=round_id, expires_at=expires_at))
        self.db.flush()

    def running_rounds(self, account_id: str) -> list[str]:
        return list(
            self.db.scalars(
                select(MetricRound.id).where(
                    MetricRound.account_id == account_id, MetricRound.status == RUNNING
                )
            )
        )

    def abandon_if_dead(self, round_id: str, lease: str, now: datetime) -> bool:
        """Fail the round if it is running and its lease ran out unrenewed (or is gone),
        and free every lease it held; one conditional ``UPDATE``, so a round that
        finished meanwhile (its status written before its lease is released) is left
        as it is."""
        live = exists().where(PeriodicLease.name == lease, PeriodicLease.expires_at >= now)
        failed = self.db.execute(
            update(MetricRound)
            .where(MetricRound.id == round_id, MetricRound.status == RUNNING, ~live)
            .values(status=FAILED, finished_at=now)
            .execution_options(synchronize_session=False)
        )
        if failed.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult
            return False
        self.db.execute(delete(PeriodicLease).where(PeriodicLease.owner == round_id))
        return True

    def renew_leases(
        self, round_ids: Collection[str], lease_names: Collection[str], until: datetime
    ) -> set[str]:
        """Extend every lease the rounds hold (their own and their networks'); the
        names of their own leases still there (a missing one: the round was found
        abandoned, and stops)."""
        self.db.execute(
            update(PeriodicLease)
            .where(PeriodicLease.owner.in_(round_ids))
            .values(expires_at=until)
            .execution_options(synchronize_session=False)
        )
        return set(
            self.db.scalars(select(PeriodicLease.name).where(PeriodicLease.name.in_(lease_names)))
        )

    def rounds_of(self, round_ids: Collection[str]) -> list[MetricRound]:
        return list(self.db.scalars(select(MetricRound).where(MetricRound.id.in_(round_ids))))
