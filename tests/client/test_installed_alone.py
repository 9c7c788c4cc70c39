"""``pip install pressroom`` alone: the client, the campaign validator and the CLI that runs
them, with nothing of the server or the orchestrator; what needs an extra says so.

The project is built and installed, without extras, into a fresh virtual environment
(at the versions of constraints.txt), and used from there against a live service
running from the full environment.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pressroom.settings import Settings
from tests.client.live import live_service

ROOT = Path(__file__).resolve().parents[2]
NOT_IN_CORE = (
    "fastapi",
    "starlette",
    "sqlalchemy",
    "alembic",
    "uvicorn",
    "prefect",
    "boto3",
    "psycopg",
    "av",
    "PIL",
    "pydantic_settings",
    "jinja2",
)


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` folder of a fresh venv holding ``pip install pressroom`` alone."""
    venv = tmp_path_factory.mktemp("installed-alone") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    installed = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-c",
            str(ROOT / "constraints.txt"),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    return venv / "bin"


def in_core(core: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(core / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={"PATH": f"{core}:/usr/bin:/bin", "HOME": str(core.parent)},
    )


def test_the_core_install_has_nothing_of_the_server_or_the_orchestrator(core: Path) -> None:
    script = (
        "import importlib.util, json, pressroom.client, pressroom.campaign\n"
        f"print(json.dumps([m for m in {NOT_IN_CORE!r} if importlib.util.find_spec(m)]))"
    )
    done = in_core(core, "python", "-c", script)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_client_installed_alone_publishes_to_a_live_service(
    core: Path, settings: Settings, tmp_path: Path
) -> None:
    with live_service(settings) as live:
        account = live.service.account()
        connection = account.connect("microblog", "@alone")
        script = textwrap.dedent(
            f"""
            import json
            from pressroom.client import Client, ConnectionStatus, PostStatus, ValidationError

            with Client(base_url={live.address!r}, api_key={account.key!r}) as client:
                [found] = client.connections_for("microblog")
                client.publish_microblog(
                    connection_id=found.id, text="from the client alone", idempotency_key="alone-1"
                )
                post = client.find_post(idempotency_key="alone-1")
                try:
                    client.publish_microblog(connection_id=found.id, text="")
                except ValidationError as exc:
                    refused = type(exc).__name__
            print(json.dumps({{
                "connection": found.id,
                "active": found.status == ConnectionStatus.ACTIVE,
                "published": post.status == PostStatus.PUBLISHED,
                "refused": refused,
            }}))
            """
        )
        done = in_core(core, "python", "-c", script)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == {
        "connection": connection,
        "active": True,
        "published": True,
        "refused": "ValidationError",
    }


def test_the_cli_installed_alone_validates_and_names_the_extra_a_command_needs(
    core: Path, tmp_path: Path
) -> None:
    version = in_core(core, "pressroom", "--version")
    assert version.returncode == 0 and version.stdout.startswith("pressroom "), version.stderr

    (tmp_path / "text.yaml").write_text(
        "name: words\nposts:\n  - id: a\n    microblog: {text: hi}\n"
    )
    valid = in_core(core, "pressroom", "campaign", "validate", "text.yaml", cwd=tmp_path)
    assert valid.returncode == 0, valid.stdout + valid.stderr

    with_media = in_core(
        core, "pressroom", "campaign", "validate", str(ROOT / "pipelines/demo.yaml")
    )
    assert with_media.returncode == 2, with_media.stdout + with_media.stderr
    assert "pip install 'pressroom[media]'" in with_media.stderr
    assert "Traceback" not in with_media.stderr

    api = in_core(core, "pressroom", "api")
    assert api.returncode == 2, api.stdout + api.stderr
    [line] = api.stderr.strip().splitlines()
    assert line.startswith("error: the service needs pressroom's 'server' extra"), line
    assert line.endswith("pip install 'pressroom[server]'"), line
