"""The OpenAPI document is the contract: schemathesis, every check, against a live service.

``st run`` generates requests from ``/openapi.json`` (valid ones, and ones that break it
on purpose) and checks each answer against the document: statuses, bodies, headers,
schema-valid requests accepted and schema-violating ones refused, 405s with ``Allow``,
authentication required. Whatever JSON Schema cannot express is stepped around in one
place, ``schemathesis_hooks.py``, with the reason.

The operations are tested in groups of tags, one test each, against one live service for
the module, and the stateful phase once over every operation: the same cases as one run
over the whole document, without one test carrying the whole run under one time limit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from fastapi.routing import APIRoute, iter_route_contexts

from pressroom.service.app import create_app
from pressroom.settings import DatabaseSettings, Settings
from tests.service.test_media_live import api_key, live_service

# Minutes long: handed out first (scripts/test runs the files on parallel workers).
pytestmark = pytest.mark.long

EXAMPLES_PER_OPERATION = 50

EXCLUDED = {
    # Rotating the key would lock the rest of the run out: every later request carries
    # the key it started with. Rotation has its own tests (test_api_keys.py).
    "rotate_api_key",
}

# Each operation's tag puts it in exactly one group (checked below, so a new tag must be
# placed); a group of many slow operations is cut into parts, in the order of their names.
# The ten publish routes take about 20 s each on a busy machine, the others 8 s or less.
GROUPS: dict[str, frozenset[str]] = {
    "publishing": frozenset({"publishing"}),
    "webhooks": frozenset({"webhooks", "events"}),
    "media": frozenset({"media", "folders", "storage"}),
    "accounts": frozenset({"api key", "connections", "metrics", "posts"}),
}
PARTS = {"publishing": 3}
PER_OPERATION_PHASES = "examples,coverage,fuzzing"


@dataclass(frozen=True)
class Operation:
    label: str  # "POST /api/v2/microblog/publish"
    name: str  # "publish_microblog"
    tags: tuple[str, ...]


@dataclass(frozen=True)
class Contract:
    base_url: str
    key: str


@pytest.fixture(scope="module")
def contract(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Contract]:
    """One live service on SQLite for every group: each group's run creates what it reads."""
    root = tmp_path_factory.mktemp("contract")
    database = root / "pressroom.db"
    database.write_bytes(sqlite_template.read_bytes())
    database_url = f"sqlite:///{database}"
    with live_service(root / "data", database_url) as live:
        yield Contract(live.base_url, api_key(database_url))


def schemathesis_run(contract: Contract, tmp_path: Path, *options: str) -> tuple[str, set[str]]:
    """Run ``st run`` with every check; returns its output and the operations it exercised,
    after asserting that nothing failed."""
    report = tmp_path / "junit.xml"
    environment = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.service.schemathesis_hooks",
        "PYTHONPATH": os.pathsep.join([str(Path.cwd()), str(Path.cwd() / "src")]),
    }
    run = subprocess.run(
        [
            str(Path(sys.executable).with_name("st")),
            "run",
            f"{contract.base_url}/openapi.json",
            "--checks=all",
            f"--max-examples={EXAMPLES_PER_OPERATION}",
            "--header",
            f"X-API-Key: {contract.key}",
            *(f"--exclude-operation-id={name}" for name in sorted(EXCLUDED)),
            *options,
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
    cases = list(ElementTree.parse(report).getroot().iter("testcase"))
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == [], output[-6000:]
    return output, {str(c.get("name")) for c in cases}


def test_every_operation_is_in_exactly_one_group() -> None:
    for operation in operations():
        groups = [name for name, tags in GROUPS.items() if tags & set(operation.tags)]
        assert len(groups) == 1, (operation, groups)


def part_of(group: str, part: int) -> list[Operation]:
    """The operations of one part of a group, never one that is excluded."""
    members = sorted(
        (o for o in operations() if o.name not in EXCLUDED and GROUPS[group] & set(o.tags)),
        key=lambda o: o.name,
    )
    parts = PARTS.get(group, 1)
    return members[part * len(members) // parts : (part + 1) * len(members) // parts]


def test_the_parts_cover_every_operation_but_the_excluded_once() -> None:
    parted = [
        o.name
        for group in GROUPS
        for part in range(PARTS.get(group, 1))
        for o in part_of(group, part)
    ]
    assert sorted(parted) == sorted(o.name for o in operations() if o.name not in EXCLUDED)


@pytest.mark.parametrize(
    ("group", "part"),
    [(group, part) for group in GROUPS for part in range(PARTS.get(group, 1))],
)
def test_the_service_keeps_its_openapi_contract(
    group: str, part: int, contract: Contract, tmp_path: Path
) -> None:
    members = part_of(group, part)
    output, exercised = schemathesis_run(
        contract,
        tmp_path,
        f"--phases={PER_OPERATION_PHASES}",
        *(f"--include-operation-id={o.name}" for o in members),
    )
    assert members and exercised == {o.label for o in members}, output[-3000:]


def test_the_service_keeps_its_openapi_contract_across_operations(
    contract: Contract, tmp_path: Path
) -> None:
    """The stateful phase chains operations of every group, so it runs over them all."""
    output, exercised = schemathesis_run(contract, tmp_path, "--phases=stateful")
    assert exercised == {"Stateful tests"}, output[-3000:]
    print(output[-2500:])  # shown with -rP


@cache
def operations() -> frozenset[Operation]:
    """Every route the app routes (not read from the document under test)."""
    app = create_app(Settings(db=DatabaseSettings(database_url="sqlite://")), migrate=False)
    return frozenset(
        Operation(
            f"{method} {context.path}",
            context.name,
            tuple(str(tag) for tag in context.original_route.tags),
        )
        for context in iter_route_contexts(app.router.routes)
        if isinstance(context.original_route, APIRoute) and context.original_route.include_in_schema
        for method in context.methods or ()
    )
