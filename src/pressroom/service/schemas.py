"""Response and request building blocks shared by every domain."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from pressroom.statuses import RecordStatus


def iso_utc(value: datetime) -> str:
    """ISO 8601 UTC with a ``Z`` and milliseconds: what every timestamp looks like."""
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


Timestamp = Annotated[datetime, PlainSerializer(iso_utc, return_type=str)]


_RFC3339 = re.compile(r"\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)")


def _rfc3339(value: object) -> object:
    """Only an RFC 3339 date-time (what the schema's ``format: date-time`` says), never
    the Unix time pydantic would read in a number or a numeric string."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _RFC3339.fullmatch(value):
        raise ValueError(
            "give a date and time with its offset, as RFC 3339 says: 2026-11-01T10:00:00Z"
        )
    return value


def _in_utc(value: datetime) -> datetime:
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("the date is out of range once in UTC") from None


Instant = Annotated[AwareDatetime, BeforeValidator(_rfc3339), AfterValidator(_in_utc)]
"""A moment given by a client: ISO 8601 with its offset (a bare local time is refused,
since it names no moment), held in UTC."""


class CamelModel(BaseModel):
    """JSON fields are camelCase; Python attributes stay snake_case."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class RequestModel(CamelModel):
    """Request bodies refuse unknown fields, so a typo is an error, not silence.

    An integer field takes a number without a fraction written as a float (``6357.0``):
    JSON Schema's ``integer`` is any such number, so the OpenAPI document promises it, and
    JSON itself does not tell ``6357`` from ``6357.0``. Strict fields still refuse
    ``6357.5``, ``"6357"`` and ``true``.
    """

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _whole_numbers_as_integers(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        for key in _int_keys(cls):
            value = data.get(key)
            if isinstance(value, float) and value.is_integer():
                data = {**data, key: int(value)}
        return data


_INT_KEYS: dict[type[BaseModel], tuple[str, ...]] = {}


def _int_keys(model: type[BaseModel]) -> tuple[str, ...]:
    """The keys (alias and name) of ``model``'s integer fields, worked out once: asked
    of every field on every body, the annotations cost more than the body's validation."""
    keys = _INT_KEYS.get(model)
    if keys is None:
        found: list[str] = []
        for name, field in model.model_fields.items():
            if _takes_int(field.annotation):
                found += [key for key in (field.alias or name, name) if key not in found]
        keys = _INT_KEYS[model] = tuple(found)
    return keys


def _takes_int(annotation: Any) -> bool:
    """``int``, ``StrictInt`` (int with metadata kept apart) or ``int | None``."""
    if annotation is int:
        return True
    return get_origin(annotation) in (Union, UnionType) and int in get_args(annotation)


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
