"""The feed hands a run's posts out as their platforms have room, in turn across
platforms, so a platform that is full never holds threads another one could use."""

from __future__ import annotations

import pytest

from pressroom.pipeline.feeding import Feed


def feed(per_platform: int | None, total: int | None) -> Feed[str]:
    """Items are ``platform:n``."""
    return Feed(lambda item: item.split(":")[0], per_platform=per_platform, total=total)


def test_a_platform_gets_no_more_than_its_share_out_at_once() -> None:
    f = feed(per_platform=2, total=None)
    for n in range(5):
        f.add(f"text:{n}")
    assert f.take() == ["text:0", "text:1"]
    assert f.take() == []
    assert (f.out, f.waiting) == (2, 3)


def test_platforms_take_turns_and_a_late_one_is_not_queued_behind_the_first() -> None:
    """The fan-out's case: text posts are ready first, media posts later."""
    f = feed(per_platform=2, total=None)
    for n in range(6):
        f.add(f"text:{n}")
    assert f.take() == ["text:0", "text:1"]
    for n in range(3):
        f.add(f"video:{n}")
    assert f.take() == ["video:0", "video:1"]  # at once, not after text:2..5


def test_the_total_bounds_all_platforms_together_in_turn() -> None:
    f = feed(per_platform=None, total=4)
    for platform in ("a", "b", "c"):
        for n in range(3):
            f.add(f"{platform}:{n}")
    assert f.take() == ["a:0", "b:0", "c:0", "a:1"]
    f.finished("b")
    assert f.take() == ["b:1"]  # the turn goes on where it stopped


def test_an_ended_item_makes_room_on_its_platform() -> None:
    f = feed(per_platform=1, total=10)
    f.add("a:0")
    f.add("a:1")
    f.add("b:0")
    assert f.take() == ["a:0", "b:0"]
    f.finished("a")
    assert f.take() == ["a:1"]
    f.finished("a")
    f.finished("b")
    assert (f.out, f.waiting) == (0, 0)


def test_without_bounds_everything_goes_at_once() -> None:
    """A Dask cluster: each worker keeps its own places."""
    f = feed(per_platform=None, total=None)
    for n in range(50):
        f.add(f"{n % 3}:{n}")
    assert len(f.take()) == 50


def test_an_ending_nothing_was_out_for_is_refused() -> None:
    f = feed(per_platform=1, total=1)
    f.add("a:0")
    with pytest.raises(ValueError, match="nothing of 'a' is out"):
        f.finished("a")
    with pytest.raises(ValueError, match="nothing of 'b' is out"):
        f.finished("b")


@pytest.mark.parametrize(("per_platform", "total"), [(0, None), (None, 0), (2, -1)])
def test_a_bound_below_one_is_refused(per_platform: int | None, total: int | None) -> None:
    with pytest.raises(ValueError, match="at least one"):
        feed(per_platform, total)
