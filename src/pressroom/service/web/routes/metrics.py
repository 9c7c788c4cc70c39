"""The metrics pages: a post's figures over time and a campaign's totals per network,
each a chart drawn on the server with the same figures in a table beside it."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from pressroom.service.deps import DbSession
from pressroom.service.errors import ServiceError
from pressroom.service.metrics import service
from pressroom.service.metrics.repository import FIGURES
from pressroom.service.web.charts import Line, bar_chart, line_chart
from pressroom.service.web.security import Viewer, WebRoute
from pressroom.service.web.templating import render_page

router = APIRouter(route_class=WebRoute, include_in_schema=False)


@router.get("/posts/{record_id}/metrics")
def post_metrics(request: Request, visitor: Viewer, db: DbSession, record_id: str) -> Response:
    try:
        found = service.post_metrics(db, visitor.account, record_id)
    except ServiceError:
        return _not_found(
            request, visitor, "Post not found", "No post with this id in this account."
        )
    counted = [n for n in FIGURES if any(getattr(s, n) is not None for s in found.series)]
    lines = [
        Line(
            name,
            [(s.taken_at, getattr(s, name)) for s in found.series if getattr(s, name) is not None],
        )
        for name in counted
    ]
    chart = line_chart(
        "post-chart",
        f"Metrics of post {found.record_id} on {found.platform} over time",
        f"{len(found.series)} readings of {', '.join(counted) or 'no figure'}; "
        "the table below lists every value.",
        lines,
    )
    return render_page(
        request,
        "metrics_post.html",
        {
            "title": "Post metrics",
            "visitor": visitor,
            "active": "/posts",
            "metrics": found,
            "figures": counted,
            "chart": chart,
        },
    )


@router.get("/campaigns/{name}/metrics")
def campaign_metrics(request: Request, visitor: Viewer, db: DbSession, name: str) -> Response:
    try:
        found = service.campaign_metrics(db, visitor.account, name)
    except ServiceError:
        return _not_found(
            request, visitor, "Campaign not found", "No post of this account carries this campaign."
        )
    counted = [n for n in FIGURES if any(getattr(t.totals, n) is not None for t in found.networks)]
    charts = [
        bar_chart(
            f"campaign-{figure}",
            f"{figure} per network, campaign {found.campaign}",
            [
                (t.platform, getattr(t.totals, figure))
                for t in found.networks
                if getattr(t.totals, figure) is not None
            ],
        )
        for figure in counted
    ]
    return render_page(
        request,
        "metrics_campaign.html",
        {
            "title": f"Campaign {found.campaign}: metrics",
            "visitor": visitor,
            "active": "/posts",
            "metrics": found,
            "figures": counted,
            "charts": list(zip(counted, charts, strict=True)),
        },
    )


def _not_found(request: Request, visitor: Viewer, title: str, message: str) -> Response:
    return render_page(
        request,
        "refused.html",
        {
            "title": title,
            "message": message,
            "visitor": visitor,
            "back": "/posts",
            "back_label": "All posts",
        },
        status=404,
    )
