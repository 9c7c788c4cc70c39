"""The OpenAPI document is the contract: schemathesis, every check, against a live service.

``st run`` generates requests from ``/openapi.json`` (valid ones, and ones that break it
on purpose) and checks each answer against the document: statuses, bodies, headers,
schema-valid requests accepted and schema-violating ones refused, 405s with ``Allow``,
authentication required. Whatever JSON Schema cannot express is stepped around in one
place, ``schemathesis_hooks.py``, with the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from fastapi.routing import APIRoute, iter_route_contexts

from pressroom.service.app import create_app
from pressroom.settings import DatabaseSettings, Settings
from tests.service.test_media_live import api_key, live_service

EXAMPLES_PER_OPERATION = 50

EXCLUDED = {
    # Rotating the key would lock the rest of the run out: every later request carries
    # the key it started with. Rotation has its own tests (test_api_keys.py).
    "rotate_api_key",
}


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_service_keeps_its_openapi_contract(database_url: str, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    with live_service(tmp_path / "data", database_url) as live:
        key = api_key(database_url)
        environment = {
            **os.environ,
            "SCHEMATHESIS_HOOKS": "tests.service.schemathesis_hooks",
            "PYTHONPATH": os.pathsep.join([str(Path.cwd()), str(Path.cwd() / "src")]),
        }
        run = subprocess.run(
            [
                str(Path(sys.executable).with_name("st")),
                "run",
                f"{live.base_url}/openapi.json",
                "--checks=all",
                f"--max-examples={EXAMPLES_PER_OPERATION}",
                "--header",
                f"X-API-Key: {key}",
                *(f"--exclude-operation-id={name}" for name in sorted(EXCLUDED)),
                "--workers=1",
                "--seed=20261123",
                "--report=junit",
                f"--report-junit-path={report}",
                "--no-color",
            ],
            env=environment,
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    suites = ElementTree.parse(report).getroot()
    cases = list(suites.iter("testcase"))
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == [], output[-6000:]
    exercised = {str(c.get("name")) for c in cases} - {"Stateful tests"}  # a phase, not a route
    expected = {label for label in operation_labels() if label[1] not in EXCLUDED}
    assert exercised == {label for label, _ in expected}, output[-3000:]


def operation_labels() -> set[tuple[str, str]]:
    """``("POST /api/v2/microblog/publish", "publish_microblog")`` for every route the app
    routes (not read from the document under test)."""
    app = create_app(Settings(db=DatabaseSettings(database_url="sqlite://")), migrate=False)
    return {
        (f"{method} {context.path}", context.name)
        for context in iter_route_contexts(app.router.routes)
        if isinstance(context.original_route, APIRoute) and context.original_route.include_in_schema
        for method in context.methods or ()
    }
