"""Webhooks: signed events pushed to the account's endpoints, at least once.

- ``pressroom.service.events``: the event types, and ``emit``, which writes an event (kept
  whether or not an endpoint listens) and a delivery per subscribed endpoint in the
  transaction of the change that caused it (no event without its change, no change
  without its event).
- ``queue``: deliveries as durable jobs (claimed under a lease, first in first out per
  endpoint and resource, at most so many in flight per endpoint across processes,
  retried with backoff until the retry period ends).
- ``dispatcher``: the background sender, in every process that runs jobs; ``transport``:
  how it connects (to checked addresses only, within one deadline per attempt).
- ``signing``; ``targets`` and ``addresses``: Standard Webhooks signatures; which URLs and
  addresses may be called.
- ``service``, ``endpoints``, ``schemas``: managing endpoints in the API and dashboard;
  ``history``, ``events_endpoints``: the account's events, and sending them again.
- ``docs``: the event catalogue in the OpenAPI document.
"""
