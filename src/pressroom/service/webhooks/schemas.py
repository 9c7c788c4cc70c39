"""Request and response bodies of webhook management (our extension to the spec)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictBool, StrictInt

from pressroom.service.db.models import WebhookEndpoint, WebhookEvent
from pressroom.service.events.catalog import SUBSCRIBABLE
from pressroom.service.events.outbox import DELIVERED, FAILED, PENDING
from pressroom.service.schemas import CamelModel, Instant, RequestModel, Timestamp
from pressroom.service.webhooks.targets import MAX_URL_LENGTH

MAX_DESCRIPTION = 200
EventTypes = list[str]


def _events_field(default: Any) -> Any:
    return Field(
        default,
        description="The event types to send; when left out, every type but those off by "
        "default (`post.metrics`, sent only to an endpoint that names it).",
        json_schema_extra={"items": {"enum": list(SUBSCRIBABLE)}, "minItems": 1},
    )


class WebhookCreate(RequestModel):
    url: str = Field(
        description="Where to POST events: https, on a public address.",
        min_length=1,
        max_length=MAX_URL_LENGTH,
        json_schema_extra={"format": "uri"},
    )
    events: EventTypes | None = _events_field(None)
    description: str = Field("", description="A note for you.", max_length=MAX_DESCRIPTION)


class WebhookUpdate(RequestModel):
    url: str | None = Field(
        None, min_length=1, max_length=MAX_URL_LENGTH, json_schema_extra={"format": "uri"}
    )
    events: EventTypes | None = _events_field(None)
    description: str | None = Field(None, max_length=MAX_DESCRIPTION)
    enabled: StrictBool | None = Field(
        None, description="true enables an endpoint that was disabled after failing."
    )


class RotateSecret(RequestModel):
    grace_seconds: StrictInt = Field(
        86400,
        ge=0,
        le=7 * 86400,
        description="How long the old secret still signs beside the new one (default a day).",
    )


class WebhookOut(CamelModel):
    id: str
    url: str
    description: str
    events: list[str]
    enabled: bool
    disabled_reason: str | None = Field(
        description="Why pressroom disabled the endpoint, when it did."
    )
    previous_secret_expires_at: Timestamp | None = Field(
        description="Until when the secret before the last rotation also signs."
    )
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, endpoint: WebhookEndpoint, *, previous_secret_expires: bool) -> WebhookOut:
        return cls(
            id=endpoint.id,
            url=endpoint.url,
            description=endpoint.description,
            events=list(endpoint.events),
            enabled=endpoint.enabled,
            disabled_reason=endpoint.disabled_reason,
            previous_secret_expires_at=(
                endpoint.previous_secret_until if previous_secret_expires else None
            ),
            created_at=endpoint.created_at,
            updated_at=endpoint.updated_at,
        )


class WebhookResponse(CamelModel):
    success: bool = True
    webhook: WebhookOut


class WebhookWithSecret(WebhookResponse):
    secret: str = Field(
        description="The signing secret (whsec_…): shown when made and when rotated, "
        "never again. Verify each request with it (Standard Webhooks)."
    )


class WebhookList(CamelModel):
    success: bool = True
    webhooks: list[WebhookOut]
    next_cursor: str | None = None


class Deleted(CamelModel):
    success: bool = True
    id: str


class AttemptOut(CamelModel):
    attempted_at: Timestamp
    status: int | None = Field(description="The receiver's HTTP status; null: no answer.")
    latency_ms: int
    excerpt: str = Field(description="The start of the answer, or why there was none.")


class DeliveryOut(CamelModel):
    id: str
    event_id: str = Field(description="The webhook-id header: the same on every attempt.")
    event_type: str
    state: str = Field(json_schema_extra={"enum": [PENDING, DELIVERED, FAILED]})
    attempts: list[AttemptOut]
    next_attempt_at: Timestamp | None
    created_at: Timestamp
    delivered_at: Timestamp | None


class DeliveryList(CamelModel):
    success: bool = True
    deliveries: list[DeliveryOut]
    next_cursor: str | None = None


class DeliveryResponse(CamelModel):
    success: bool = True
    delivery: DeliveryOut


class EventOut(CamelModel):
    id: str = Field(description="The webhook-id of every delivery of this event.")
    type: str
    created_at: Timestamp
    data: dict[str, Any] = Field(description="As in the event's webhook body.")

    @classmethod
    def of(cls, event: WebhookEvent) -> EventOut:
        return cls(id=event.id, type=event.type, created_at=event.created_at, data=event.data)


class EventList(CamelModel):
    success: bool = True
    events: list[EventOut]
    next_cursor: str | None = Field(
        None, description="Pass as `cursor` for the next page; null at the end."
    )


class RedeliverEvent(RequestModel):
    webhook_id: str = Field(
        min_length=1,
        max_length=40,
        description="The endpoint to send the event to (subscribed to its type or not).",
    )


class RedeliverSince(RequestModel):
    since: Instant = Field(
        description="Deliveries made at or after this moment (ISO 8601 with its offset)."
    )
    state: Literal["failed", "delivered"] = Field(
        "failed", description="Which deliveries to send again: given up (default) or delivered."
    )


class Redelivered(CamelModel):
    success: bool = True
    queued: int = Field(description="Events queued to the endpoint again, each once, oldest first.")
