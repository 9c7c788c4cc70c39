"""Alembic environment: the URL comes from ``pressroom.service.db.migrate`` or alembic.ini."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

from pressroom.service.db import models  # noqa: F401  (registers the tables)
from pressroom.service.db.base import Base
from pressroom.settings import get_settings

config = context.config
if not config.get_main_option("sqlalchemy.url"):
    from pressroom.service.db.session import normalise_url

    config.set_main_option(
        "sqlalchemy.url", normalise_url(get_settings().database_url).replace("%", "%%")
    )


def run_migrations_online() -> None:
    engine = engine_from_config(
        config.get_section(config.config_ini_section, {}),
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=Base.metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations_online()
