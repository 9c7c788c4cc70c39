"""A run's results table drawn as lines of text, in the box rich draws a table with.

A campaign of 200 posts prints a table of 200 rows after its run, and the command ends
when it is printed. ``rich.table.Table`` measured and rendered each of those 1,600 cells
as a renderable of its own: 0.11-0.19 s of CPU, on the path between the run's last
post and the command's exit (``benchmarks/README.md``, "eleventh round"). The table
needs none of what that buys (nested renderables, ratios, justification): its cells are
plain text, so each column is as wide as its widest cell and the widest columns are
folded to fit the console, as rich's ``overflow="fold"`` folds them. Drawn here, the
same table costs a few milliseconds, and rich still writes it (the styles, the
terminal's width, plain text when the output is not a terminal).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len, chop_cells

PADDING = 1
"""Spaces either side of a cell's text, as rich pads a table's cells."""
TAB_SIZE = 8
"""Columns of a tab, as rich's ``Text`` expands it."""


@dataclass(frozen=True)
class Row:
    cells: Sequence[str]
    style: str = ""


def column_widths(header: Sequence[str], rows: Sequence[Row], width: int) -> list[int]:
    """Each column as wide as its widest cell; when the table is wider than ``width``,
    the widest columns are narrowed to the one width that makes it fit (no narrower
    than a column's header, so the header never folds where it need not)."""
    natural = [
        max([cell_len(name), *(_widest_line(row.cells[i]) for row in rows)])
        for i, name in enumerate(header)
    ]
    frame = len(header) * (2 * PADDING + 1) + 1
    if sum(natural) + frame <= width:
        return natural
    room = max(width - frame, len(header))
    cap = max(natural)
    while cap > 1 and sum(min(w, cap) for w in natural) > room:
        cap -= 1
    return [
        max(min(w, cap), min(w, cell_len(name))) for w, name in zip(natural, header, strict=True)
    ]


def render(
    title: str, header: Sequence[str], rows: Sequence[Row], width: int
) -> list[tuple[str, str]]:
    """The table's lines, each with its style: the title centred, the header bold. A tab
    in a cell (a network's error) becomes spaces, as rich expands it: the terminal would
    otherwise move the border."""
    rows = [Row([cell.expandtabs(TAB_SIZE) for cell in row.cells], row.style) for row in rows]
    widths = column_widths(header, rows, width)
    pad = " " * PADDING

    def rule(left: str, fill: str, cross: str, right: str) -> str:
        return left + cross.join(fill * (w + 2 * PADDING) for w in widths) + right

    def lines(cells: Sequence[str], edge: str) -> list[str]:
        folded = [_fold(text, w) for text, w in zip(cells, widths, strict=True)]
        height = max(len(parts) for parts in folded)
        drawn = []
        for n in range(height):
            parts = [
                pad + _pad(part[n] if n < len(part) else "", w) + pad
                for part, w in zip(folded, widths, strict=True)
            ]
            drawn.append(edge + edge.join(parts) + edge)
        return drawn

    top = rule("┏", "━", "┳", "┓")
    centred = " " * ((cell_len(top) - cell_len(title)) // 2) + title
    out = [(centred, "italic")] if title else []
    out.append((top, ""))
    out += [(line, "bold") for line in lines(header, "┃")]
    out.append((rule("┡", "━", "╇", "┩"), ""))
    for row in rows:
        out += [(line, row.style) for line in lines(row.cells, "│")]
    out.append((rule("└", "─", "┴", "┘"), ""))
    return out


def _fold(text: str, width: int) -> list[str]:
    """The text's lines wrapped at spaces to ``width`` cells; a word longer than that is
    folded, as rich folds it (a URL, a key)."""
    folded: list[str] = []
    for line in text.splitlines() or [""]:
        if cell_len(line) <= width:
            folded.append(line)
            continue
        current = ""
        for word in line.split(" "):
            joined = f"{current} {word}" if current else word
            if cell_len(joined) <= width:
                current = joined
                continue
            if current:
                folded.append(current)
            *whole, current = chop_cells(word, width) if cell_len(word) > width else [word]
            folded += whole
        folded.append(current)
    return folded


def _pad(text: str, width: int) -> str:
    return text + " " * (width - cell_len(text))


def _widest_line(text: str) -> int:
    return max((cell_len(line) for line in text.splitlines()), default=0)
