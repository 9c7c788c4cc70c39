"""How many processes ``pressroom api`` runs: fitted to the machine on PostgreSQL, one on
SQLite (refused above one) and with an ops port."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pressroom.cli.api import default_workers
from pressroom.cli.main import app

PG = "postgresql+psycopg://pressroom@127.0.0.1/pressroom"


def test_postgresql_gets_one_worker_per_cpu_up_to_eight() -> None:
    assert default_workers(PG, None, cpus=2) == 2
    assert default_workers(PG, None, cpus=64) == 8
    assert default_workers(PG, None, cpus=1) == 1


def test_sqlite_and_an_ops_port_keep_one() -> None:
    assert default_workers("sqlite:///data/pressroom.db", None, cpus=16) == 1
    assert default_workers(PG, 9100, cpus=16) == 1


def test_more_than_one_worker_on_sqlite_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PRESSROOM_DATABASE_URL", raising=False)
    monkeypatch.delenv("PRESSROOM_OPS_PORT", raising=False)
    done = CliRunner().invoke(
        app, ["api", "--workers", "2", "--port", "0", "--data-dir", str(tmp_path)]
    )
    assert done.exit_code == 2
    assert "--workers above 1 needs PostgreSQL" in done.stderr
