"""Which pages are generated, from what, and how they are written or checked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from pressroom.docs import (
    budgets_page,
    cli_page,
    errors_page,
    events_page,
    openapi_page,
    schema_page,
    settings_page,
)
from pressroom.docs.limits import limits_table

DOCS = Path("docs")

PAGES: dict[str, Callable[[Path], str]] = {
    "service/settings.md": lambda root: settings_page.page(),
    "service/errors.md": lambda root: errors_page.page(),
    "service/events.md": lambda root: events_page.page(),
    "service/api-reference.md": lambda root: openapi_page.page(),
    "service/cli.md": lambda root: cli_page.page(),
    "service/metrics-budgets.md": lambda root: budgets_page.page(),
    "campaigns/format.md": schema_page.page,
}
"""Whole generated pages, by their path under ``docs/``, each made from the project's
root (the campaign schema is a file of the checkout)."""


@dataclass(frozen=True)
class Section:
    """Lines written between ``<!-- NAME: … -->`` and ``<!-- end NAME -->`` in a page
    otherwise written by hand."""

    page: str
    name: str
    lines: Callable[[], list[str]]


def network_page(network: str) -> str:
    """``networks/youtube.md``: the page of one network, named after it."""
    return f"networks/{network.lower()}.md"


def sections() -> list[Section]:
    from pressroom.docs.networks_page import oauth_lines, sandbox_lines, scopes_lines
    from pressroom.platforms import Platform
    from pressroom.rules.docs import markdown_table
    from pressroom.rules.table import NETWORKS

    found = [
        Section("networks/rules.md", "network rules", markdown_table),
        Section("campaigns/writing.md", "limits", limits_table),
    ]
    for platform, network in NETWORKS.items():
        page = network_page(network)
        found += [
            Section(page, "network scopes", partial(scopes_lines, platform)),
            Section(page, "network rules", partial(markdown_table, platform)),
            Section(page, "network sandbox", partial(sandbox_lines, platform)),
        ]
        if platform is Platform.OPEN_MICROBLOG:
            found.append(Section(page, "network oauth", oauth_lines))
    return found


def _replace(text: str, section: Section) -> str:
    start_mark, end_mark = f"<!-- {section.name}:", f"<!-- end {section.name} -->"
    if start_mark not in text or end_mark not in text:
        raise LookupError(
            f"docs/{section.page} needs the lines '{start_mark} … -->' and '{end_mark}' "
            "where its generated table goes"
        )
    head, rest = text.split(start_mark, 1)
    opening, rest = rest.split("\n", 1)
    _, tail = rest.split(end_mark, 1)
    body = "\n".join(section.lines())
    return f"{head}{start_mark}{opening}\n{body}\n{end_mark}{tail}"


def rendered(root: Path = Path(".")) -> dict[Path, str]:
    """Every generated file as it should be now, by its path."""
    docs = root / DOCS
    wanted = {docs / page: render(root) for page, render in PAGES.items()}
    for section in sections():
        path = docs / section.page
        current = wanted.get(path)
        if current is None:
            if not path.exists():
                raise LookupError(f"docs/{section.page} is missing: write the page first")
            current = path.read_text(encoding="utf-8")
        wanted[path] = _replace(current, section)
    return {path: text if text.endswith("\n") else text + "\n" for path, text in wanted.items()}


def stale(root: Path = Path(".")) -> list[Path]:
    """The generated files that differ from what the code makes now."""
    return [
        path
        for path, text in rendered(root).items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def write(root: Path = Path(".")) -> list[Path]:
    """Rewrite every stale generated file; the ones written."""
    changed = stale(root)
    wanted = rendered(root)
    for path in changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wanted[path], encoding="utf-8")
    return changed
