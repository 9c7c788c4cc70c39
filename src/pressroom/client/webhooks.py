"""Verifying pressroom's webhook requests in your receiver.

pressroom signs every delivery by the Standard Webhooks convention; this checks a request
with the endpoint's secret (or secrets: during a rotation's grace period, either verifies)
and returns the event::

    from pressroom.client import verify_webhook, WebhookVerificationError

    def receive(body: bytes, headers: dict[str, str]) -> int:
        try:
            event = verify_webhook(body, headers, secret="whsec_...")
        except WebhookVerificationError:
            return 400
        if seen_before(event.id):  # delivery is at least once: dedupe by id
            return 200
        handle(event.type, event.data)
        return 200

Pass the raw body as received: a re-serialised JSON no longer matches its signature.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import ValidationError as PydanticValidationError
from standardwebhooks.webhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError as SignatureMismatch

from pressroom.client.errors import PressroomError
from pressroom.client.models import Response


class WebhookVerificationError(PressroomError):
    """The request is not a genuine, fresh pressroom webhook: answer 400 and drop it."""


class WebhookEvent(Response):
    id: str
    """The same as the ``webhook-id`` header, on every attempt: dedupe by it."""
    type: str
    timestamp: datetime
    account_id: str
    data: dict[str, Any]


def verify_webhook(
    body: bytes | str, headers: Mapping[str, str], secret: str | Sequence[str]
) -> WebhookEvent:
    """The event, if a secret signed exactly this body within five minutes of now."""
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise WebhookVerificationError("no secret to verify with")
    found: Any = None
    for candidate in secrets:
        try:
            found = Webhook(candidate).verify(body, dict(headers))
            break
        except SignatureMismatch as exc:
            last = exc
    else:
        raise WebhookVerificationError(f"the webhook's signature does not verify: {last}")
    try:
        event = WebhookEvent.model_validate(found)
    except PydanticValidationError as exc:
        raise WebhookVerificationError(f"the webhook's body is not an event: {exc}") from exc
    sent_as = {k.lower(): v for k, v in headers.items()}.get("webhook-id")
    if event.id != sent_as:
        raise WebhookVerificationError("the body's id is not the webhook-id header")
    return event
