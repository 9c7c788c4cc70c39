"""Charts drawn on the server as SVG: no script, no library, readable without colour.

Every line carries its own marker shape and dash pattern and is labelled by name at its
end; every bar carries its value as text. The figures are also in a table beside each
chart (the templates put it there), which is what a screen reader reads: the SVG is
one image with a title and a description.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from markupsafe import Markup, escape

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 120, 20, 40
STYLES = (
    ("circle", ""),
    ("square", "6 3"),
    ("triangle", "2 3"),
    ("diamond", "10 4 2 4"),
    ("cross", "1 0"),
    ("circle", "12 3"),
    ("square", "4 4 1 4"),
)
"""Marker shape and dash pattern per line, in order: no two lines look alike in grey."""


@dataclass(frozen=True)
class Line:
    name: str
    points: list[tuple[datetime, int]]


def _marker(shape: str, x: float, y: float) -> str:
    if shape == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8"/>'
    if shape == "triangle":
        return f'<polygon points="{x:.1f},{y - 5:.1f} {x - 5:.1f},{y + 4:.1f} {x + 5:.1f},{y + 4:.1f}"/>'
    if shape == "diamond":
        return f'<polygon points="{x:.1f},{y - 5:.1f} {x - 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x + 5:.1f},{y:.1f}"/>'
    if shape == "cross":
        return (
            f'<path d="M{x - 4:.1f},{y - 4:.1f} L{x + 4:.1f},{y + 4:.1f} '
            f'M{x - 4:.1f},{y + 4:.1f} L{x + 4:.1f},{y - 4:.1f}" stroke-width="2"/>'
        )
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4"/>'


def line_chart(chart_id: str, title: str, description: str, lines: list[Line]) -> Markup:
    """Figures over time: one line per figure, labelled at its end with its last value."""
    points = [p for line in lines for p in line.points]
    head = (
        f'<svg class="chart" id="{escape(chart_id)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-labelledby="{escape(chart_id)}-title {escape(chart_id)}-desc" '
        'xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{escape(chart_id)}-title">{escape(title)}</title>'
        f'<desc id="{escape(chart_id)}-desc">{escape(description)}</desc>'
    )
    if not points:
        return Markup(head + '<text x="20" y="40">No figures yet.</text></svg>')
    start = min(t for t, _ in points)
    end = max(t for t, _ in points)
    span = max((end - start).total_seconds(), 1.0)
    top = max(max(v for _, v in points), 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_of(t: datetime) -> float:
        return LEFT + plot_w * (
            (t - start).total_seconds() / span if len(set(p[0] for p in points)) > 1 else 0.5
        )

    def y_of(v: int) -> float:
        return TOP + plot_h * (1 - v / top)

    parts = [head]
    parts.append(
        f'<g class="axes"><line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}"/>'
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}"/>'
        f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end">{top:,}</text>'
        f'<text x="{LEFT - 6}" y="{TOP + plot_h + 4}" text-anchor="end">0</text>'
        f'<text x="{LEFT}" y="{HEIGHT - 12}">{escape(start.strftime("%Y-%m-%d %H:%M"))} UTC</text>'
        f'<text x="{LEFT + plot_w}" y="{HEIGHT - 12}" text-anchor="end">'
        f"{escape(end.strftime('%Y-%m-%d %H:%M'))} UTC</text></g>"
    )
    for i, line in enumerate(lines):
        shape, dash = STYLES[i % len(STYLES)]
        coords = [(x_of(t), y_of(v)) for t, v in line.points]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<g class="series series-{i}" data-figure="{escape(line.name)}">'
            f'<polyline points="{path}" fill="none"{dashed}/>'
            + "".join(_marker(shape, x, y) for x, y in coords)
        )
        last_x, last_y = coords[-1]
        parts.append(
            f'<text class="label" x="{last_x + 8:.1f}" y="{last_y + 4:.1f}">'
            f"{escape(line.name)} {line.points[-1][1]:,}</text></g>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def bar_chart(chart_id: str, title: str, bars: list[tuple[str, int]]) -> Markup:
    """One horizontal bar per name, its value written beside it."""
    row = 26
    height = TOP + row * max(len(bars), 1) + 10
    top = max([v for _, v in bars] + [1])
    plot_w = WIDTH - 200 - 90
    parts = [
        f'<svg class="chart bars" id="{escape(chart_id)}" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-labelledby="{escape(chart_id)}-title" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{escape(chart_id)}-title">{escape(title)}</title>'
    ]
    for i, (name, value) in enumerate(bars):
        y = TOP + i * row
        w = plot_w * value / top
        parts.append(
            f'<g class="bar" data-name="{escape(name)}" data-value="{value}">'
            f'<text x="192" y="{y + 14}" text-anchor="end">{escape(name)}</text>'
            f'<rect x="200" y="{y}" width="{w:.1f}" height="18"/>'
            f'<text class="value" x="{200 + w + 6:.1f}" y="{y + 14}">{value:,}</text></g>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))
