"""A migrated, empty Prefect database, copied into a ``PREFECT_HOME`` that has none yet.

A Prefect server on a fresh ``PREFECT_HOME`` spends most of its start migrating an empty
SQLite database: about 9 s to its first answer on a 2-core machine, against 3.4 s once
the database exists (``benchmarks/``, first result). The migrations end in the same
database every time for one migration head, so pressroom ships that database in the
package (``prefect_templates/prefect-<head>.db.xz``, 42 KB compressed), and every server
pressroom starts (a run's temporary one, ``pressroom serve``'s) copies it in first when
the home has no database. Prefect then finds its migrations applied and starts as on a
home it used before; it still registers its block types, as on any new database path.
A plain ``pip install`` therefore starts fast on its first run, with no step of its own.

Templates are keyed by the installed Prefect's migration head (the newest file name among
its SQLite migrations, which are named by date), not by its version, so a Prefect release
without new migrations still finds the shipped one. When none matches (a Prefect newer than
the one pressroom was released with), the first command builds it once with Prefect's own
server start into the user's cache directory, under a file lock so that commands starting
together build it once, and every later fresh home is copied from there.
``python -m pressroom.pipeline.prefect_template --package`` rebuilds the shipped one for the
installed Prefect (a test fails while it is missing for the pinned version).

Two are shipped: one for the Prefect of ``constraints.txt`` (3.8.8, what ``scripts/setup``
installs) and one for the newest release pyproject's range allowed when pressroom was
released (3.9.1, what a plain ``pip install`` picks; without it that install's first run
built the template, 21 s to the first published row against 10 s on the second). To add
the next release's, install pressroom beside it in a scratch venv, run ``--package`` there
and copy the file in.

Nothing is copied when Prefect is told to use another database (any
``PREFECT_*_DATABASE_*`` connection setting in the environment or the active profile) or
when the home already has a database: Prefect then does as it always does.
"""

from __future__ import annotations

import logging
import lzma
import os
import shutil
import sqlite3
import sys
import tempfile
from contextlib import closing, suppress
from pathlib import Path
from typing import IO

from pressroom.pipeline import prefect_settings
from pressroom.pipeline.prefect_home import prefect_home, profile_settings
from pressroom.pipeline.prefect_server import TemporaryServer

logger = logging.getLogger("pressroom.pipeline")

DATABASE = "prefect.db"
"""Prefect's default database file in ``PREFECT_HOME``."""

DATABASE_SETTINGS = tuple(
    f"PREFECT_{scope}_DATABASE_{name}"
    for scope in ("SERVER", "API")
    for name in ("CONNECTION_URL", "DRIVER", "HOST", "NAME")
)
"""Any of these moves Prefect's database away from ``$PREFECT_HOME/prefect.db``."""


PACKAGED = Path(__file__).with_name("prefect_templates")
"""Where the shipped templates live, one per Prefect migration head."""


def migration_head() -> str:
    """The installed Prefect's newest SQLite migration, read from its file names
    (``<date>_<revision>_<what>.py``) without importing Prefect or alembic."""
    import importlib.util

    spec = importlib.util.find_spec("prefect")
    assert spec is not None and spec.origin is not None, "Prefect is not installed"
    versions = Path(spec.origin).parent / "server/database/_migrations/versions/sqlite"
    newest = max(p.name for p in versions.glob("[0-9]*_*.py"))
    return newest.split("_")[4]


def packaged_path(head: str | None = None) -> Path:
    """The shipped template for a migration head (it may not exist)."""
    return PACKAGED / f"prefect-{head or migration_head()}.db.xz"


def template_path() -> Path:
    """Where a template built on this machine lives: the user's cache directory."""
    from platformdirs import user_cache_path

    return user_cache_path("pressroom") / f"prefect-{migration_head()}.db"


def default_database_in_use() -> bool:
    """Whether Prefect would use ``$PREFECT_HOME/prefect.db`` (read without importing it)."""
    profile = profile_settings()
    return not any(os.environ.get(name) or profile.get(name) for name in DATABASE_SETTINGS)


