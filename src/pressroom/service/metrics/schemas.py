"""Bodies of the metrics routes (our extension to the spec)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pressroom.platforms import Platform
from pressroom.service.schemas import CamelModel, RequestModel, Timestamp

MAX_SINCE_DAYS = 365
MAX_RECORD_IDS = 500
PLATFORM_ENUM: dict[str, Any] = {"enum": [p.value for p in Platform]}


class RefreshRequest(RequestModel):
    """Which of the caller's published posts a round asks about; every filter given
    must hold (none: every published post). Per network, the posts never asked come
    first, then the longest unasked, up to the network's budget per round."""

    since_days: int | None = Field(
        None,
        ge=1,
        le=MAX_SINCE_DAYS,
        description="Only posts published in the last this many days.",
    )
    record_ids: list[str] | None = Field(
        None,
        min_length=1,
        max_length=MAX_RECORD_IDS,
        description="Only these post records (`recordId` of a publish result); an id "
        "not in the account is a 404 `post_not_found`.",
    )
    campaign: str | None = Field(
        None, min_length=1, description="Only the posts of this campaign (`campaign.name`)."
    )


class NetworkRound(CamelModel):
    refreshed: int = Field(description="Posts whose figures were read and kept.")
    unavailable: int = Field(description="Posts whose network gives no figures (why: per post).")
    failed: int = Field(description="Posts the network could not answer for now: next round.")
    budget: int = Field(
        description="The most reads a round asks this network for (one per post, and "
        "one per reply of a thread)."
    )
    asked: int = Field(description="Calls made to the network; never over `budget`.")
    stopped: str | None = Field(description="Why the network's part ended early (a rate limit).")


class MetricsRound(CamelModel):
    round_id: str
    status: str = Field(
        description="`running`, then `done`; `failed` when an error ended the round or "
        "its process stopped (its lease, renewed while it runs, ran out: the round is "
        "found abandoned by the next read of it or refresh of the account, which then "
        "starts a new one; the figures it read are kept).",
        json_schema_extra={"enum": ["running", "done", "failed"]},
    )
    running_already: bool = Field(
        False,
        description="True when this call found the account's round running and answers "
        "with it instead of starting another.",
    )
    filters: dict[str, Any]
    networks: dict[str, NetworkRound] = Field(
        description="Per network label with posts in the round, once it is done."
    )
    started_at: Timestamp
    finished_at: Timestamp | None


class RoundResponse(CamelModel):
    success: bool = True
    round: MetricsRound


class Figures(CamelModel):
    impressions: int | None
    views: int | None
    likes: int | None
    comments: int | None
    shares: int | None
    saves: int | None
    clicks: int | None


class Snapshot(Figures):
    taken_at: Timestamp
    part_index: int = Field(description="The part of the post the figures are for (0: the post).")


class PartReading(CamelModel):
    """A part's newest figures: what the ``post.metrics`` event carries of each part."""

    index: int = Field(description="The part's index in the post's `parts` (from 0).")
    kind: str | None = Field(description="The part's kind (`reply`: a thread's reply).")
    platform_post_id: str | None
    latest: Snapshot


class PartMetrics(PartReading):
    series: list[Snapshot] = Field(description="Every snapshot of this part, oldest first.")


class PostMetricsResponse(CamelModel):
    success: bool = True
    record_id: str
    platform: str = Field(json_schema_extra=PLATFORM_ENUM)
    available: bool = Field(
        description="False when the network gives no figures for this post; "
        "`unavailableReason` says why."
    )
    unavailable_reason: str | None
    refreshed_at: Timestamp | None = Field(description="When a round last asked; null: never.")
    latest: Snapshot | None
    series: list[Snapshot] = Field(description="Every snapshot of part 0, oldest first.")
    parts: list[PartMetrics] = Field(
        default_factory=list,
        description="The figures of the post's other parts the network counts on their "
        "own: a thread's replies (each a post on the network). A carousel is one post "
        "(its figures are part 0's) and a first comment's figures are not the post's: "
        "neither is listed.",
    )
    totals: Figures | None = Field(
        None,
        description="The post's figures: the latest of part 0 plus the latest of each "
        "part listed in `parts` (a thread's replies); the same as `latest` for a post "
        "of one part. Campaign totals sum these. Null before the first reading.",
    )


class NetworkTotals(CamelModel):
    platform: str = Field(json_schema_extra=PLATFORM_ENUM)
    posts: int = Field(description="Posts with figures, each counted by its latest snapshot.")
    totals: Figures = Field(
        description="Sums of each post's `totals` (its latest figures, a thread's replies "
        "included); null where no post's network counts it."
    )


class EditionTotals(CamelModel):
    edition: str | None
    networks: list[NetworkTotals]


class CampaignMetricsResponse(CamelModel):
    success: bool = True
    campaign: str
    posts: int = Field(description="The campaign's post records, measured or not.")
    measured: int = Field(description="Those with at least one snapshot.")
    networks: list[NetworkTotals]
    editions: list[EditionTotals]
