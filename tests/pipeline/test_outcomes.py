"""Result rows: what the summary says, long waits shown, attempts timed together."""

from __future__ import annotations

import time

import pytest

from pressroom.client import RateLimitError, ServerError
from pressroom.pipeline import progress
from pressroom.pipeline.attempts import AttemptClock
from pressroom.pipeline.outcomes import (
    ALREADY_PUBLISHED,
    Kind,
    ResultRow,
    Status,
    report_table,
    summary_message,
    table_rows,
    tables_held,
)
from pressroom.pipeline.progress import Stage
from pressroom.pipeline.retrying import TransientFailure
from pressroom.pipeline.steps import transient_or_final


def row(status: Status, kind: Kind = Kind.POST, **values: object) -> ResultRow:
    return ResultRow("p", "video_sharing", "Acme", status, kind=kind, **values)  # type: ignore[arg-type]


def test_the_summary_counts_posts_as_the_progress_bar_does() -> None:
    rows = [
        row(Status.PUBLISHED),
        row(Status.SKIPPED, reason=ALREADY_PUBLISHED),
        row(Status.PUBLISHED, Kind.THUMBNAIL),
        row(Status.SKIPPED, Kind.NOT_POSTABLE, error="inactive"),
    ]
    assert summary_message(rows) == (
        "2 posts: 1 published, 1 skipped; 1 thumbnail: 1 published; 1 not postable: 1 skipped"
    )


def test_a_replay_reads_skipped_already_published() -> None:
    [cells] = table_rows([row(Status.SKIPPED, reason=ALREADY_PUBLISHED, idempotency_key="k")])
    assert cells[3] == "skipped (already published)"
    [cells] = table_rows([row(Status.FAILED, idempotency_key="k")], with_key=True)
    assert cells[-1] == "k"


class Notices:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def planned(self, stage: Stage, total: int) -> None:
        pass

    def advanced(self, stage: Stage) -> None:
        pass

    def notice(self, text: str) -> None:
        self.lines.append(text)


def test_a_long_retry_after_wait_is_shown_on_the_console() -> None:
    notices = Notices()
    slept: list[float] = []
    progress.listen(notices)
    try:
        limited = RateLimitError("slow down", status=429, code="rate_limited", retry_after=57)
        failure = transient_or_final(limited, "x", platform="microblog", sleep=slept.append)
        short = ServerError("try again", status=503, code="platform_unavailable", retry_after=2)
        transient_or_final(short, "x", platform="microblog", sleep=slept.append)
    finally:
        progress.listen(None)
    assert isinstance(failure, TransientFailure)
    assert slept == [57, 2]
    assert notices.lines == ["waiting 57 s (rate limited by microblog)"]


def test_attempts_are_counted_and_timed_together_per_run() -> None:
    clock = AttemptClock()
    first = clock.begin("run-1", "k")
    time.sleep(0.05)
    second = clock.begin("run-1", "k")
    assert (first.number, second.number) == (1, 2)
    assert second.first_started == first.first_started and second.elapsed() >= 0.05
    assert clock.begin("run-2", "k").number == 1
    clock.finish("run-1")
    assert clock.last("run-1", "k") is None and clock.last("run-2", "k") is not None


def test_the_table_shows_a_networks_error_as_it_came(capsys: pytest.CaptureFixture[str]) -> None:
    """Brackets in an error are text, not rich markup (``[/item]`` once crashed the report)."""
    failed = row(Status.FAILED, error="[/item] not found; see [bold]docs[/bold]")
    report_table("launch · [w48]", [failed])
    out = capsys.readouterr().out
    assert "launch · [w48]" in out
    assert "[/item] not found; see [bold]docs[/bold]" in out


def test_a_caller_holding_tables_prints_them_itself(capsys: pytest.CaptureFixture[str]) -> None:
    published = row(Status.PUBLISHED, url="https://example.com/p/1")
    with tables_held() as held:
        report_table("launch · w48", [published])
        assert capsys.readouterr().out == ""
    assert held == [("launch · w48", [published])]
    report_table("launch · w49", [published])  # outside the block: printed at once
    assert "launch · w49" in capsys.readouterr().out
