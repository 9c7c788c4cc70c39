"""Response and request building blocks shared by every domain."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer
from pydantic.alias_generators import to_camel

from pressroom.statuses import RecordStatus


def iso_utc(value: datetime) -> str:
    """ISO 8601 UTC with a ``Z`` and milliseconds: what every timestamp looks like."""
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


Timestamp = Annotated[datetime, PlainSerializer(iso_utc, return_type=str)]


class CamelModel(BaseModel):
    """JSON fields are camelCase; Python attributes stay snake_case."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class RequestModel(CamelModel):
    """Request bodies refuse unknown fields, so a typo is an error, not silence."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None
    recordStatus: str | None = Field(
        None,
        description="Publish 5xx answers only: whether the post reached the platform. "
        "`not_sent`: it did not, a retry is safe; `unknown`: it may have, and the "
        "Idempotency-Key stays held: a retry with it makes the service look the post up "
        "before sending again; `published`: it did.",
        json_schema_extra={"enum": [s.value for s in RecordStatus]},
    )

    rule: str | None = Field(
        None,
        description="Present when a real network's rule refuses the request: the rule's id, "
        "`<platform>.<name>` (e.g. `microblog.weighted_length`: X's weighted count, where "
        "CJK and emoji count 2 and a link 23). The API checks the spec's limits first, then "
        "the network's, before anything is sent.",
        examples=["microblog.weighted_length"],
    )
    docUrl: str | None = Field(
        None,
        description="Present with `rule`: the network's page the rule comes from.",
        examples=["https://docs.x.com/fundamentals/counting-characters"],
    )

    requestId: str | None = Field(
        None,
        description="The request's X-Request-ID (the one a proxy sent, or one made for "
        "it): quote it when reporting an error, it is in every log line of the request.",
    )


class ErrorResponse(BaseModel):
    success: bool = False
    error: ErrorDetail
