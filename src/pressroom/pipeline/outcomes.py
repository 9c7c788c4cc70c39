"""Result rows of a run: the table an operator reads, the JSON lines a machine reads."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pressroom.portable import PortableError

if TYPE_CHECKING:
    from rich.console import Console


class Status(StrEnum):
    PUBLISHED = "published"
    SKIPPED = "skipped"
    """Already published by an earlier run of this edition, or not postable (inactive)."""
    FAILED = "failed"
    UNCONFIRMED = "unconfirmed"
    """Sent, then no answer, and the service cannot say whether it went out: check by hand."""
    PARTIAL = "partial"
    """A thread some of whose parts stand while the network refused a later one: not
    published. A later run of the edition sends it under the same Idempotency-Key, and
    the service resumes after the parts that stand."""


class Kind(StrEnum):
    POST = "post"
    """A publish call: what the progress bar and the summary count as posts."""
    THUMBNAIL = "thumbnail"
    """A video_sharing thumbnail set after its video's publish."""
    NOT_POSTABLE = "not postable"
    """A planned target that cannot post (inactive connection): no call was made."""


ALREADY_PUBLISHED = "already published"
"""Why a post was skipped when an earlier run (or attempt) had published it already: the
exactly-once record had it, or the service replayed its answer (``Idempotent-Replayed``)."""


@dataclass(frozen=True)
class PartRow:
    """One part of a post as the service answered: ``published``, ``failed``, ``unknown``."""

    index: int
    status: str
    url: str | None = None
    kind: str | None = None
    """``post``, ``reply``, ``item`` or ``comment``, as the service names it."""

    @property
    def stands(self) -> bool:
        return self.status == Status.PUBLISHED.value


@dataclass(frozen=True)
class ResultRow:
    post: str
    platform: str
    connection: str
    status: Status
    url: str | None = None
    error: str | None = None
    attempts: int = 0
    duration_seconds: float = 0.0
    """All attempts together, waits between them included."""
    idempotency_key: str | None = None
    item_id: str | None = None
    reason: str | None = None
    """Why it was skipped (``already published``), when it was."""
    kind: Kind = Kind.POST
    parts: tuple[PartRow, ...] = ()
    """A post's parts in order (a thread's, a carousel's items, a first comment; the
    first is what ``url`` points at); empty for a post of one part."""

    @property
    def status_text(self) -> str:
        if self.status is Status.PARTIAL and self.parts:
            return f"{self.status.value} ({self.parts_text} parts stand)"
        return f"{self.status.value} ({self.reason})" if self.reason else self.status.value

    @property
    def parts_text(self) -> str:
        """``2/3``: the parts that stand of a thread's parts; empty for a single post."""
        if not self.parts:
            return ""
        return f"{sum(part.stands for part in self.parts)}/{len(self.parts)}"

    def with_status(self, status: Status, **changes: Any) -> ResultRow:
        return replace(self, status=status, **changes)

    @property
    def detail(self) -> str:
        if self.status is Status.PARTIAL and self.error:
            standing = " ".join(part.url for part in self.parts if part.stands and part.url)
            return f"{self.error} (standing: {standing})" if standing else self.error
        return self.url or self.error or ""

    @property
    def log_line(self) -> str:
        """``published as 1844… after 2 attempts in 2.31 s``: the row in its task run's
        log (the platform's id, since a URL there is cut to its host, as on every line)."""
        attempts = f"{self.attempts} attempt{'' if self.attempts == 1 else 's'}"
        line = self.status_text + (f" as {self.item_id}" if self.item_id else "")
        line += f" after {attempts} in {self.duration_seconds:.2f} s"
        return f"{line}: {self.detail}" if self.error else line

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["kind"] = self.kind.value
        return data


class PublishFailed(PortableError):
    """Raised by a publish step that ended without a post; carries its result row."""

    def __init__(self, row: ResultRow) -> None:
        self.row = row
        super().__init__(f"{row.platform} · {row.connection} · {row.post}: {row.error}")


COLUMNS = (
    "post",
    "platform",
    "connection",
    "status",
    "parts",
    "url or error",
    "attempts",
    "duration",
)
ARTIFACT_COLUMNS = (*COLUMNS, "idempotency key")


def table_rows(rows: Iterable[ResultRow], *, with_key: bool = False) -> list[list[str]]:
    return [
        [
            r.post,
            r.platform,
            r.connection,
            r.status_text,
            r.parts_text,
            r.detail,
            str(r.attempts),
            f"{r.duration_seconds:.2f} s",
            *([r.idempotency_key or ""] if with_key else []),
        ]
        for r in rows
    ]


