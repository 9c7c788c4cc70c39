"""Overview: usage this month and the most recent posts."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from pressroom.service.deps import DbSession
from pressroom.service.web import views
from pressroom.service.web.security import Viewer, WebRoute
from pressroom.service.web.templating import render_page

router = APIRouter(route_class=WebRoute, include_in_schema=False)


@router.get("/")
def overview(request: Request, visitor: Viewer, db: DbSession) -> Response:
    return render_page(
        request,
        "overview.html",
        {
            "title": "Overview",
            "visitor": visitor,
            "active": "/",
            "usage": views.usage(db, visitor.account),
            "posts": views.posts(db, visitor.account, limit=5).rows,
        },
    )
