"""A task holds its platform's place and a request place around its calls, and lets
both go while it waits (a Retry-After, a file being made fit), so the other posts to its
platform go on meanwhile."""

from __future__ import annotations

import threading

import pytest

from tasks.common import held


def test_the_places_are_free_during_the_pause_and_held_again_after() -> None:
    platform, requests = threading.BoundedSemaphore(1), threading.BoundedSemaphore(1)
    pausing, resumed, leave = threading.Event(), threading.Event(), threading.Event()

    def task() -> None:
        with held(platform, requests) as pause:
            pausing.set()
            pause(0.5)
            resumed.set()
            leave.wait(5)

    worker = threading.Thread(target=task)
    worker.start()
    assert pausing.wait(5)
    # another post to the platform gets both places while the first waits
    assert platform.acquire(timeout=0.4) and requests.acquire(timeout=0.4)
    assert not resumed.wait(0.8)  # its wait is over, but it cannot go on while they are taken
    requests.release()
    platform.release()
    assert resumed.wait(5)
    assert not platform.acquire(blocking=False)  # held again after the wait
    assert not requests.acquire(blocking=False)
    leave.set()
    worker.join(5)
    assert platform.acquire(blocking=False) and requests.acquire(blocking=False)


def test_the_places_are_let_go_when_the_call_fails() -> None:
    platform, requests = threading.BoundedSemaphore(1), threading.BoundedSemaphore(1)
    with pytest.raises(RuntimeError, match="refused"), held(platform, requests) as pause:
        pause(0)
        raise RuntimeError("refused")
    assert platform.acquire(blocking=False) and requests.acquire(blocking=False)
