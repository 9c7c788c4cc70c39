"""The rule table as the documentation shows it: one row per rule, written from the table,
so the documentation and the rules cannot drift apart (a test compares them).

``python -m pressroom.docs`` rewrites the table on the rules page and on each
network's page (``docs/networks/``) with every other generated page; this module only makes
the rows, so the documentation package depends on the rules and never the other way."""

from __future__ import annotations

from pressroom.platforms import RULES, Platform
from pressroom.rules.alt_text import ALT_TEXT_RULES, AltText
from pressroom.rules.check import CAROUSELS
from pressroom.rules.counting import Unit
from pressroom.rules.formats import FORMAT_RULES, FormatRule
from pressroom.rules.model import (
    ItemsPerPost,
    MediaRule,
    PartsPerThread,
    PostsPerDay,
    Rule,
    SeeMore,
    TextLength,
)
from pressroom.rules.table import all_rules


def never_reached(rule: Rule) -> str | None:
    """Why the spec refuses first whatever this rule would, or None when it can be reached."""
    spec = RULES[rule.platform]
    if isinstance(rule, MediaRule) and spec.text_only:
        carousel = CAROUSELS.get(rule.platform)
        if carousel is None or (rule.kind is not None and rule.kind not in carousel.kinds):
            return f"not reached: the spec's {rule.platform.value} posts text only"
        return None  # a carousel's files (``fileIds``) are held to it
    if isinstance(rule, TextLength) and rule.unit is Unit.GRAPHEMES:
        limits = [spec.text_rule(field) for field in rule.fields]
        if all(
            s is not None and s.max_chars is not None and s.max_chars <= rule.limit for s in limits
        ):
            return "not reached: the spec's own limit is as strict"
    return None


def _what_happens(rule: Rule) -> str:
    unreachable = never_reached(rule)
    if unreachable is not None:
        return unreachable
    if isinstance(rule, PostsPerDay):
        return "the sandbox's quota (the real driver reads the network's own count)"
    if isinstance(rule, PartsPerThread):
        return "refused before any part is sent (`error.field`: `thread`)"
    if isinstance(rule, ItemsPerPost):
        return "refused before anything is sent (`error.field`: `fileIds`)"
    if isinstance(rule, SeeMore):
        return "never refused: `campaign preview` shows the cut"
    if isinstance(rule, FormatRule):
        return "refused before anything is sent (`error.field`: `format`, or the file's)"
    if isinstance(rule, AltText):
        return "refused before anything is sent (`error.field`: `fileAlts.<file id>`)"
    if isinstance(rule, MediaRule):
        if rule.fix is None:
            return "refused"
        if rule.fix.needs_fit:
            return "refused (to be padded or cropped with the campaign's `fit:`)"
        return f"needs fitting: {rule.fix}"
    return "refused"


def documented_rules(platform: Platform | None = None) -> list[Rule]:
    """The table's rules, then each label's formats and its alt text: everything a
    publish is held to beyond the spec, label by label."""
    found: list[Rule] = []
    for label in Platform:
        if platform is None or label is platform:
            found.extend(rule for rule in all_rules() if rule.platform is label)
            found.extend(rule for rule in FORMAT_RULES if rule.platform is label)
            found.append(ALT_TEXT_RULES[label])
    return found


def markdown_table(platform: Platform | None = None) -> list[str]:
    """Every rule, or one label's only (its network's page shows those)."""
    rows = ["| rule | network | limit | when broken | page |", "|---|---|---|---|---|"]
    for rule in documented_rules(platform):
        rows.append(
            f"| `{rule.id}` | {rule.network} | {rule.describe()} | {_what_happens(rule)} "
            f"| [{rule.doc_url.split('://', 1)[1].split('/', 1)[0]}]({rule.doc_url}) |"
        )
    return rows
