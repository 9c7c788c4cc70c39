"""Events: what happened, written by each domain in the transaction of its change.

``catalog`` names the event types; ``outbox.emit`` writes an event and its deliveries.
Sending them is ``webhooks``' job; this package is below every domain that emits, so
their imports point down to it.
"""
