"""The commands of Backups and restore, and of Upgrades and migrations, run as the pages
print them, on a real SQLite file and a real PostgreSQL, and the service started on what
they leave serves the data back.

Each ```bash``` block of a section is read from the page: a `pressroom api` line is
started in the background (on a free port, ``--port`` added: the page's default 8000 may
be taken) and waited for until ready; every other line runs and must exit 0, except the
install line of an upgrade (``pip install``), which ``scripts/setup`` runs for every
checkout. The data is made through the service itself (an account and a connection with
``pressroom admin``, run in this process, a file and posts through the API) and read back
through the API.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from alembic.script import ScriptDirectory
from PIL import Image
from sqlalchemy import create_engine, make_url, pool, text

from pressroom.client import Client
from pressroom.service.db.migrate import alembic_config
from pressroom.service.db.session import normalise_url
from tests.client.live import free_port
from tests.support.cli import run_in_process

# Minutes long: handed out first (scripts/test runs the files on parallel workers).
pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[2]
OPERATING = ROOT / "docs" / "operating"
BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
SERVES = re.compile(r"pressroom api\b")
INSTALLS = re.compile(r"pip install")
POSTGRES_URL = os.environ.get("PRESSROOM_TEST_POSTGRES_URL")


def section(page: str, heading: str) -> list[str]:
    """The ```bash``` blocks under ``## heading`` of ``docs/operating/<page>``."""
    text = (OPERATING / page).read_text(encoding="utf-8")
    assert f"\n## {heading}\n" in text, (page, heading)
    body = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = BLOCK.findall(body)
    assert blocks, (page, heading)
    return blocks


def commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip()]


