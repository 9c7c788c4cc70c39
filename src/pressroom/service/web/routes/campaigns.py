"""The Campaigns pages: the campaigns the account's posts came from and, where Prefect's
API is set, their deployments, schedules and runs on a calendar in each campaign's time
zone; a run's page lists the posts it sent."""

from __future__ import annotations

from datetime import UTC, date

from fastapi import APIRouter, Request, Response

from pressroom.service.db.base import utcnow
from pressroom.service.deps import DbSession
from pressroom.service.publishing.campaign_summaries import campaigns, run_counts
from pressroom.service.web import calendar, prefect_api, views
from pressroom.service.web.security import Viewer, WebRoute
from pressroom.service.web.templating import render_page

router = APIRouter(route_class=WebRoute, include_in_schema=False)


@router.get("/campaigns")
def campaigns_page(
    request: Request, visitor: Viewer, db: DbSession, view: str = "week", day: str = ""
) -> Response:
    view = view if view in calendar.VIEWS else "week"
    today = _day(day) or utcnow().astimezone(UTC).date()
    seen = campaigns(db, visitor.account.id)
    api = prefect_api.api_url(request.app.state.settings.prefect_api_url)
    deployments: list[prefect_api.Deployment] = []
    unreachable: str | None = None
    if api is not None:
        # One span wide enough for every zone: each calendar then keeps its own days.
        since, _ = calendar.bounds(view, today, calendar.zone("Pacific/Kiritimati"))
        _, until = calendar.bounds(view, today, calendar.zone("Etc/GMT+12"))
        try:
            deployments = prefect_api.deployments(api, since=since, until=until)
        except prefect_api.PrefectUnreachable as exc:
            unreachable = str(exc)
    counts = run_counts(db, visitor.account.id, [r.id for d in deployments for r in d.runs])
    calendars = [
        (d, calendar.weeks(view, today, calendar.zone(d.timezone), d.runs)) for d in deployments
    ]
    return render_page(
        request,
        "campaigns.html",
        {
            "title": "Campaigns",
            "visitor": visitor,
            "active": "/campaigns",
            "campaigns": seen,
            "prefect": api,
            "unreachable": unreachable,
            "calendars": calendars,
            "counts": counts,
            "view": view,
            "today": today,
            "statuses": views.STATUS_WORDS,
        },
    )


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


@router.get("/campaigns/runs/{flow_run_id}")
def run_page(request: Request, visitor: Viewer, db: DbSession, flow_run_id: str) -> Response:
    """A run's posts with their results (the Posts page's rows, filtered by the run)."""
    page = views.posts(db, visitor.account, flow_run_id=flow_run_id, limit=50)
    first = page.rows[-1] if page.rows else None
    return render_page(
        request,
        "campaign_run.html",
        {
            "title": f"Run {flow_run_id}",
            "visitor": visitor,
            "active": "/campaigns",
            "flow_run_id": flow_run_id,
            "campaign": first.campaign if first else None,
            "edition": first.edition if first else None,
            "posts": page.rows,
            "more": page.older is not None,
        },
    )
