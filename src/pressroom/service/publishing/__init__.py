"""Publishing to the eight platforms (spec 4.4) and the record of every attempt.

- ``endpoints``: the nine publish routes and ``GET /api/posts[/{recordId}]``.
- ``rules``: what a publish must pass, read from ``pressroom.platforms.RULES``.
- ``service``: check, record, send, record the answer (see its docstring for why a
  publish is three units of work and never one transaction).
- ``idempotency``: ``Idempotency-Key``, race-safe through the database's unique
  constraint; the route class that applies it.
- ``repository``: the SQL for ``posts`` and ``idempotency_keys``.

Contracts other parts rely on: a publish result carries ``recordId``;
``GET /api/posts?idempotencyKey=K`` lists every attempt made under a key, newest first,
with its status (``sending``, ``published``, ``failed``: never reached the platform,
``unknown``: the platform failed after receiving it).
"""
