"""``campaign``: where a post comes from (our extension), the same on every publish body.

pressroom's pipeline sets it on each publish: the campaign's name, the edition (the
occurrence: ``manual``, ``scheduled-…``), the post's id in the campaign file and the
Prefect flow run that sent it. The service keeps it on the post record, in indexed
columns, so ``GET /api/posts`` finds a campaign's, an edition's or a run's posts.

It says who asked, not what to post, so it is no part of the Idempotency-Key
fingerprint (``claims.UNFINGERPRINTED``): a re-run of an edition sends the same key with
its own flow run id and gets the first answer replayed, whose record keeps the run that
published it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pressroom.post_campaign import MAX_CHARS as MAX_CHARS  # re-exported: the columns read it here
from pressroom.service.schemas import RequestModel

FIELD = "campaign"
"""The body field (the same name in JSON and in Python)."""


def _value(what: str, *, required: bool = False) -> Any:
    limits: dict[str, Any] = {"min_length": 1, "max_length": MAX_CHARS}
    if required:
        return Field(description=what, **limits)
    return Field(None, description=what, **limits)


class Campaign(RequestModel):
    """Where a post comes from: set by pressroom's pipeline, or by any caller."""

    name: str = _value("The campaign's name (`spring-launch`).", required=True)
    edition: str | None = _value(
        "The campaign's occurrence: `manual`, or `scheduled-…` for a scheduled run."
    )
    post_id: str | None = _value("The post's id in the campaign file.")
    flow_run_id: str | None = _value("The id of the Prefect flow run that sent it.")


def campaign_field() -> Any:
    return Field(
        None,
        description="Our extension: where the post comes from (pressroom's pipeline sets "
        "it): the campaign's name, its edition, the post's id in the campaign and the "
        f"Prefect flow run. Each value 1 to {MAX_CHARS} characters. Kept on the post "
        "record (`GET /api/posts` filters by `campaign`, `edition` and `flowRunId`) and "
        "never sent to the network. No part of the Idempotency-Key fingerprint: the same "
        "key with another `campaign` (a re-run's new `flowRunId`) replays the first "
        "answer, whose record keeps the first `campaign`.",
    )


def campaign_columns(campaign: Campaign | None) -> dict[str, str | None]:
    """The post record's columns for ``campaign`` (all None without one)."""
    return {
        "campaign_name": campaign.name if campaign else None,
        "campaign_edition": campaign.edition if campaign else None,
        "campaign_post_id": campaign.post_id if campaign else None,
        "campaign_flow_run_id": campaign.flow_run_id if campaign else None,
    }


def campaign_of(
    name: str | None, edition: str | None, post_id: str | None, flow_run_id: str | None
) -> Campaign | None:
    """A post record's ``campaign``, read back from its columns (None without a name)."""
    if name is None:
        return None
    return Campaign(name=name, edition=edition, post_id=post_id, flow_run_id=flow_run_id)
