"""The ``pressroom`` command: ``api``, ``admin``, ``demo`` (and ``campaign``, ``serve``).

Each command group lives in its own module and imports the heavy parts (FastAPI,
SQLAlchemy, Prefect) inside its commands, so ``pressroom campaign validate`` stays fast.
"""
