"""A conversion's bounds, each hit on purpose in a real spawned process: the caller gets an
error naming the bound, and the next conversion runs as if nothing happened."""

from __future__ import annotations

import time

import pytest

from pressroom.service.media.bounds import MIB, Bounds, OutOfBounds, run_bounded
from tests.support import busy

ROOMY = Bounds(cpu_seconds=60, memory_bytes=512 * MIB, wall_seconds=60, max_pixels=10**8)


def test_cpu_time_past_its_bound_stops_the_conversion() -> None:
    tight = Bounds(cpu_seconds=1, memory_bytes=512 * MIB, wall_seconds=60, max_pixels=10**8)
    started = time.monotonic()
    with pytest.raises(OutOfBounds, match="PRESSROOM_CONVERSION_CPU_SECONDS"):
        run_bounded(busy.spin, bounds=tight, workers=1)
    assert time.monotonic() - started < 30
    assert run_bounded(busy.allocate, 10, bounds=ROOMY, workers=1) == 10


def test_memory_past_its_bound_fails_the_allocation_not_the_caller() -> None:
    tight = Bounds(cpu_seconds=60, memory_bytes=32 * MIB, wall_seconds=60, max_pixels=10**8)
    assert run_bounded(busy.allocate, 4 * MIB, bounds=tight, workers=1) == 4 * MIB
    with pytest.raises(OutOfBounds, match=r"32 MiB .*PRESSROOM_CONVERSION_MEMORY_MB"):
        run_bounded(busy.allocate, 256 * MIB, bounds=tight, workers=1)


def test_wall_clock_past_its_bound_kills_a_conversion_that_waits() -> None:
    short = Bounds(cpu_seconds=60, memory_bytes=512 * MIB, wall_seconds=1, max_pixels=10**8)
    started = time.monotonic()
    with pytest.raises(OutOfBounds, match="PRESSROOM_CONVERSION_TIMEOUT_SECONDS"):
        run_bounded(busy.sleep_long, bounds=short, workers=1)
    assert time.monotonic() - started < 20


def test_a_converter_that_crashes_is_reported_as_the_memory_bound_it_likely_hit() -> None:
    with pytest.raises(OutOfBounds, match="crashed"):
        run_bounded(busy.crash, bounds=ROOMY, workers=1)


def test_the_pixel_bound_is_judged_before_decoding() -> None:
    bounds = Bounds(cpu_seconds=1, memory_bytes=MIB, wall_seconds=1, max_pixels=1_000_000)
    assert bounds.pixel_reason(1000, 1000) is None
    reason = bounds.pixel_reason(1001, 1000)
    assert reason is not None and "1,001,000 pixels" in reason
    assert "PRESSROOM_CONVERSION_MAX_PIXELS" in reason
