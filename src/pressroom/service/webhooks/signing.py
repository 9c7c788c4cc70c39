"""Signatures by the Standard Webhooks convention (standardwebhooks.com), with the
``standardwebhooks`` package: ``webhook-id``, ``webhook-timestamp`` and
``webhook-signature`` headers, HMAC-SHA256 over ``id.timestamp.body`` with the endpoint's
secret. During a rotation's grace period both secrets sign, space-separated, so a
receiver that still has the old one keeps verifying."""

from __future__ import annotations

import base64
import secrets
from datetime import datetime

from standardwebhooks.webhooks import Webhook

PREFIX = "whsec_"


def new_secret() -> str:
    """A fresh signing secret: ``whsec_`` and 32 random bytes in base64."""
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def headers(
    message_id: str, sent_at: datetime, body: str, signing_secrets: list[str]
) -> dict[str, str]:
    signatures = [Webhook(s).sign(message_id, sent_at, body) for s in signing_secrets]
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(sent_at.timestamp())),
        "webhook-signature": " ".join(signatures),
    }
