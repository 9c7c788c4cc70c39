"""Webhooks: signed events pushed to the account's endpoints, at least once.

- ``pressroom.service.events``: the event types, and ``emit``, which writes an event and
  a delivery per subscribed endpoint in the transaction of the change that caused it
  (no event without its change, no change without its event).
- ``queue``: deliveries as durable jobs (claimed under a lease, first in first out per
  endpoint and resource, retried with backoff until the retry period ends).
- ``dispatcher``: the background sender, in every process that runs jobs.
- ``signing``, ``targets``: Standard Webhooks signatures; which URLs may be called.
- ``service``, ``endpoints``, ``schemas``: managing endpoints in the API and dashboard.
- ``docs``: the event catalogue in the OpenAPI document.
"""
