"""The spec's limits as the campaign guide lists them: from the one table the service
enforces (``pressroom.platforms``)."""

from __future__ import annotations


def _seconds(value: float) -> str:
    return f"{value / 60:g} min" if value >= 60 else f"{value:g} s"


def limits_table() -> list[str]:
    from pressroom.platforms import RULES

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
