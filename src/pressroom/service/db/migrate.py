"""Apply the Alembic migrations programmatically (at start-up and from the admin CLI)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from pressroom.service.db.session import normalise_url

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser treats % as interpolation; URLs may hold escaped passwords.
    config.set_main_option("sqlalchemy.url", normalise_url(database_url).replace("%", "%%"))
    return config


def upgrade(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")
