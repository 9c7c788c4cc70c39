"""Deployments of the ``run-campaign`` flow, one per scheduled campaign file.

``python -m pressroom.pipeline.deployments DIR`` serves them (Prefect's ``serve``: a
long-lived process that runs each flow run when its schedule comes due). ``pressroom
serve`` supervises that process and restarts it when the campaign files change.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pressroom.pipeline.runner import ENTRYPOINT, project_root


@dataclass(frozen=True)
class ScheduledCampaign:
    file: Path
    name: str
    cron: str
    timezone: str


def scheduled_campaigns(directory: Path) -> tuple[list[ScheduledCampaign], list[str]]:
    """The valid campaigns with a schedule, and a line for each file that was left out."""
    from pressroom.campaign import validate_files

    files = sorted(p for p in directory.glob("*.y*ml") if p.suffix in (".yaml", ".yml"))
    found: list[ScheduledCampaign] = []
    left_out: list[str] = []
    for report in validate_files(files):
        campaign = report.campaign
        if campaign is None:
            left_out.append(f"{report.file}: {len(report.errors)} error(s); fix them to serve it")
        elif campaign.schedule is not None:
            found.append(
                ScheduledCampaign(
                    campaign.file, campaign.name, campaign.schedule.cron, campaign.schedule.timezone
                )
            )
    return found, left_out


def build(campaigns: list[ScheduledCampaign]) -> list[Any]:
    """Prefect ``RunnerDeployment``s: the flow from the checkout, parameters per campaign."""
    from prefect import Flow, flow
    from prefect.schedules import Cron

    root = project_root()
    source = flow.from_source(source=str(root), entrypoint=ENTRYPOINT)
    assert isinstance(source, Flow)  # from_source is synchronous outside an event loop
    return [
        source.to_deployment(
            name=c.name,
            schedule=Cron(c.cron, timezone=c.timezone),
            parameters={"campaign_file": str(c.file.resolve())},
            description=f"Campaign {c.name} from {c.file.name}",
            tags=["campaign"],
        )
        for c in campaigns
    ]


def main(argv: list[str]) -> None:
    from prefect import serve

    directory = Path(argv[0]) if argv else project_root() / "pipelines"
    campaigns, left_out = scheduled_campaigns(directory)
    for line in left_out:
        print(f"not served: {line}", flush=True)
    if not campaigns:
        print(f"no scheduled campaign in {directory}; waiting for one", flush=True)
        return
    for c in campaigns:
        print(f"serving {c.name}: {c.cron} ({c.timezone}) from {c.file}", flush=True)
    serve(*build(campaigns))


if __name__ == "__main__":
    main(sys.argv[1:])
