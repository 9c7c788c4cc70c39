"""The documentation lists every network rule as the table holds it."""

from __future__ import annotations

from pathlib import Path

from pressroom.rules.docs import markdown_table

RULES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "networks" / "rules.md"


def test_the_rules_page_lists_the_rule_table() -> None:
    text = RULES_PAGE.read_text(encoding="utf-8")
    start = text.index("<!-- network rules:")
    end = text.index("<!-- end network rules -->")
    listed = [row for row in text[start:end].splitlines()[1:] if row]
    assert listed == markdown_table()


def test_the_rules_page_lists_formats_and_alt_text_beside_the_table() -> None:
    text = RULES_PAGE.read_text(encoding="utf-8")
    for rule_id in ("professional_network.document", "pin_board.alt_text", "short_video.photo"):
        assert f"| `{rule_id}` |" in text, rule_id
