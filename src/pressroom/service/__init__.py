"""The pressroom HTTP service: FastAPI over SQLAlchemy, object storage and platform drivers.

One folder per domain (accounts, connections, media, folders, publishing), each with the
same files: ``endpoints.py`` (routes only), ``service.py`` (the rules), ``repository.py``
(the only place with SQL) and ``schemas.py`` (request and response models). Errors are
``ServiceError`` subclasses raised anywhere below the routes and rendered by one handler
into ``{"success": false, "error": {"code", "message", "field", "requestId"}}``.
``ops/`` is what an operator sees: request ids, logs, ``/healthz``, ``/readyz`` and
``/metrics``.
"""
