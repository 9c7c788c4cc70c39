"""A Meta post's insights read as pressroom's figures (Instagram, Threads, Facebook Pages).

Every Graph API insights edge answers ``{"data": [{"name": ..., "period": "lifetime",
"values": [{"value": n}], ...}]}``; some metrics give ``total_value: {"value": n}``
instead (https://developers.facebook.com/docs/graph-api/reference/insights,
https://developers.facebook.com/docs/threads/insights). A metric the network has no
figure for is left out of ``data`` (Instagram: "the API returns an empty data set
instead of 0"), so it stays None, never 0.

What a refusal means for a metrics round differs from what it means for a post: the
token refused is still ``AccessRevoked``, and Meta's rate limits are still
``PlatformRateLimited``; but a permission the grant lacks (a connection made before
the insights permission was asked for) or a post Meta no longer has is
``MetricsUnsupported``, so the round skips the post and never turns a connection that
still publishes inactive.
"""

from __future__ import annotations

from typing import Any

import httpx

from pressroom.service.drivers import meta
from pressroom.service.drivers.answers import json_of
from pressroom.service.drivers.base import AccessRevoked, MetricsUnsupported, PlatformRefused

MISSING_OBJECT = (100, 33)
"""Graph code 100, subcode 33: "Object with ID ... does not exist, cannot be loaded due
to missing permissions, or does not support this operation"
(https://developers.facebook.com/docs/graph-api/guides/error-handling)."""


def insight_values(answer: dict[str, Any]) -> dict[str, int]:
    """Each metric of an insights answer by name, with its (lifetime) count."""
    found: dict[str, int] = {}
    for row in answer.get("data") or []:
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            continue
        values = row.get("values")
        total = row.get("total_value")
        if isinstance(values, list) and values and isinstance(values[-1], dict):
            value = values[-1].get("value")
        elif isinstance(total, dict):
            value = total.get("value")
        else:
            continue
        if isinstance(value, int):
            found[row["name"]] = value
    return found


def total(figures: dict[str, int], *names: str) -> int | None:
    """The named figures added; None when the network gave none of them."""
    counted = [figures[name] for name in names if name in figures]
    return sum(counted) if counted else None


def metrics_failure(response: httpx.Response, network: str, *, permission: str) -> Exception:
    """What an insights read's error answer means for a metrics round (module docstring);
    ``permission`` is the one the insights edge needs."""
    error = meta.error_of(response)
    code, subcode = int(error.get("code") or 0), int(error.get("error_subcode") or 0)
    said = str(error.get("message") or f"HTTP {response.status_code}")
    if (code, subcode) == MISSING_OBJECT or response.status_code == 404:
        return MetricsUnsupported(f"deleted on the network: {network} has no such post ({said})")
    failure = meta.failure(response, network, sent=False)
    if isinstance(failure, AccessRevoked) and meta.is_permission_refusal(response):
        return MetricsUnsupported(
            f"{network} gives no figures for this post ({said}); a connection made before "
            f"pressroom asked for {permission} must be reconnected to grant it"
        )
    if isinstance(failure, PlatformRefused):
        return MetricsUnsupported(f"{network} gives no figures for this post ({said})")
    return failure


def read_insights(response: httpx.Response, network: str, *, permission: str) -> dict[str, int]:
    """An insights answer's figures, or the failure ``metrics_failure`` says."""
    if response.status_code != 200:
        raise metrics_failure(response, network, permission=permission)
    return insight_values(json_of(response))
