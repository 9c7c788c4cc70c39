"""Record ids: the shape the API has always answered, unguessable, and in the order
their records were made, so a new row's key lands at the end of its index."""

from __future__ import annotations

import re
import time

from pressroom.service.db.base import ID_TICK_SHIFT, new_id

SHAPE = re.compile(r"post_[0-9a-f]{24}")


def test_ids_keep_their_shape_and_never_repeat_within_a_tick() -> None:
    made = [new_id("post") for _ in range(10_000)]  # many of them within one tick
    assert all(SHAPE.fullmatch(value) for value in made)
    assert len(set(made)) == len(made)
    random_parts = {value[-14:] for value in made}
    assert len(random_parts) == len(made)


def test_ids_sort_in_the_order_their_records_were_made() -> None:
    tick = (1 << ID_TICK_SHIFT) / 1e9
    made = []
    for _ in range(20):
        made.append(new_id("evt"))
        time.sleep(tick * 1.5)  # the next one in a later tick
    assert sorted(made) == made


def test_an_id_tells_the_time_it_was_made_to_the_tick() -> None:
    before = time.time_ns() >> ID_TICK_SHIFT
    stamp = int(new_id("file")[len("file_") :][:10], 16)
    after = time.time_ns() >> ID_TICK_SHIFT
    assert before <= stamp <= after
