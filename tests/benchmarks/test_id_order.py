"""``benchmarks/id_order.py`` still inserts and reports: a smoke run, not a measurement.

It asserts what the benchmark prints (a line per kind of id and repeat, a figure per
block) and that the ids it compares are the two kinds it names, never how fast anything
was."""

from __future__ import annotations

import re

from benchmarks.id_order import MAKERS
from tests.benchmarks.smoke_checks import run_module


def test_the_id_order_benchmark_reports_a_figure_per_block_for_each_kind_of_id() -> None:
    stdout = run_module("benchmarks.id_order", "--blocks", "3", "--block", "50")
    lines = stdout.strip().splitlines()
    assert [line.split()[0] for line in lines] == ["random", "ordered"] * 2
    for line in lines:
        figures = line.split(": ", 1)[1].split()
        assert len(figures) == 3 and all(float(value) > 0 for value in figures)


def test_the_ids_compared_are_random_and_in_order() -> None:
    made = {name: [maker("post") for _ in range(200)] for name, maker in MAKERS.items()}
    for ids in made.values():
        assert all(re.fullmatch(r"post_[0-9a-f]{24}", value) for value in ids)
    ticks = [value[len("post_") :][:10] for value in made["ordered"]]
    assert ticks == sorted(ticks)  # within a tick the rest is random
    assert made["random"] != sorted(made["random"])