NEEDS_ATTENTION = (Status.FAILED, Status.UNCONFIRMED, Status.PARTIAL)
"""Rows that fail a run: nothing (or not all) of the post went out, or no one knows."""


def counts(rows: Sequence[ResultRow]) -> dict[str, int]:
    return {status.value: sum(1 for r in rows if r.status is status) for status in Status}


def summary_message(rows: Sequence[ResultRow]) -> str:
    """``59 posts: 57 published, 2 failed; 1 thumbnail: 1 published``: posts counted as
    the progress bar counts them (publish calls), thumbnails and targets that could not
    post apart."""
    parts = []
    for kind, one, many in (
        (Kind.POST, "post", "posts"),
        (Kind.THUMBNAIL, "thumbnail", "thumbnails"),
        (Kind.NOT_POSTABLE, "not postable", "not postable"),
    ):
        of_kind = [r for r in rows if r.kind is kind]
        if not of_kind and kind is not Kind.POST:
            continue
        tally = ", ".join(f"{n} {status}" for status, n in counts(of_kind).items() if n)
        parts.append(
            f"{len(of_kind)} {one if len(of_kind) == 1 else many}" + (f": {tally}" if tally else "")
        )
    return "; ".join(parts)


def markdown_summary(campaign: str, edition: str, rows: Sequence[ResultRow]) -> str:
    lines = [
        f"# Campaign `{campaign}` · edition `{edition}`",
        "",
        summary_message(rows) if rows else "nothing to do",
        "",
    ]
    problems = [r for r in rows if r.status in NEEDS_ATTENTION]
    if problems:
        lines += ["## Needs attention", ""]
        lines += [
            f"- `{r.platform}` · {r.connection} · {r.post}: "
            + (f"partial, {r.parts_text} parts stand: {r.detail}" if r.parts else str(r.error))
            for r in problems
        ]
    return "\n".join(lines) + "\n"


def append_jsonl(directory: Path, campaign: str, run: str, rows: Iterable[ResultRow]) -> Path:
    """Append the rows to ``<directory>/<campaign>.jsonl``, one object per line."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{campaign}.jsonl"
    stamp = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    with path.open("a", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps({"run": run, "recordedAt": stamp, **row.to_json()}) + "\n")
    return path


def print_table(title: str, rows: Sequence[ResultRow], *, console: Console | None = None) -> None:
    """The operator's table on stdout. Cells are plain text, never rich markup: an error
    a network sent (``[/item] not found``) is shown as it came, not parsed as a style.
    Drawn by ``results_table`` (200 rows in milliseconds, where ``rich.table`` took a
    tenth of a second or more) and written by rich, in colour on a terminal."""
    from rich.console import Console
    from rich.text import Text

    from pressroom.pipeline import results_table

    styles = {
        "published": "green",
        "skipped": "cyan",
        "failed": "red",
        "unconfirmed": "yellow",
        "partial": "magenta",
    }
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=160)  # logs and CI: do not fold URLs into 80 columns
    drawn = results_table.render(
        title,
        COLUMNS,
        [
            results_table.Row(cells, styles[row.status.value])
            for row, cells in zip(rows, table_rows(rows), strict=True)
        ],
        console.width,
    )
    text = Text("\n".join(line for line, _ in drawn), no_wrap=True, overflow="ignore")
    start = 0
    for line, style in drawn:
        if style:
            text.stylize(style, start + 1, start + len(line) - 1)
        start += len(line) + 1
    console.print(text, soft_wrap=True)


_held_tables: ContextVar[list[tuple[str, list[ResultRow]]] | None] = ContextVar(
    "pressroom_held_tables", default=None
)


def report_table(title: str, rows: Sequence[ResultRow]) -> None:
    """Print a run's table, or hold it for the caller inside ``tables_held``."""
    held = _held_tables.get()
    if held is None:
        print_table(title, rows)
    else:
        held.append((title, list(rows)))


@contextmanager
def tables_held() -> Iterator[list[tuple[str, list[ResultRow]]]]:
    """Runs inside this block leave their tables to the caller, who prints them after the
    run has ended (``pressroom.pipeline.runner``).

    Rendering the table is the flow's slowest step once the posts are out (0.15–0.35 s of
    CPU for 200 rows); done by the flow, it holds back the run's final state by that much.
    A run from a deployment, with no caller of ours, prints its own.
    """
    held: list[tuple[str, list[ResultRow]]] = []
    token = _held_tables.set(held)
    try:
        yield held
    finally:
        _held_tables.reset(token)


def artifact_slug(name: str) -> str:
    """Artifact keys take lowercase letters, digits and dashes only."""
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-") or "campaign"
