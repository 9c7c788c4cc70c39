"""The ``collect-metrics`` flow: the service reads the networks' figures of the posts of
the last days, and each campaign's totals become an artifact in the Prefect UI.

Deployed hourly (``prefect.yaml``). It stays thin: the round runs in the service (which
alone holds the networks' tokens, and keeps each network within its budget per round);
the reading is ``pressroom.pipeline.metrics``.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run from the checkout by file path (as Prefect's examples are): make `tasks` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact

from pressroom.pipeline import metrics
from pressroom.pipeline.flow_parameters import plain_parameters
from tasks.common import client

DEFAULT_DAYS = 7
ROUND_TIMEOUT_SECONDS = 1800.0


@task(name="refresh-metrics", retries=2, retry_delay_seconds=10)
def refresh_and_read(days: int, poll_seconds: float) -> metrics.Collected:
    return metrics.collect(
        client(), days=days, timeout=ROUND_TIMEOUT_SECONDS, interval=poll_seconds
    )


@plain_parameters
@flow(name="collect-metrics")
def collect_metrics(days: int = DEFAULT_DAYS, poll_seconds: float = 2.0) -> dict[str, object]:
    """Refresh the metrics of the posts published in the last ``days`` and write a table
    per campaign; returns the round's counts per network."""
    collected = refresh_and_read(days, poll_seconds)
    for campaign in collected.campaigns:
        create_markdown_artifact(
            key=metrics.artifact_key(campaign.campaign),
            markdown=metrics.campaign_table(campaign),
            description=f"Metrics of campaign {campaign.campaign}",
        )
    networks = {k: v.model_dump() for k, v in collected.round.networks.items()}
    # The run's logger, not print: the line reaches the flow run's logs in Prefect without
    # patching print for the whole run.
    get_run_logger().info(
        "metrics round %s: %s, %s", collected.round.round_id, collected.round.status, networks
    )
    return {
        "roundId": collected.round.round_id,
        "status": collected.round.status,
        "networks": networks,
    }


if __name__ == "__main__":
    collect_metrics()
