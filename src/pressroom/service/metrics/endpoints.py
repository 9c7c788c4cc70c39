"""Metrics routes (our extension): start a round, read a post's series, a campaign's totals."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Path, Request

from pressroom import error_codes
from pressroom.service.db.session import transaction
from pressroom.service.deps import CurrentAccount, DbSession
from pressroom.service.errors import responses
from pressroom.service.metrics import service
from pressroom.service.metrics.repository import RUNNING
from pressroom.service.metrics.rounds import runner_of
from pressroom.service.metrics.schemas import (
    CampaignMetricsResponse,
    PostMetricsResponse,
    RefreshRequest,
    RoundResponse,
)
from pressroom.service.routing import UnitOfWorkRoute

posts_router = APIRouter(prefix="/api/posts", tags=["metrics"], route_class=UnitOfWorkRoute)
campaigns_router = APIRouter(prefix="/api/campaigns", tags=["metrics"], route_class=UnitOfWorkRoute)


@posts_router.post(
    "/metrics/refresh",
    status_code=202,
    response_model=RoundResponse,
    responses=responses(error_codes.VALIDATION_ERROR, error_codes.POST_NOT_FOUND),
)
def refresh_metrics(
    request: Request,
    account: CurrentAccount,
    body: Annotated[RefreshRequest | None, Body()] = None,
) -> RoundResponse:
    """Our extension: start a metrics round for the caller's published posts, in the
    background (the networks' tokens never leave the service). One round per account
    runs at a time: while one runs, this answers with it (`runningAlready: true`).
    Per network the round asks the posts never asked first, then the longest unasked,
    up to the network's budget per round (see the docs' budgets table); read the
    figures back with `GET /api/posts/{recordId}/metrics` once the round is `done`
    (`GET /api/posts/metrics/rounds/{roundId}`)."""
    # No request session: the round takes its leases in transactions of its own, which
    # a write unit of work held open around them would block (SQLite has one writer).
    with transaction(request.app.state.session_factory, write=False) as db:
        chosen = service.filter_of(db, account, body or RefreshRequest())
    filters = (body or RefreshRequest()).model_dump(by_alias=True, exclude_none=True)
    started = runner_of(request.app).start(account.id, chosen, filters)
    return RoundResponse(
        round=service.round_json(started.round, running_already=started.running_already)
    )


@posts_router.get(
    "/metrics/rounds/{roundId}",
    response_model=RoundResponse,
    responses=responses(error_codes.METRICS_ROUND_NOT_FOUND),
)
def get_round(roundId: str, request: Request, account: CurrentAccount) -> RoundResponse:
    """Our extension: a metrics round, `running` until every network's part is done,
    then `done`; `failed` when an error ended it or when the process running it
    stopped (its lease ran out unrenewed: the round is found abandoned here or at the
    next refresh, which then starts a new one)."""
    sessions = request.app.state.session_factory
    with transaction(sessions, write=False) as db:
        found = service.get_round(db, account, roundId)
    if found.status == RUNNING:
        runner_of(request.app).settle(roundId)
        with transaction(sessions, write=False) as db:
            found = service.get_round(db, account, roundId)
    return RoundResponse(round=found)


@posts_router.get(
    "/{recordId}/metrics",
    response_model=PostMetricsResponse,
    responses=responses(error_codes.POST_NOT_FOUND),
)
def post_metrics(recordId: str, account: CurrentAccount, db: DbSession) -> PostMetricsResponse:
    """Our extension: what the post's network reported of it, latest and every
    snapshot, or why it reports nothing (`available: false`, `unavailableReason`).
    `latest` and `series` are part 0's; a thread's replies, each a post on the network,
    are in `parts`, and `totals` sums the latest figures of part 0 and of each reply."""
    return service.post_metrics(db, account, recordId)


@campaigns_router.get(
    "/{name}/metrics",
    response_model=CampaignMetricsResponse,
    responses=responses(error_codes.CAMPAIGN_NOT_FOUND),
)
def campaign_metrics(
    name: Annotated[str, Path(description="The campaign's name (`campaign.name` of its posts).")],
    account: CurrentAccount,
    db: DbSession,
) -> CampaignMetricsResponse:
    """Our extension: a campaign's figures, each post counted by its latest `totals`
    (a thread's replies included), summed per network and per edition and network."""
    return service.campaign_metrics(db, account, name)


router = APIRouter()
router.include_router(posts_router)
router.include_router(campaigns_router)
