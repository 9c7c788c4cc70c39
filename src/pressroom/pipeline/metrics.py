"""What the ``collect-metrics`` flow does, without Prefect: start a metrics round for
the posts of the last days, wait for it, and read each campaign's figures back.

The service asks the networks itself (their tokens never leave it); this side only
starts the round and reads. A campaign's table lists its totals per edition and
network as ``GET /api/campaigns/{name}/metrics`` sums them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pressroom.client import CampaignMetrics, Client, MetricsRound

FIGURES = ("impressions", "views", "likes", "comments", "shares", "saves", "clicks")
"""The columns of a table, in the API's order."""


@dataclass(frozen=True)
class Collected:
    round: MetricsRound
    campaigns: list[CampaignMetrics]


def campaigns_since(client: Client, days: int) -> list[str]:
    """The campaign names of the account's posts made in the last ``days``, in the
    order first seen (newest first)."""
    since = datetime.now(UTC) - timedelta(days=days)
    names: dict[str, None] = {}
    for post in client.iter_posts():
        if post.created_at is not None and post.created_at < since:
            break  # newest first: the rest are older
        if post.campaign is not None and post.campaign.name:
            names.setdefault(post.campaign.name)
    return list(names)


def collect(client: Client, *, days: int, timeout: float, interval: float = 1.0) -> Collected:
    started = client.refresh_metrics(since_days=days)
    done = client.wait_for_metrics_round(started.round_id, timeout=timeout, interval=interval)
    return Collected(
        done, [client.campaign_metrics(name) for name in campaigns_since(client, days)]
    )


def _cell(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def campaign_table(metrics: CampaignMetrics) -> str:
    """Markdown: one row per edition and network (— where the network counts nothing)."""
    lines = [
        f"# {metrics.campaign}: metrics",
        "",
        f"{metrics.measured} of {metrics.posts} posts measured.",
        "",
        "| edition | network | posts | " + " | ".join(FIGURES) + " |",
        "|---|---|---:|" + "---:|" * len(FIGURES),
    ]
    for edition in metrics.editions:
        for network in edition.networks:
            figures = [_cell(getattr(network.totals, name)) for name in FIGURES]
            lines.append(
                f"| {edition.edition or '–'} | {network.platform} | {network.posts} | "
                + " | ".join(figures)
                + " |"
            )
    return "\n".join(lines) + "\n"


def artifact_key(campaign: str) -> str:
    """Prefect artifact keys take lowercase letters, digits and dashes only."""
    slug = re.sub(r"[^a-z0-9-]+", "-", campaign.lower()).strip("-") or "campaign"
    return f"metrics-{slug}"[:100]
