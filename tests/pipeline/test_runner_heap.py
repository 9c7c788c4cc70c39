"""While a run loads Prefect and the flow the collector rests; then what was loaded is
frozen and collecting resumes as it was, whether the loading worked or failed."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from pressroom.pipeline.runner import _loading


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    collecting = gc.isenabled()
    yield
    gc.unfreeze()
    if collecting:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_rests_while_loading_and_resumes_with_the_loaded_frozen() -> None:
    gc.enable()
    gc.unfreeze()
    with _loading():
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_collecting_resumes_when_loading_fails() -> None:
    gc.enable()
    with pytest.raises(RuntimeError, match="no flow"), _loading():
        raise RuntimeError("no flow")
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    gc.disable()
    with _loading():
        pass
    assert not gc.isenabled()
