"""The Posts pages: the history (filters, older and newer pages), a post with its parts,
and what may be done about one that did not go out whole (retry, look up)."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import RedirectResponse
from starlette.concurrency import run_in_threadpool

from pressroom.platforms import Platform
from pressroom.post_campaign import MAX_CHARS as CAMPAIGN_MAX_CHARS
from pressroom.service.connections import service as connections
from pressroom.service.db.base import utcnow
from pressroom.service.db.models import Post
from pressroom.service.db.session import transaction
from pressroom.service.deps import DbSession
from pressroom.service.drivers.base import LookupUnsupported, PlatformUnavailable
from pressroom.service.errors import ServiceError
from pressroom.service.publishing import remedies
from pressroom.service.publishing.remedies import Remedy
from pressroom.service.web import views
from pressroom.service.web.security import Actor, Viewer, Visitor, WebRoute
from pressroom.service.web.templating import flash, render_page

router = APIRouter(route_class=WebRoute, include_in_schema=False)

CURSORS = ("cursor", "before")
"""The history's page links: ``cursor`` goes to older posts, ``before`` to newer ones."""


@router.get("/posts")
def posts(
    request: Request,
    visitor: Viewer,
    db: DbSession,
    platform: str = "",
    connection: str = "",
    status: str = "",
    cursor: str = "",
    before: str = "",
    campaign: str = "",
    edition: str = "",
    flow_run_id: str = Query("", alias="flowRunId"),
) -> Response:
    platform = platform if platform in {p.value for p in Platform} else ""
    status = status if status in views.STATUS_WORDS else ""
    try:
        page = views.posts(
            db,
            visitor.account,
            cursor=cursor or None,
            before=before or None,
            platform=platform or None,
            connection_id=connection or None,
            status=status or None,
            campaign=campaign or None,
            edition=edition or None,
            flow_run_id=flow_run_id or None,
        )
    except ServiceError as exc:
        if exc.field not in CURSORS:
            raise
        return render_page(
            request,
            "refused.html",
            {
                "title": "This page of posts does not exist",
                "message": f"The link's page marker ({exc.field}) is not one this dashboard "
                f"made: {exc.message} It may have been cut short or changed; start again "
                "from the newest posts.",
                "visitor": visitor,
                "back": "/posts",
                "back_label": "Newest posts",
            },
            status=400,
        )
    chosen = {
        "platform": platform,
        "connection": connection,
        "status": status,
        "campaign": campaign,
        "edition": edition,
        "flowRunId": flow_run_id,
    }
    filters = {name: value for name, value in chosen.items() if value}
    return render_page(
        request,
        "posts.html",
        {
            "title": "Posts",
            "visitor": visitor,
            "active": "/posts",
            "posts": page.rows,
            "older": _link(filters, cursor=page.older) if page.older else None,
            "newer": _link(filters, before=page.newer) if page.newer else None,
            "newest": _link(filters) if cursor or before else None,
            "platforms": [p.value for p in Platform],
            "connections": connections.all_connections(db, visitor.account),
            "statuses": views.STATUS_WORDS,
            "chosen": chosen,
            "campaign_max": CAMPAIGN_MAX_CHARS,
        },
    )


def _link(filters: dict[str, str], **page: str | None) -> str:
    query = urlencode({**filters, **{k: v for k, v in page.items() if v}})
    return f"/posts?{query}" if query else "/posts"


@router.get("/posts/{record_id}")
def post_detail(request: Request, visitor: Viewer, db: DbSession, record_id: str) -> Response:
    found = views.post(db, visitor.account, record_id)
    if found is None:
        return _not_found(request, visitor)
    row, _ = found
    return render_page(
        request,
        "post_detail.html",
        {
            "title": "Post",
            "visitor": visitor,
            "active": "/posts",
            "post": row,
            "remedy": Remedy,
            "sent": json.dumps(row.request, indent=2, sort_keys=True),
            "received": json.dumps(row.result, indent=2, sort_keys=True),
        },
    )


@router.post("/posts/{record_id}/retry")
async def retry(request: Request, visitor: Actor, record_id: str) -> Response:
    """Send the post again under its Idempotency-Key, as a client's retry would."""
    found = await run_in_threadpool(_load, request, visitor, record_id)
    if found is None:
        return _not_found(request, visitor)
    row, post = found
    if Remedy.RETRY not in row.remedies:
        return _not_offered(request, visitor, row, "retried")
    retried = await remedies.retry(request.app, visitor.account, post)
    target = retried.answer.get("recordId") if retried.status == 200 else None
    response = RedirectResponse(f"/posts/{target or row.id}", status_code=303)
    return flash(response, views.retried_notice(row, retried))


@router.post("/posts/{record_id}/look-up")
async def look_up(request: Request, visitor: Actor, record_id: str) -> Response:
    """Ask the platform now whether it has the post, as the reconciler does."""
    found = await run_in_threadpool(_load, request, visitor, record_id)
    if found is None:
        return _not_found(request, visitor)
    row, post = found
    if Remedy.LOOK_UP not in row.remedies:
        return _not_offered(request, visitor, row, "looked up")
    try:
        outcome = await remedies.look_up(request.app, post, utcnow())
    except (PlatformUnavailable, LookupUnsupported) as exc:
        notice = views.look_up_failed_notice(row, exc)
    else:
        notice = views.looked_up_notice(row, outcome)
    return flash(RedirectResponse(f"/posts/{row.id}", status_code=303), notice)


def _load(request: Request, visitor: Visitor, record_id: str) -> tuple[views.PostRow, Post] | None:
    """The post, read in a short unit of work of its own: a retry then publishes
    through units of work of the publish path, with none of this route's open."""
    with transaction(request.app.state.session_factory, write=False) as db:
        return views.post(db, visitor.account, record_id)


def _not_found(request: Request, visitor: Visitor) -> Response:
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


def _not_offered(request: Request, visitor: Visitor, row: views.PostRow, what: str) -> Response:
    return render_page(
        request,
        "refused.html",
        {
            "title": "Nothing was done",
            "message": f"A post that is {row.status_words} cannot be {what} now "
            f"(it may have changed since the page was shown). Nothing was sent.",
            "visitor": visitor,
            "back": f"/posts/{row.id}",
            "back_label": "Back to the post",
        },
        status=409,
    )
