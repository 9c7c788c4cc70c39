"""The results table: its columns fit the console, long cells fold, borders stay aligned."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console

from pressroom.pipeline import outcomes
from pressroom.pipeline.outcomes import ResultRow, Status
from pressroom.pipeline.results_table import Row, column_widths, render

HEADER = ("post", "platform", "url or error")
URL = "https://microblog.example/acme/status/4562301238360777679"


def lines_of(drawn: list[tuple[str, str]]) -> list[str]:
    return [line for line, _ in drawn]


def column_text(lines: list[str], column: int) -> list[str]:
    """The text of one column in each body line (between the header rule and the bottom)."""
    body = lines[lines.index(next(x for x in lines if x.startswith("┡"))) + 1 : -1]
    return [line.strip("│").split("│")[column].strip() for line in body]


def test_columns_are_as_wide_as_their_widest_cell_when_the_table_fits() -> None:
    rows = [Row(("text-1", "microblog", URL)), Row(("reel", "short_video", "x"))]
    assert column_widths(HEADER, rows, 160) == [6, 11, len(URL)]
    lines = lines_of(render("launch", HEADER, rows, 160))
    assert lines[2] == f"┃ post   ┃ platform    ┃ {'url or error'.ljust(len(URL))} ┃"
    assert lines[4] == f"│ text-1 │ microblog   │ {URL} │"


def test_a_table_wider_than_the_console_folds_its_widest_column_to_fit() -> None:
    rows = [Row(("text-1", "microblog", URL))]
    lines = lines_of(render("launch", HEADER, rows, 48))
    assert {cell_len(line) for line in lines[1:]} == {48}, "every line as wide as the console"
    assert "".join(column_text(lines, 2)) == URL, "the URL folded, nothing lost"
    assert column_text(lines, 0) == ["text-1", "", ""], "the short cells stay whole"
    assert column_text(lines, 2)[0] == URL[:23], "folded at the one width that fits"


def test_words_wrap_at_spaces_and_a_longer_word_is_folded() -> None:
    error = "network said: [/item] not found\n" + "x" * 30
    lines = lines_of(render("", HEADER, [Row(("p", "microblog", error))], 42))
    assert column_text(lines, 2) == [
        "network said:",
        "[/item] not found",
        "x" * 19,
        "x" * 11,
    ]


def test_wide_characters_keep_the_borders_aligned() -> None:
    rows = [
        Row(("🌷 spring", "microblog", "春のコレクション")),
        Row(("plain", "x", "error:\tcode 190")),
    ]
    lines = lines_of(render("🌷", HEADER, rows, 160))
    borders = {tuple(border_cells(line)) for line in lines[1:]}
    assert len(borders) == 1, lines
    assert borders.pop()[:2] == (0, cell_len("┃ 🌷 spring "))
    assert lines[0].index("🌷") == (cell_len(lines[1]) - 2) // 2, "centred by its cells"
    assert "error:  code 190" in lines[5], "a tab expanded to spaces"


def border_cells(line: str) -> list[int]:
    """The columns (in cells) where the line draws a border."""
    found, at = [], 0
    for char in line:
        if char in "┃│┏┳┓┡╇┩└┴┘":
            found.append(at)
        at += cell_len(char)
    return found


def test_the_title_is_centred_and_the_rows_keep_their_styles() -> None:
    drawn = render("launch · w48", HEADER, [Row(("p", "microblog", "u"), "green")], 40)
    title, style = drawn[0]
    assert title.strip() == "launch · w48" and style == "italic"
    assert title.index("launch") == (cell_len(drawn[1][0]) - cell_len("launch · w48")) // 2
    assert drawn[2][1] == "bold", "the header"
    assert drawn[4] == ("│ p    │ microblog │ u            │", "green")


def test_the_printed_table_is_coloured_on_a_terminal_only() -> None:
    rows = [
        ResultRow("p1", "microblog", "@acme", Status.PUBLISHED, url=URL, attempts=1),
        ResultRow("p2", "microblog", "@acme", Status.FAILED, error="[bold]no[/bold]"),
    ]
    for terminal in (False, True):
        out = io.StringIO()
        console = Console(file=out, width=200, force_terminal=terminal)
        outcomes.print_table("launch", rows, console=console)
        text = out.getvalue()
        assert URL in text and "[bold]no[/bold]" in text
        assert ("\x1b[32m" in text) is terminal, "published rows in green on a terminal"
        assert ("\x1b[31m" in text) is terminal, "failed rows in red"
