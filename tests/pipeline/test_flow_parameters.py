"""``pipeline.flow_parameters``: a run's JSON parameters recorded without FastAPI."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from prefect import Flow, flow

from pressroom.pipeline.flow_parameters import is_json, plain_parameters

ROOT = Path(__file__).resolve().parents[2]


class Channel(StrEnum):
    PRESS = "press"


def campaign(campaign_file: str, edition: str | None = None, dry_run: bool = False) -> None:
    del campaign_file, edition, dry_run


@pytest.mark.parametrize(
    "value",
    ["pipelines/demo.yaml", None, True, 3, 2.5, [], ["a", 1, None], {"a": [1, {"b": False}]}],
)
def test_json_values_are_recorded_as_they_are(value: Any) -> None:
    prefects = Flow(campaign).serialize_parameters({"campaign_file": value})
    ours = plain_parameters(Flow(campaign)).serialize_parameters({"campaign_file": value})
    assert ours == prefects == {"campaign_file": value}


@pytest.mark.parametrize(
    "value",
    [
        Path("pipelines/demo.yaml"),
        datetime(2026, 11, 28, 12, 0, tzinfo=UTC),
        ("a", "b"),
        {1: "a key that is not a string"},
        ["nested", ("tuple",)],
        Channel.PRESS,
    ],
)
def test_anything_else_is_encoded_as_prefect_encodes_it(value: Any) -> None:
    assert not is_json(value)
    parameters = {"campaign_file": "pipelines/demo.yaml", "other": value}
    prefects = Flow(campaign).serialize_parameters(parameters)
    ours = plain_parameters(Flow(campaign)).serialize_parameters(parameters)
    assert ours == prefects  # a Path a string, a tuple a list, a datetime ISO text


def test_a_method_flow_is_left_to_prefect() -> None:
    class Holder:
        @flow
        def run(self, name: str) -> None:
            del name

    holder = Holder()
    bound = holder.run
    assert plain_parameters(bound) is bound
    assert "serialize_parameters" not in vars(bound)


def test_the_campaign_flow_records_its_parameters_without_importing_fastapi() -> None:
    """The flow as ``pressroom campaign run`` loads it, in a fresh interpreter: its
    parameters recorded, and FastAPI (0.1 s to import) still not imported."""
    script = f"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("run_campaign", {str(ROOT / "flows" / "run_campaign.py")!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
parameters = {{"campaign_file": "/campaigns/spring.yaml", "edition": None, "dry_run": False}}
recorded = module.run_campaign.serialize_parameters(parameters)
print(json.dumps({{"recorded": recorded, "fastapi": "fastapi" in sys.modules}}))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {
        "recorded": {"campaign_file": "/campaigns/spring.yaml", "edition": None, "dry_run": False},
        "fastapi": False,
    }
