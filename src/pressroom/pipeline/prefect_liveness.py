"""A run's liveness kept in Prefect: its lease as flow-run labels, renewed while it runs,
and the settling of earlier runs whose process died (``pressroom.pipeline.liveness``
decides; this module only reads and writes Prefect's API).

A run found abandoned is set Crashed with the reason, and gets the partial result table
(an artifact, and rows in the local JSON-lines log) built from its task runs: what was
published, what failed, and what was in flight when it died.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any
from uuid import UUID

from pressroom.pipeline import outcomes
from pressroom.pipeline.config import PipelineSettings
from pressroom.pipeline.liveness import Holder, row_from_task_run, why_abandoned

log = logging.getLogger(__name__)
FLOW_NAME = "run-campaign"


class Lease:
    """Records this process as the holder of ``flow_run_id`` and renews it until stopped."""

    def __init__(self, flow_run_id: UUID, lease_seconds: float) -> None:
        self.flow_run_id = flow_run_id
        self.lease_seconds = lease_seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew, name="pressroom-lease", daemon=True)

    def __enter__(self) -> Lease:
        self._write()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _renew(self) -> None:
        while not self._stop.wait(self.lease_seconds / 3):
            self._write()

    def _write(self) -> None:
        from prefect.client.orchestration import get_client

        try:
            with get_client(sync_client=True) as client:
                client.update_flow_run_labels(
                    self.flow_run_id,
                    Holder.here(self.lease_seconds).labels(),  # type: ignore[arg-type]
                )
        except Exception as exc:  # a missed renewal must not fail the run
            log.warning("could not renew the run's lease: %s", exc)


def settle_abandoned_runs(campaign_file: str | None, *, current: UUID | None) -> list[str]:
    """Mark Crashed every RUNNING run of the campaign (of every campaign: None) whose
    process is gone, with its partial results; returns a line for each."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowFilter,
        FlowFilterName,
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.states import Crashed

    settled = []
    with get_client(sync_client=True) as client:
        running = client.read_flow_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=[FLOW_NAME])),
            flow_run_filter=FlowRunFilter(
                state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.RUNNING]))
            ),
        )
        for run in running:
            if run.id == current:
                continue
            if campaign_file is not None and run.parameters.get("campaign_file") != campaign_file:
                continue
            why = why_abandoned(Holder.from_labels(dict(run.labels)))
            if why is None:
                continue
            client.set_flow_run_state(
                run.id, Crashed(message=f"{why}; marked Crashed by a later run"), force=True
            )
            line = f"run {run.name} ({run.id}) marked Crashed: {why}"
            log.warning("%s", line)
            settled.append(line)
            _write_partial_results(client, run)
    return settled


def _write_partial_results(client: Any, run: Any) -> None:
    from prefect.client.schemas.actions import ArtifactCreate
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    from pressroom.campaign.validate import campaign_name

    task_runs = client.read_task_runs(
        flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[run.id]))
    )
    rows = [
        row
        for t in task_runs
        if (
            row := row_from_task_run(
                t.name,
                t.state.type.value if t.state else "PENDING",
                t.state.name if t.state else "Pending",
                t.state.message if t.state else None,
            )
        )
        is not None
    ]
    campaign = campaign_name(str(run.parameters.get("campaign_file", run.name)))
    slug = outcomes.artifact_slug(campaign)
    table = [
        dict(zip(outcomes.ARTIFACT_COLUMNS, cells, strict=True))
        for cells in outcomes.table_rows(rows, with_key=True)
    ]
    client.create_artifact(
        ArtifactCreate(
            key=f"{slug}-results",
            type="table",
            data=json.dumps(table),
            description=f"Partial results of {run.name}: its process died. "
            + outcomes.summary_message(rows),
            flow_run_id=run.id,
        )
    )
    outcomes.append_jsonl(PipelineSettings().results_dir, campaign, str(run.id), rows)
