"""Changing the rule table for one test, as an edit of a network's module would."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pressroom.rules import TABLE, rule_by_id


def patch_rule(monkeypatch: pytest.MonkeyPatch, rule_id: str, **changes: object) -> None:
    """Change one rule in the table for this test: every consumer reads the table when it
    checks, so the API, ``campaign validate``, the sandbox and the drivers all see it."""
    rule = rule_by_id(rule_id)
    rules = tuple(replace(r, **changes) if r.id == rule_id else r for r in TABLE[rule.platform])
    monkeypatch.setitem(TABLE, rule.platform, rules)
