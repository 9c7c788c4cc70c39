"""The topology suite starts a whole deployment as processes on this machine: it runs in
CI (``CI=true``) and when asked (``PRESSROOM_TEST_TOPOLOGY=1``); a local ``bash
scripts/test`` skips it, saying how to run it."""

from __future__ import annotations

import os

import pytest

WANTED = os.environ.get("CI", "").lower() == "true" or os.environ.get(
    "PRESSROOM_TEST_TOPOLOGY", ""
) not in ("", "0")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.topology)
            item.add_marker(pytest.mark.postgres)
            item.add_marker(pytest.mark.s3)
            item.add_marker(pytest.mark.prefect)
            if not WANTED:
                item.add_marker(
                    pytest.mark.skip(
                        reason="the topology test runs in CI; locally: PRESSROOM_TEST_TOPOLOGY=1"
                    )
                )
