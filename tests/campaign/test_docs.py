"""The editors' guide (docs/campaigns/writing.md) states the limits; they must be the
service's, from the one table."""

from __future__ import annotations

from pressroom.platforms import RULES
from tests.campaign.test_schema import PIPELINES


def _seconds(value: float) -> str:
    return f"{value / 60:g} min" if value >= 60 else f"{value:g} s"


def expected_limits() -> list[str]:
    rows = ["| field | limit |", "|---|---|"]
    for platform, rules in RULES.items():
        for rule in rules.text_fields:
            if rule.max_chars is not None:
                rows.append(f"| `{platform.value}.{rule.name}` | {rule.max_chars:,} characters |")
    for platform, rules in RULES.items():
        if rules.min_video_seconds is not None and rules.max_video_seconds is not None:
            span = f"{_seconds(rules.min_video_seconds)} to {_seconds(rules.max_video_seconds)}"
            rows.append(f"| `{platform.value}` video | {span} long |")
    return rows


def test_the_guides_limit_table_is_the_rule_table() -> None:
    text = (PIPELINES.parent / "docs" / "campaigns" / "writing.md").read_text(encoding="utf-8")
    start = text.index("<!-- limits:")
    end = text.index("<!-- end limits -->")
    table = text[start:end].splitlines()[1:]
    assert [row for row in table if row] == expected_limits()
