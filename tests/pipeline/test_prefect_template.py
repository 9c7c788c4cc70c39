"""A fresh ``PREFECT_HOME`` starts from a database whose migrations are applied, and only a
fresh one: a used home, another database, or no template leave Prefect to itself."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pressroom.pipeline import prefect_template
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.pipeline.test_prefect_server import pressroom


@pytest.fixture
def template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in template (one table), wherever the installed one would be."""
    path = tmp_path / "share" / "prefect-template.db"
    path.parent.mkdir()
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE alembic_version (version_num TEXT)")
        db.execute("INSERT INTO alembic_version VALUES ('head')")
    monkeypatch.setattr(prefect_template, "template_path", lambda: path)
    for name in (*prefect_template.DATABASE_SETTINGS, "PREFECT_PROFILE", "PREFECT_PROFILES_PATH"):
        monkeypatch.delenv(name, raising=False)
    return path


def version_in(database: Path) -> list[tuple[str]]:
    with sqlite3.connect(database) as db:
        return db.execute("SELECT version_num FROM alembic_version").fetchall()


def test_a_fresh_home_gets_the_template_and_a_used_one_keeps_its_database(
    template: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"  # does not exist yet, as on a first run
    assert prefect_template.seed(home) is True
    assert version_in(home / "prefect.db") == [("head",)]
    assert [p.name for p in home.iterdir()] == ["prefect.db"]  # no partial copy left

    with sqlite3.connect(home / "prefect.db") as db:
        db.execute("UPDATE alembic_version SET version_num = 'used'")
    assert prefect_template.seed(home) is False
    assert version_in(home / "prefect.db") == [("used",)]


def test_commands_starting_together_on_a_fresh_home_seed_it_once(
    template: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    with ThreadPoolExecutor(8) as pool:
        seeded = list(pool.map(lambda _: prefect_template.seed(home), range(8)))
    assert seeded.count(True) == 1
    assert version_in(home / "prefect.db") == [("head",)]
    assert [p.name for p in home.iterdir()] == ["prefect.db"]


def test_a_database_named_elsewhere_is_never_seeded(
    template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("PREFECT_HOME", str(home))
    monkeypatch.setenv("PREFECT_API_DATABASE_CONNECTION_URL", "postgresql+asyncpg://db/prefect")
    assert prefect_template.seed(home) is False
    monkeypatch.delenv("PREFECT_API_DATABASE_CONNECTION_URL")

    home.mkdir()
    (home / "profiles.toml").write_text(
        'active = "pg"\n[profiles.pg]\n'
        'PREFECT_SERVER_DATABASE_CONNECTION_URL = "postgresql+asyncpg://db/prefect"\n'
    )
    assert prefect_template.seed(home) is False
    assert not (home / "prefect.db").exists()


def test_without_a_template_prefect_migrates_as_usual(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prefect_template, "template_path", lambda: tmp_path / "missing.db")
    assert prefect_template.seed(tmp_path / "home") is False
    assert not (tmp_path / "home").exists()


def test_a_run_on_a_home_started_from_the_built_template_is_recorded(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = prefect_template.build(tmp_path / "template.db")
    assert not built.with_suffix(".partial").exists()
    with sqlite3.connect(built) as db:
        [(revision,)] = db.execute("SELECT version_num FROM alembic_version").fetchall()
        assert db.execute("SELECT count(*) FROM flow_run").fetchone() == (0,)
    monkeypatch.setattr(prefect_template, "template_path", lambda: built)
    home = tmp_path / "prefect-home"
    assert prefect_template.seed(home) is True

    live_service.connect("microblog", "@acme")
    campaign = write_campaign("name: seeded\nposts:\n  - id: hello\n    microblog: {text: hi}\n")
    done = pressroom("campaign", "run", str(campaign), api_url=None, home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(home / "prefect.db") as db:
        # Prefect found its migrations applied: the same revision, and the run recorded.
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(revision,)]
        assert db.execute("SELECT state_type FROM flow_run").fetchall() == [("COMPLETED",)]
