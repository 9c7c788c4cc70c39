"""Overview (usage and recent posts) and the Posts pages (history, filters, detail)."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request, Response

from pressroom.platforms import Platform
from pressroom.service.connections import service as connections
from pressroom.service.deps import DbSession
from pressroom.service.web import views
from pressroom.service.web.security import Viewer, WebRoute
from pressroom.service.web.templating import render_page

router = APIRouter(route_class=WebRoute, include_in_schema=False)

POST_STATUSES = ("published", "failed", "unknown")


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
            "posts": views.posts(db, visitor.account, limit=5),
        },
    )


@router.get("/posts")
def posts(
    request: Request,
    visitor: Viewer,
    db: DbSession,
    platform: str = "",
    connection: str = "",
    status: str = "",
) -> Response:
    platform = platform if platform in {p.value for p in Platform} else ""
    status = status if status in POST_STATUSES else ""
    return render_page(
        request,
        "posts.html",
        {
            "title": "Posts",
            "visitor": visitor,
            "active": "/posts",
            "posts": views.posts(
                db,
                visitor.account,
                platform=platform or None,
                connection_id=connection or None,
                status=status or None,
            ),
            "platforms": [p.value for p in Platform],
            "connections": connections.all_connections(db, visitor.account),
            "statuses": POST_STATUSES,
            "chosen": {"platform": platform, "connection": connection, "status": status},
        },
    )


@router.get("/posts/{record_id}")
def post_detail(request: Request, visitor: Viewer, db: DbSession, record_id: str) -> Response:
    found = views.post(db, visitor.account, record_id)
    if found is None:
        return render_page(
            request,
            "refused.html",
            {
                "title": "Post not found",
                "message": "No post with this id in this account.",
                "visitor": visitor,
                "back": "/posts",
                "back_label": "All posts",
            },
            status=404,
        )
    return render_page(
        request,
        "post_detail.html",
        {
            "title": "Post",
            "visitor": visitor,
            "active": "/posts",
            "post": found,
            "sent": json.dumps(found.request, indent=2, sort_keys=True),
            "received": json.dumps(found.result, indent=2, sort_keys=True),
        },
    )
