"""Every label's network rules, one module per network: the table every consumer reads.

Consumers look rules up here at the moment they check (``rules_of``), never keep a copy,
so a rule changed in the table (in a test) changes what every one of them accepts.
"""

from __future__ import annotations

from pressroom.platforms import Platform
from pressroom.rules import (
    bluesky,
    facebook,
    instagram,
    linkedin,
    pinterest,
    threads,
    tiktok,
    x,
    youtube,
)
from pressroom.rules.model import Rule

TABLE: dict[Platform, tuple[Rule, ...]] = {
    Platform.MICROBLOG: x.RULES,
    Platform.VIDEO_SHARING: youtube.RULES,
    Platform.SHORT_VIDEO: tiktok.RULES,
    Platform.PHOTO_SHARING: instagram.RULES,
    Platform.PAGE_SOCIAL: facebook.RULES,
    Platform.PIN_BOARD: pinterest.RULES,
    Platform.TEXT_THREAD: threads.RULES,
    Platform.PROFESSIONAL_NETWORK: linkedin.RULES,
    Platform.OPEN_MICROBLOG: bluesky.RULES,
}

NETWORKS: dict[Platform, str] = {
    Platform.MICROBLOG: x.NETWORK,
    Platform.VIDEO_SHARING: youtube.NETWORK,
    Platform.SHORT_VIDEO: tiktok.NETWORK,
    Platform.PHOTO_SHARING: instagram.NETWORK,
    Platform.PAGE_SOCIAL: facebook.NETWORK,
    Platform.PIN_BOARD: pinterest.NETWORK,
    Platform.TEXT_THREAD: threads.NETWORK,
    Platform.PROFESSIONAL_NETWORK: linkedin.NETWORK,
    Platform.OPEN_MICROBLOG: bluesky.NETWORK,
}
"""The real network behind each label, as its rules name it."""


def rules_of(platform: Platform) -> tuple[Rule, ...]:
    """The label's rules as the table holds them now."""
    return TABLE[platform]


def all_rules() -> list[Rule]:
    return [rule for platform in Platform for rule in TABLE[platform]]


def rule_by_id(rule_id: str) -> Rule:
    for rule in all_rules():
        if rule.id == rule_id:
            return rule
    raise KeyError(rule_id)
