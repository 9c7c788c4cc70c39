"""The migrations build exactly the schema the models describe, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

from pressroom.service.db import models  # noqa: F401  (registers the tables)
from pressroom.service.db.base import Base
from pressroom.service.db.session import normalise_url


def test_migrated_schema_matches_the_models(database_url: str) -> None:
    engine = create_engine(normalise_url(database_url))
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": False})
        differences = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert differences == []
