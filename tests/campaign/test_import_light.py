"""``pressroom campaign validate`` runs as a pre-commit hook: it must not load the service."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.campaign.test_schema import PIPELINES

HEAVY = ("prefect", "fastapi", "starlette", "sqlalchemy", "boto3", "botocore", "httpx")


def loaded_after(code: str) -> dict[str, object]:
    script = textwrap.dedent(
        f"""
        import json, sys
        {textwrap.indent(textwrap.dedent(code), "        ").strip()}
        heavy = {HEAVY!r}
        found = sorted({{m.split(".")[0] for m in sys.modules}} & set(heavy))
        print(json.dumps({{"heavy": found, "service": "pressroom.service" in sys.modules}}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_validate_through_the_cli_loads_nothing_heavy() -> None:
    result = loaded_after(
        f"""
        from pressroom.cli.main import app
        try:
            app(["campaign", "validate", {str(PIPELINES)!r}])
        except SystemExit as exit:
            assert exit.code == 0, exit.code
        """
    )
    assert result == {"heavy": [], "service": False}


def test_load_and_plan_load_nothing_heavy() -> None:
    result = loaded_after(
        f"""
        from pressroom.campaign import load, plan
        campaign = load({str(PIPELINES / "demo.yaml")!r})
        plan(campaign, [{{"id": "c1", "platform": "microblog", "name": "@acme"}}])
        """
    )
    assert result == {"heavy": [], "service": False}


def test_preview_loads_no_client_and_nothing_heavy(tmp_path: Path) -> None:
    """The preview sends nothing anywhere: it does not even load an HTTP client."""
    result = loaded_after(
        f"""
        from pressroom.cli.main import app
        for args in ([], ["--format", "html", "-o", {str(tmp_path)!r} + "/p.html"]):
            try:
                app(["campaign", "preview", {str(PIPELINES)!r}, *args])
            except SystemExit as exit:
                assert exit.code == 0, exit.code
        """
    )
    assert result == {"heavy": [], "service": False}
