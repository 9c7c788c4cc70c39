"""What the Campaigns page reads from Prefect: the campaigns' deployments, their schedules
and their runs, over Prefect's REST API with httpx (the service does not install Prefect).

Each scheduled campaign is a deployment named after the campaign, tagged ``campaign``
(``pipeline.deployments``). Endpoints: ``POST /deployments/filter`` and
``POST /flow_runs/filter`` (https://docs.prefect.io/v3/api-ref/rest-api/server/).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime

import httpx

from pressroom.tls import client_context

TAG = "campaign"
"""The tag pressroom's deployments carry (``pipeline.deployments``)."""

TIMEOUT_SECONDS = 5.0
"""A page waits no longer for Prefect: past it the page says Prefect is unreachable."""

RUNS_LIMIT = 200
"""The most runs read per page (the calendar's month of a campaign run every few hours)."""


def api_url(configured: str | None) -> str | None:
    """``PRESSROOM_PREFECT_API_URL``, else the usual ``PREFECT_API_URL`` (DESIGN,
    "Prefect address for the dashboard"); None when neither is set."""
    found = configured or os.environ.get("PREFECT_API_URL") or None
    return found.rstrip("/") if found else None


@dataclass(frozen=True)
class Schedule:
    cron: str | None
    timezone: str
    active: bool


@dataclass(frozen=True)
class Run:
    id: str
    name: str
    deployment_id: str | None
    state_type: str
    state_name: str
    expected_start: datetime | None


@dataclass
class Deployment:
    id: str
    name: str
    paused: bool
    schedules: list[Schedule]
    runs: list[Run] = field(default_factory=list)

    @property
    def timezone(self) -> str:
        """The campaign's time zone: its (first) schedule's, else UTC."""
        return self.schedules[0].timezone if self.schedules else "UTC"


class PrefectUnreachable(Exception):
    """Prefect did not answer, or answered with an error: the page says so and goes on."""


def _post(client: httpx.Client, path: str, body: dict[str, object]) -> list[dict[str, object]]:
    try:
        answer = client.post(path, json=body)
        answer.raise_for_status()
        found = answer.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise PrefectUnreachable(f"{path}: {exc}") from exc
    if not isinstance(found, list):
        raise PrefectUnreachable(f"{path}: expected a list, got {type(found).__name__}")
    return [item for item in found if isinstance(item, dict)]


def _when(value: object) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def deployments(
    api: str, *, since: datetime, until: datetime, transport: httpx.BaseTransport | None = None
) -> list[Deployment]:
    """The campaign deployments with their schedules and their runs expected between
    ``since`` and ``until`` (past ones with the state they ended in, future ones
    scheduled), earliest first."""
    with httpx.Client(
        base_url=api, timeout=TIMEOUT_SECONDS, transport=transport, verify=client_context()
    ) as client:
        found = _post(client, "/deployments/filter", {"deployments": {"tags": {"all_": [TAG]}}})
        result = {str(d["id"]): _deployment(d) for d in found if "id" in d}
        if not result:
            return []
        runs = _post(
            client,
            "/flow_runs/filter",
            {
                "flow_runs": {
                    "deployment_id": {"any_": list(result)},
                    "expected_start_time": {
                        "after_": since.isoformat(),
                        "before_": until.isoformat(),
                    },
                },
                "sort": "EXPECTED_START_TIME_ASC",
                "limit": RUNS_LIMIT,
            },
        )
    for item in runs:
        run = _run(item)
        if run.deployment_id in result:
            result[run.deployment_id].runs.append(run)
    return sorted(result.values(), key=lambda d: d.name)


def _deployment(item: dict[str, object]) -> Deployment:
    schedules = []
    for entry in item.get("schedules") or []:  # type: ignore[attr-defined]
        inner = entry.get("schedule") or {}
        schedules.append(
            Schedule(
                cron=inner.get("cron"),
                timezone=inner.get("timezone") or "UTC",
                active=bool(entry.get("active", True)),
            )
        )
    return Deployment(
        id=str(item["id"]),
        name=str(item.get("name", "")),
        paused=bool(item.get("paused", False)),
        schedules=schedules,
    )


def _run(item: dict[str, object]) -> Run:
    state = item.get("state") or {}
    assert isinstance(state, dict)
    return Run(
        id=str(item.get("id")),
        name=str(item.get("name", "")),
        deployment_id=str(item["deployment_id"]) if item.get("deployment_id") else None,
        state_type=str(state.get("type") or item.get("state_type") or "UNKNOWN"),
        state_name=str(state.get("name") or item.get("state_name") or "Unknown"),
        expected_start=_when(item.get("expected_start_time")),
    )
