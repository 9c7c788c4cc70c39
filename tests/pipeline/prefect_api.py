"""Reading what Prefect recorded: the flow run, its task runs, its artifacts."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import (
    ArtifactFilter,
    ArtifactFilterFlowRunId,
    FlowRunFilter,
    FlowRunFilterId,
    LogFilter,
    LogFilterFlowRunId,
    LogFilterTaskRunId,
)


def task_runs(flow_run_id: str, expected: int) -> list[Any]:
    """Task runs are written from events, a moment after the flow ends: wait for them."""
    flt = FlowRunFilter(id=FlowRunFilterId(any_=[UUID(flow_run_id)]))
    runs: list[Any] = []
    with get_client(sync_client=True) as client:
        for _ in range(100):
            runs = client.read_task_runs(flow_run_filter=flt)
            if len(runs) >= expected and all(r.state and r.state.is_final() for r in runs):
                break
            time.sleep(0.1)
    return runs


def flow_run(flow_run_id: str) -> Any:
    with get_client(sync_client=True) as client:
        return client.read_flow_run(UUID(flow_run_id))


def artifacts(flow_run_id: str) -> list[Any]:
    flt = ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[UUID(flow_run_id)]))
    with get_client(sync_client=True) as client:
        return client.read_artifacts(artifact_filter=flt)


def logs(flow_run_id: str) -> list[Any]:
    """The run's log lines, its task runs' included."""
    flt = LogFilter(flow_run_id=LogFilterFlowRunId(any_=[UUID(flow_run_id)]))
    with get_client(sync_client=True) as client:
        return client.read_logs(log_filter=flt)


def flow_run_by_pid(pid: int) -> Any:
    """The run a pressroom process held (its ``pressroom.pid`` label)."""
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs()
    [held] = [r for r in runs if str(r.labels.get("pressroom.pid")) == str(pid)]
    return held


def task_run_logs(flow_run_id: str, task_run_name: str) -> list[str]:
    """The log lines of one task run of the flow run, read by its id."""
    [run] = [r for r in task_runs(flow_run_id, expected=1) if r.name == task_run_name]
    flt = LogFilter(task_run_id=LogFilterTaskRunId(any_=[run.id]))
    with get_client(sync_client=True) as client:
        return [line.message for line in client.read_logs(log_filter=flt)]
