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


def test_only_the_default_database_at_the_installed_head_is_started_unmigrated(
    template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A temporary server skips Prefect's migrations only where they would do nothing."""
    home = tmp_path / "home"
    assert prefect_template.at_head(home) is False  # no database yet
    home.mkdir()
    with sqlite3.connect(home / "prefect.db") as db:
        db.execute("CREATE TABLE alembic_version (version_num TEXT)")
        db.execute("INSERT INTO alembic_version VALUES (?)", (prefect_template.migration_head(),))
    assert prefect_template.at_head(home) is True

    monkeypatch.setenv("PREFECT_API_DATABASE_CONNECTION_URL", "postgresql+asyncpg://db/prefect")
    assert prefect_template.at_head(home) is False  # Prefect would not use that file
    monkeypatch.delenv("PREFECT_API_DATABASE_CONNECTION_URL")

    with sqlite3.connect(home / "prefect.db") as db:
        db.execute("UPDATE alembic_version SET version_num = 'older'")
    assert prefect_template.at_head(home) is False  # an older Prefect's: migrate it
    (home / "prefect.db").write_bytes(b"not a database")
    assert prefect_template.at_head(home) is False


def test_the_install_ships_the_template_of_the_installed_prefects_migration_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain install has it: no build step, no cache; and the head is Prefect's own."""
    import prefect
    from alembic.script import ScriptDirectory

    migrations = Path(prefect.__file__).parent / "server/database/_migrations"
    script = ScriptDirectory(
        str(migrations), version_locations=[str(migrations / "versions/sqlite")]
    )
    assert prefect_template.migration_head() == script.get_current_head()
    shipped = prefect_template.packaged_path()
    assert shipped.is_file(), "python -m pressroom.pipeline.prefect_template --package"

    for name in (*prefect_template.DATABASE_SETTINGS, "PREFECT_PROFILE", "PREFECT_PROFILES_PATH"):
        monkeypatch.delenv(name, raising=False)
    cache = tmp_path / "cache" / "prefect.db"
    monkeypatch.setattr(prefect_template, "template_path", lambda: cache)
    home = tmp_path / "home"
    assert prefect_template.seed(home) is True
    assert version_in(home / "prefect.db") == [(script.get_current_head(),)]
    assert not cache.parent.exists()  # nothing written to the user's cache


def test_each_shipped_template_is_the_database_its_name_promises(tmp_path: Path) -> None:
    """A template is found by the migration head in its name: one whose database stopped
    at another revision would start a Prefect on a schema it does not expect."""
    import lzma

    shipped = sorted(prefect_template.PACKAGED.glob("prefect-*.db.xz"))
    assert prefect_template.packaged_path() in shipped
    assert len(shipped) >= 2  # the pinned Prefect's and the newest release pyproject allows
    for packed in shipped:
        database = tmp_path / packed.name.removesuffix(".xz")
        database.write_bytes(lzma.decompress(packed.read_bytes()))
        head = packed.name.removeprefix("prefect-").removesuffix(".db.xz")
        assert version_in(database) == [(head,)], packed.name
        with sqlite3.connect(database) as db:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        assert {"flow", "flow_run", "task_run", "deployment"} <= tables, packed.name


def test_without_a_template_for_its_head_one_is_built_once_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Prefect newer than the shipped template: commands starting together on fresh
    homes build it once, under the lock, and each home gets the built database."""
    for name in (*prefect_template.DATABASE_SETTINGS, "PREFECT_PROFILE", "PREFECT_PROFILES_PATH"):
        monkeypatch.delenv(name, raising=False)
    cache = tmp_path / "cache" / "prefect-head.db"
    monkeypatch.setattr(prefect_template, "template_path", lambda: cache)
    monkeypatch.setattr(prefect_template, "packaged_path", lambda: tmp_path / "none.db.xz")
    builds: list[Path] = []
    real_build = prefect_template.build

    def counted_build(path: Path | None = None) -> Path:
        builds.append(real_build(path))
        return builds[-1]

    monkeypatch.setattr(prefect_template, "build", counted_build)
    homes = [tmp_path / f"home-{index}" for index in range(3)]
    with ThreadPoolExecutor(3) as pool:
        seeded = list(pool.map(prefect_template.seed, homes))
    assert seeded == [True, True, True]
    assert builds == [cache]
    head = prefect_template.migration_head()
    assert [version_in(home / "prefect.db") for home in homes] == [[(head,)]] * 3


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
