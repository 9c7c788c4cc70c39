"""A publish's two writes: its attempt, before anything is sent, and its outcome.

Each is one unit of work (``db.writer``) on prepared statements (``db.prepared``):

- ``attempt_unit`` checks the connection (one statement, its parent's state and token
  beside it), takes the Idempotency-Key and writes the post record (``sending``; a
  thread's part 0 too), so both are committed before the platform is called;
- ``published_unit`` and ``outcome_unit`` record what the platform answered, the
  webhook event of the change (the outbox, in the change's own transaction) and how
  the key ends (``claims``).

On SQLite they join the units other requests have waiting in one commit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, NamedTuple

from pressroom.platforms import Platform
from pressroom.service.connections.service import publishable
from pressroom.service.db.base import new_id, utcnow
from pressroom.service.db.prepared import Row
from pressroom.service.db.writer import Tx, Unit
from pressroom.service.drivers import base as driver
from pressroom.service.errors import ServiceError
from pressroom.service.oauth import service as oauth
from pressroom.service.publishing import events, repository, rules
from pressroom.service.publishing.campaign import campaign_columns
from pressroom.service.publishing.claims import Claim, end_in, end_with_error_in, take_in
from pressroom.service.publishing.schemas import PublishRequest
from pressroom.statuses import PartKind, PartStatus, PostStatus

SENDING = PostStatus.SENDING.value
PUBLISHED = PostStatus.PUBLISHED.value


@dataclass(frozen=True)
class Attempt:
    """A post record as its publish wrote it and changes it (``events.PostFacts``)."""

    id: str
    account_id: str
    platform: str
    connection_id: str
    idempotency_key: str | None
    name: str
    """The connection's account name, which the platform is told."""
    key_id: int | None
    """The Idempotency-Key's row when this unit took it."""
    status: str = SENDING
    result: dict[str, Any] | None = None
    platform_post_id: str | None = None
    url: str | None = None
    published_at: datetime | None = None
    threaded: bool = False
    """A post of several parts (a thread, a first comment): part 0 has a row of its own
    (``post_parts``), settled with the record."""
    created_at: datetime | None = None
    """When the record was written: the same for every attempt at it (Bluesky's record
    key is made from it, ``drivers.atproto.tid``)."""
    campaign_name: str | None = None
    """The body's ``campaign``, as the record's columns keep it (its events carry it)."""
    campaign_edition: str | None = None
    campaign_post_id: str | None = None
    campaign_flow_run_id: str | None = None


class RefreshFirst(Exception):
    """The connection's access token lapsed: refresh it, outside any transaction, then
    run the unit again."""

    def __init__(self, connection_id: str) -> None:
        self.connection_id = connection_id


def attempt_unit(
    account_id: str,
    platform: Platform,
    body: PublishRequest,
    claim: Claim | None,
    *,
    refresh: bool,
) -> Unit[Attempt]:
    """The unit that checks the connection and records the attempt; ``RefreshFirst``
    when ``refresh`` and the token lapsed, a ``ServiceError`` when the connection may
    not publish, ``KeyTaken`` when another request holds the key."""
    post_id = new_id("post")
    key = claim.key if claim else None
    take = claim is not None and claim.record_id is None
    request = body.model_dump(mode="json", by_alias=True, exclude_unset=True)
    threaded = bool(body.later_parts)

    def unit(tx: Tx) -> Attempt:
        connection = publishable(tx.link, account_id, body.connection_id, platform)
        if refresh and (due := _lapsed_token(connection)) is not None:
            raise RefreshFirst(due)
        rules.check_account(platform, connection)
        now = utcnow()
        key_id = take_in(tx.link, claim, now) if take and claim else None
        repository.add_post(
            tx.link,
            id=post_id,
            account_id=account_id,
            connection_id=connection.id,
            platform=platform.value,
            file_id=body.media_file_id,
            request=request,
            result=None,
            status=SENDING,
            idempotency_key=key,
            created_at=now,
            **campaign_columns(body.campaign),
        )
        if threaded:  # part 0 stands or not on its own row from the start (``threads``)
            repository.add_part(
                tx.link,
                post_id=post_id,
                index=0,
                kind=PartKind.POST.value,
                status=PartStatus.SENDING.value,
                platform_post_id=None,
                url=None,
                reply_to=None,
                created_at=now,
                published_at=None,
            )
        campaign = body.campaign
        return Attempt(
            post_id,
            account_id,
            platform.value,
            connection.id,
            key,
            connection.name,
            key_id,
            threaded=threaded,
            created_at=now,
            campaign_name=campaign.name if campaign else None,
            campaign_edition=campaign.edition if campaign else None,
            campaign_post_id=campaign.post_id if campaign else None,
            campaign_flow_run_id=campaign.flow_run_id if campaign else None,
        )

    return unit


def published_unit(
    attempt: Attempt, published: driver.Published, answer: dict[str, Any], claim: Claim | None
) -> Unit[None]:
    """The attempt went out: its platform id, its event, and the answer stored for
    replays under the key."""
    outcome = replace(
        attempt,
        status=PUBLISHED,
        result=answer,
        platform_post_id=published.platform_post_id,
        url=published.url,
        published_at=published.published_at,
    )

    def unit(tx: Tx) -> None:
        was = repository.record_published(
            tx.link,
            attempt.account_id,
            attempt.id,
            expected=attempt.status,
            platform_post_id=published.platform_post_id,
            url=published.url,
            published_at=published.published_at,
            result=answer,
        )
        assert was is not None
        events.announce_in(tx.link, outcome, was)
        if claim is not None:
            end_in(tx.link, claim, 200, answer, utcnow())

    return unit


def outcome_unit(
    attempt: Attempt,
    *,
    status: str,
    result: dict[str, Any] | None,
    error: ServiceError,
    claim: Claim | None,
) -> Unit[None]:
    """The attempt failed or its outcome is unknown: the record, its event, and the key
    kept, freed or held as ``error`` says (``claims.end_with_error_in``)."""
    outcome = replace(attempt, status=status, result=result)

    def unit(tx: Tx) -> None:
        was = repository.record_outcome(
            tx.link,
            attempt.account_id,
            attempt.id,
            expected=attempt.status,
            status=status,
            result=result,
        )
        if was is not None:
            events.announce_in(tx.link, outcome, was)
        if attempt.threaded:
            repository.record_part(tx.link, attempt.id, 0, status=status)
        if claim is not None:
            end_with_error_in(tx.link, claim, error, utcnow())

    return unit


def _lapsed_token(connection: Row) -> str | None:
    """``oauth.due_for_refresh`` on ``publishable``'s row and its parent's columns."""
    holder = oauth.token_holder_id(connection)
    if holder == connection.id:
        return oauth.lapsed_token(connection)
    if connection.parent_found is None:
        return None
    return oauth.lapsed_token(
        _TokenHolder(
            holder,
            connection.parent_access_expires_at,
            connection.parent_token_expires_at,
            connection.parent_removed_at,
        )
    )


class _TokenHolder(NamedTuple):
    id: str
    access_expires_at: datetime | None
    token_expires_at: datetime | None
    removed_at: datetime | None
