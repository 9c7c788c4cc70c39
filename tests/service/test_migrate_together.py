"""Migrations run once when several processes start them together (replicas starting, or
``pressroom admin migrate`` beside a starting ``pressroom api``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text

from benchmarks.common import postgres_database
from pressroom.service.db.migrate import alembic_config
from pressroom.service.db.session import normalise_url
from tests.conftest import _require_postgres

TOGETHER = 3


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with no schema at all."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    with postgres_database(_require_postgres()) as url:
        yield url


def test_admin_migrate_started_together_migrates_once(empty_database: str, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PRESSROOM_DATABASE_URL": empty_database,
        "PRESSROOM_DATA_DIR": str(tmp_path / "data"),
    }
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "pressroom.cli.main", "admin", "migrate"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(TOGETHER)
    ]
    outputs = [process.communicate(timeout=300)[0] for process in started]
    assert [p.returncode for p in started] == [0] * TOGETHER, "\n---\n".join(outputs)

    head = ScriptDirectory.from_config(alembic_config(empty_database)).get_current_head()
    engine = create_engine(normalise_url(empty_database))
    with engine.connect() as conn:
        versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    engine.dispose()
    assert versions == [head]