def at_head(home: Path | None = None) -> bool:
    """Whether ``home``'s database is Prefect's default one and already migrated to the
    installed Prefect's head, read with ``sqlite3`` (no Prefect import).

    A server started on it has nothing to migrate: Prefect's start would still import
    alembic and load every migration script to find that out (``benchmarks/``: the
    temporary server's start). False whenever in doubt (no database, another database,
    an older or newer revision, a database being written), so Prefect then migrates as
    it always does.
    """
    if not default_database_in_use():
        return False
    target = (home or prefect_home()) / DATABASE
    if not target.is_file():
        return False
    try:
        with closing(sqlite3.connect(f"{target.as_uri()}?mode=ro", uri=True, timeout=1)) as db:
            revisions = db.execute("SELECT version_num FROM alembic_version").fetchall()
    except sqlite3.Error:
        return False
    return revisions == [(migration_head(),)]


def seed(home: Path | None = None) -> bool:
    """Copy the template into ``home`` if it has no database yet; True if it did.

    Atomic (a copy under a temporary name, then a hard link that fails if the database
    appeared meanwhile), so two commands starting at once on a fresh home both find one
    whole database."""
    home = home or prefect_home()
    target = home / DATABASE
    if target.exists():  # the usual case, and the cheapest check first
        return False
    if not default_database_in_use():
        return False
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=home, prefix=".prefect-", delete=False) as scratch:
        partial = Path(scratch.name)
    try:
        with _open_template() as template, partial.open("wb") as copy:
            shutil.copyfileobj(template, copy)
        try:
            os.link(partial, target)  # only if still absent: never over a database in use
        except FileExistsError:
            return False  # another command seeded it meanwhile
    finally:
        with suppress(FileNotFoundError):
            partial.unlink()
    logger.debug("started Prefect's database from its template")
    return True


def _open_template() -> IO[bytes]:
    """The template's bytes: a copy built on this machine, else the shipped one, else one
    built now into the cache (once, whichever command gets the lock first)."""
    built = template_path()
    if built.is_file():
        return built.open("rb")
    packaged = packaged_path()
    if packaged.is_file():
        return lzma.open(packaged)
    from filelock import FileLock

    built.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(built.with_suffix(".lock")):
        if not built.is_file():  # not built by the command that held the lock before
            logger.info("building Prefect's database template (once): %s", built)
            build(built)
    return built.open("rb")


def build(path: Path | None = None) -> Path:
    """Migrate an empty database with Prefect's own server start, and keep it as the
    template (replacing one built before)."""
    path = path or template_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pressroom-prefect-") as scratch:
        ignored = {
            *DATABASE_SETTINGS,
            "PREFECT_API_URL",
            "PREFECT_PROFILE",
            "PREFECT_PROFILES_PATH",
        }
        environ = {name: value for name, value in os.environ.items() if name not in ignored}
        environ["PREFECT_HOME"] = scratch
        prefect_settings.apply(environ, prefect_settings.SERVER)
        server = TemporaryServer(environ=environ)
        try:
            server.wait_ready()
        finally:
            server.stop()
        built = Path(scratch) / DATABASE
        with sqlite3.connect(built) as db:  # everything in the one file, still in WAL mode
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        staged = path.with_suffix(".partial")
        shutil.copyfile(built, staged)
        os.replace(staged, path)
    return path


def package() -> Path:
    """Build the template for the installed Prefect and ship it, compressed."""
    target = packaged_path()
    with tempfile.TemporaryDirectory(prefix="pressroom-prefect-") as scratch:
        built = build(Path(scratch) / "template.db")
        with sqlite3.connect(built) as db:
            [(revision,)] = db.execute("SELECT version_num FROM alembic_version").fetchall()
        if revision != migration_head():
            raise SystemExit(f"Prefect migrated to {revision}, not {migration_head()}")
        target.parent.mkdir(parents=True, exist_ok=True)
        with built.open("rb") as source, lzma.open(target, "wb", preset=9) as packed:
            shutil.copyfileobj(source, packed)
    return target


def main() -> None:
    if "--package" in sys.argv[1:]:
        print(f"Prefect database template shipped: {package()}")
        return
    path = template_path()
    if path.is_file() and "--force" not in sys.argv[1:]:
        print(f"Prefect database template already built: {path}")
        return
    print(f"Prefect database template: {build(path)}")


if __name__ == "__main__":
    main()
