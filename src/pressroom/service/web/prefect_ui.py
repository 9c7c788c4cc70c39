"""Links from the dashboard into the Prefect UI, where a campaign run's own page is."""

from __future__ import annotations

from urllib.parse import quote


def flow_run_url(ui_url: str | None, flow_run_id: str | None) -> str | None:
    """The Prefect UI's page of a flow run, or None when the UI's address is not set
    (``PRESSROOM_PREFECT_UI_URL``) and the run id is shown alone."""
    if not ui_url or not flow_run_id:
        return None
    return f"{ui_url.rstrip('/')}/runs/flow-run/{quote(flow_run_id, safe='')}"
