"""Connection selectors as editors write them: ``all``, names or handles, ``{id: …}``."""

from __future__ import annotations

from typing import Any

from pressroom.campaign import model
from pressroom.campaign.issues import Reporter
from pressroom.campaign.source import Path as FieldPath


def parse_selector(raw: Any, path: FieldPath, report: Reporter) -> model.Selector:
    """Which connections a block names; mistakes are reported at the entry."""
    if raw is None or raw == "all":
        return model.Selector((), path)
    entries = [raw] if isinstance(raw, str) else raw
    if not isinstance(entries, list):
        report.error(path, "connections is 'all', a name, or a list of names or {id: …} entries")
        return model.Selector((), path)
    if not entries:
        report.error(path, "an empty list selects nobody: leave 'connections' out to post to all")
    refs: list[model.ConnectionRef] = []
    for index, entry in enumerate(entries):
        entry_path = path if isinstance(raw, str) else (*path, index)
        ref = _ref(entry, entry_path, report)
        if ref is None:
            continue
        if any((r.by, r.value) == (ref.by, ref.value) for r in refs):
            report.warning(entry_path, f"{ref} is listed twice")
            continue
        refs.append(ref)
    return model.Selector(tuple(refs), path)


def _ref(entry: Any, path: FieldPath, report: Reporter) -> model.ConnectionRef | None:
    if isinstance(entry, dict) and len(entry) == 1:
        ((key, value),) = entry.items()
        if key in ("id", "name") and isinstance(value, str) and value.strip():
            return model.ConnectionRef(model.SelectBy(key), value.strip(), path)
    if isinstance(entry, str) and entry.strip():
        if entry.strip() == "all":
            report.error(path, "'all' stands alone: write 'connections: all'")
            return None
        return model.ConnectionRef(model.SelectBy.NAME, entry.strip(), path)
    report.error(path, "each connection is a name or handle (like '@acme') or {id: …}")
    return None
