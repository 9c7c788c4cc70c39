"""The service's Prometheus metrics, on a registry of their own.

Labels are bounded: route templates (not paths), statuses, platforms, outcomes. Each
metric is recorded where its event happens; ``/metrics`` renders this registry. With
several uvicorn workers each worker counts its own requests (a scrape sees one worker);
run one worker per process where exact counts matter.
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST as CONTENT_TYPE
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)

__all__ = ["CONTENT_TYPE", "REGISTRY", "render"]

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

REQUESTS = Counter(
    "pressroom_http_requests",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
    registry=REGISTRY,
)
REQUEST_SECONDS = Histogram(
    "pressroom_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by route template.",
    ["method", "route"],
    registry=REGISTRY,
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
PUBLISHES = Counter(
    "pressroom_publishes",
    "Publish attempts by platform and outcome (published, not_sent, unknown).",
    ["platform", "outcome"],
    registry=REGISTRY,
)
UPLOAD_SECONDS = Histogram(
    "pressroom_upload_duration_seconds",
    "Upload PUTs on local storage by outcome (received, refused, abandoned) and duration.",
    ["outcome"],
    registry=REGISTRY,
    buckets=(0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0, 1800.0),
)
PROCESSING_SECONDS = Histogram(
    "pressroom_processing_duration_seconds",
    "Time to process an uploaded file, by outcome (ready, failed).",
    ["outcome"],
    registry=REGISTRY,
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0),
)
CONVERSION_SECONDS = Histogram(
    "pressroom_conversion_duration_seconds",
    "Time to make a file fitted for a network (a derived file), by outcome (ready, failed).",
    ["outcome"],
    registry=REGISTRY,
    buckets=(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0),
)
DATABASE_BUSY = Counter(
    "pressroom_database_busy",
    "Requests answered 503 database_busy.",
    registry=REGISTRY,
)
WEBHOOK_ATTEMPTS = Histogram(
    "pressroom_webhook_attempt_duration_seconds",
    "Webhook delivery attempts by what came of them (delivered, retry, failed) and latency.",
    ["outcome"],
    registry=REGISTRY,
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
IDEMPOTENT_REPLAYS = Counter(
    "pressroom_idempotent_replays",
    "Answers replayed for a repeated Idempotency-Key.",
    registry=REGISTRY,
)

_METHODS = frozenset({"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"})

_requests: dict[tuple[str, str, int], Counter] = {}
_durations: dict[tuple[str, str], Histogram] = {}


_publishes: dict[tuple[str, str], Counter] = {}


def count_publish(platform: str, outcome: str) -> None:
    """Count one publish attempt (``PUBLISHES``); its labelled child cached, as for
    ``observe_request`` (``labels`` costs five times the count)."""
    key = (platform, outcome)
    counter = _publishes.get(key)
    if counter is None:
        counter = _publishes[key] = PUBLISHES.labels(platform, outcome)
    counter.inc()


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    """Count one answered request; the labelled children are cached, as this runs on
    every request."""
    if method not in _METHODS:
        method = "OTHER"  # any string can be sent as a method; labels stay bounded
    key = (method, route, status)
    counter = _requests.get(key)
    if counter is None:
        counter = _requests[key] = REQUESTS.labels(method, route, str(status))
    counter.inc()
    timing = _durations.get(key[:2])
    if timing is None:
        timing = _durations[key[:2]] = REQUEST_SECONDS.labels(method, route)
    timing.observe(seconds)


def render() -> bytes:
    return generate_latest(REGISTRY)
