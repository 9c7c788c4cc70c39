"""A migrated, empty Prefect database, copied into a ``PREFECT_HOME`` that has none yet.

A Prefect server on a fresh ``PREFECT_HOME`` spends most of its start migrating an empty
SQLite database: about 9 s to its first answer on a 2-core machine, against 3.4 s once
the database exists (``benchmarks/``, first result). The migrations end in the same
database every time for one Prefect version, so ``scripts/setup`` builds it once, beside
the installed packages (``python -m pressroom.pipeline.prefect_template``), and every
server pressroom starts (a run's temporary one, ``pressroom serve``'s) copies it in first
when the home has no database. Prefect then finds its migrations applied and starts as
on a home it used before; it still registers its block types, as on any new database
path.

Nothing is copied when Prefect is told to use another database (any
``PREFECT_*_DATABASE_*`` connection setting in the environment or the active profile),
when the home already has a database, or when no template was built for the installed
Prefect version: Prefect then migrates as usual.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import sys
import tempfile
from contextlib import suppress
from importlib.metadata import version
from pathlib import Path

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


def template_path() -> Path:
    """Where the template for the installed Prefect lives: beside the packages."""
    return Path(sys.prefix) / "share" / "pressroom" / f"prefect-{version('prefect')}.db"


def default_database_in_use() -> bool:
    """Whether Prefect would use ``$PREFECT_HOME/prefect.db`` (read without importing it)."""
    profile = profile_settings()
    return not any(os.environ.get(name) or profile.get(name) for name in DATABASE_SETTINGS)


def seed(home: Path | None = None) -> bool:
    """Copy the template into ``home`` if it has no database yet; True if it did.

    Atomic (a copy under a temporary name, then a hard link that fails if the database
    appeared meanwhile), so two commands starting at once on a fresh home both find one
    whole database."""
    home = home or prefect_home()
    target = home / DATABASE
    if target.exists():  # the usual case, and the cheapest check first
        return False
    template = template_path()
    if not template.is_file() or not default_database_in_use():
        return False
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=home, prefix=".prefect-", delete=False) as scratch:
        partial = Path(scratch.name)
    try:
        shutil.copyfile(template, partial)
        try:
            os.link(partial, target)  # only if still absent: never over a database in use
        except FileExistsError:
            return False  # another command seeded it meanwhile
    finally:
        with suppress(FileNotFoundError):
            partial.unlink()
    logger.debug("started Prefect's database from %s", template)
    return True


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


def main() -> None:
    path = template_path()
    if path.is_file() and "--force" not in sys.argv[1:]:
        print(f"Prefect database template already built: {path}")
        return
    print(f"Prefect database template: {build(path)}")


if __name__ == "__main__":
    main()