def environment(**extra: str) -> dict[str, str]:
    """The shell's environment without the service's own settings (a developer's
    PRESSROOM_SECRET_KEY would make the secret_key file the page copies not exist)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRESSROOM_")}
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    return env | extra


def run(line: str, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (line, done.stdout, done.stderr)
    return done.stdout


@contextmanager
def serving(line: str, cwd: Path, env: dict[str, str]) -> Iterator[str]:
    """The page's `pressroom api` line running, at the address it answers on."""
    port = free_port()
    process = subprocess.Popen(
        ["bash", "-c", f"exec {line} --port {port}"],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    address = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else line
            try:
                if httpx.get(f"{address}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"{line} was not ready within 60 s"
            time.sleep(0.3)
        yield address
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def run_block(block: str, cwd: Path, env: dict[str, str]) -> str | None:
    """Every line of the block but a `pressroom api` one, which is returned to start."""
    serve = None
    for line in commands(block):
        if SERVES.search(line):
            serve = re.sub(r"\s+#.*$", "", line)  # its comment would swallow --port
        elif not INSTALLS.search(line):
            run(line, cwd, env)
    return serve


@dataclass
class Made:
    api_key: str
    connection_id: str
    file_id: str
    image: bytes
    before: str
    """The record id of the post published before the backup."""


def admin_json(cwd: Path, env: dict[str, str], *args: str) -> Any:
    """``pressroom admin --data-dir .pressroom ... --json`` as run in ``cwd``."""
    done = run_in_process(["admin", "--data-dir", str(cwd / ".pressroom"), *args, "--json"], env)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


def make_data(cwd: Path, env: dict[str, str], serve: str) -> Made:
    """An account, a connection, a file and a post, made through the service."""
    # The admin commands run in this process (tests.support.cli): they make the data, the
    # pages' commands are the ones run as printed.
    account = admin_json(
        cwd, env, "create-account", "--email", "ops@example.com", "--plan", "business"
    )
    connection = admin_json(
        cwd,
        env,
        "connect",
        "--account",
        "ops@example.com",
        "--platform",
        "microblog",
        "--name",
        "@acme",
    )
    picture = BytesIO()
    Image.new("RGB", (64, 48), "orange").save(picture, format="PNG")
    with (
        serving(serve, cwd, env) as address,
        Client(base_url=address, api_key=account["apiKey"]) as client,
    ):
        uploaded = client.upload(picture.getvalue(), filename="before.png")
        post = client.publish_microblog(connection_id=connection["id"], text="Before the backup")
    return Made(
        account["apiKey"], connection["id"], uploaded.file_id, picture.getvalue(), post.record_id
    )


def served_back(address: str, made: Made) -> None:
    """The restored service knows the key, the post, the file's bytes and the
    connection's token (which only the restored secret key decrypts)."""
    with Client(base_url=address, api_key=made.api_key) as client:
        posts = [post.record_id for post in client.iter_posts()]
        assert posts == [made.before]
        assert client.get_post(made.before).status == "published"
        assert client.download(made.file_id) == made.image
        again = client.publish_microblog(connection_id=made.connection_id, text="After restore")
        assert again.status == "published"


def version(database: str) -> str:
    """The migration a database is at."""
    engine = create_engine(database, poolclass=pool.NullPool)
    with engine.connect() as conn:
        found: str = conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
    engine.dispose()
    return found


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """Where the pages' commands run: a directory with the project's .venv."""
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    return tmp_path


def test_the_sqlite_backup_and_restore_run_as_printed(checkout: Path) -> None:
    backup, restore = section("backups.md", "SQLite")
    env = environment()
    made = make_data(checkout, env, ".venv/bin/pressroom api --data-dir .pressroom")

    with serving(".venv/bin/pressroom api --data-dir .pressroom", checkout, env) as address:
        assert run_block(backup, checkout, env) is None  # online: the service keeps running
        with Client(base_url=address, api_key=made.api_key) as client:
            client.publish_microblog(connection_id=made.connection_id, text="After the backup")

    serve = run_block(restore, checkout, env)
    assert serve is not None, "the restore ends by starting the service"
    assert "restored" in serve
    with serving(serve, checkout, env) as address:
        served_back(address, made)


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """A database of its own on the test server, dropped after."""
    if not POSTGRES_URL:
        pytest.skip("needs PRESSROOM_TEST_POSTGRES_URL (bash scripts/postgres)")
    name = f"backup_{uuid.uuid4().hex[:12]}"
    admin = create_engine(
        normalise_url(POSTGRES_URL), poolclass=pool.NullPool, isolation_level="AUTOCOMMIT"
    )
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.mark.postgres
def test_the_postgresql_dump_and_restore_run_as_printed(
    checkout: Path, postgres_database: str
) -> None:
    (block,) = section("backups.md", "PostgreSQL")
    dump, restore = commands(block)
    assert dump.startswith("pg_dump ") and restore.startswith("pg_restore ")
    env = environment(PRESSROOM_DATABASE_URL=postgres_database)
    serve = ".venv/bin/pressroom api --data-dir .pressroom"
    made = make_data(checkout, env, serve)

    with serving(serve, checkout, env) as address:
        run(dump, checkout, env)  # a consistent snapshot of the running database
        with Client(base_url=address, api_key=made.api_key) as client:
            client.publish_microblog(connection_id=made.connection_id, text="After the backup")
    run(restore, checkout, env)  # with every process stopped, over the database

    with serving(serve, checkout, env) as address:
        served_back(address, made)


def test_an_upgrade_on_one_machine_runs_as_printed(checkout: Path) -> None:
    """An older database with data in it is migrated by the page's commands, and the
    service started after serves its data."""
    (block,) = section("upgrades.md", "One machine")
    env = environment()
    made = make_data(checkout, env, ".venv/bin/pressroom api --data-dir .pressroom")
    database = f"sqlite:///{checkout / '.pressroom' / 'pressroom.db'}"
    command.downgrade(alembic_config(database), "-1")  # as the previous release left it
    older = version(database)

    serve = run_block(block, checkout, env)
    assert serve is not None
    assert (
        version(database)
        == ScriptDirectory.from_config(alembic_config(database)).get_current_head()
    )
    with serving(serve, checkout, env) as address:
        ready = httpx.get(f"{address}/readyz").json()
        assert "migrations" in str(ready) and older not in str(ready)
        served_back(address, made)
