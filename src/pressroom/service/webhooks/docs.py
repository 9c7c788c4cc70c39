"""The event catalogue in the OpenAPI document's ``webhooks`` section (OpenAPI 3.1)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from pydantic import Field

from pressroom.service.events.catalog import DESCRIPTIONS, EventType
from pressroom.service.schemas import CamelModel, Timestamp

SIGNATURE = (
    "\n\nEvery request carries `webhook-id` (the event's `id`: dedupe by it, delivery is "
    "at least once), `webhook-timestamp` and `webhook-signature` (Standard Webhooks: "
    "`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with the endpoint's secret; "
    "two, space-separated, during a secret rotation's grace period). Answer 2xx within "
    "10 s; anything else is retried with backoff for a day."
)


class WebhookEventBody(CamelModel):
    id: str = Field(description="The event's id, the same as the webhook-id header.")
    type: str = Field(json_schema_extra={"enum": [t.value for t in EventType]})
    timestamp: Timestamp = Field(description="When the change happened.")
    account_id: str
    data: dict[str, Any] = Field(description="What the event type says it carries.")


def install_webhook_docs(app: FastAPI) -> None:
    for event in EventType:

        def receive(body: WebhookEventBody) -> None:  # documentation only; never called
            """An event pressroom sends."""

        app.webhooks.post(
            event.value,
            summary=event.value,
            description=DESCRIPTIONS[event] + SIGNATURE,
            operation_id=f"webhook_{event.value.replace('.', '_')}",
        )(receive)
