"""How many posts one metrics round may ask each network about: the one table of budgets.

A round reads one post per call (``MetricsDriver.fetch_metrics``), and rounds of one
account and network never overlap (a lease each), so a budget is the most calls a round
spends on the network. Each is set well under the network's documented limit for the
read it makes (link beside it), leaving the rest to publishing and to other apps: with
the hourly ``collect-metrics`` schedule, a budget per round is also a budget per hour.
Where a limit is not published as a number (Meta's limits scale with the account's
audience, LinkedIn's are shown per app in its portal), the budget is the cautious one.
"""

from __future__ import annotations

from dataclasses import dataclass

from pressroom.platforms import Platform


@dataclass(frozen=True)
class Budget:
    posts_per_round: int
    doc_url: str
    limit: str
    """The network's own limit, in its words, that the budget stays under."""


BUDGETS: dict[Platform, Budget] = {
    Platform.MICROBLOG: Budget(
        15,
        "https://docs.x.com/x-api/fundamentals/rate-limits",
        "GET /2/tweets/:id: 15 requests per 15 minutes per user on the Basic tier",
    ),
    Platform.VIDEO_SHARING: Budget(
        100,
        "https://developers.google.com/youtube/v3/determine_quota_cost",
        "10,000 quota units a day per project; videos.list costs 1 and an upload 1,600",
    ),
    Platform.PHOTO_SHARING: Budget(
        50,
        "https://developers.facebook.com/docs/graph-api/overview/rate-limiting",
        "Instagram Platform: 4,800 x impressions calls in 24 hours (Business Use Case)",
    ),
    Platform.TEXT_THREAD: Budget(
        50,
        "https://developers.facebook.com/docs/threads/troubleshooting",
        "Threads API: 4,800 x impressions calls in 24 hours",
    ),
    Platform.PAGE_SOCIAL: Budget(
        50,
        "https://developers.facebook.com/docs/graph-api/overview/rate-limiting",
        "Pages: 4,800 x engaged users calls in 24 hours (Business Use Case)",
    ),
    Platform.PIN_BOARD: Budget(
        100,
        "https://developers.pinterest.com/docs/reference/ratelimits/",
        "analytics reads: per-user limits per minute, in the org_analytics category",
    ),
    Platform.PROFESSIONAL_NETWORK: Budget(
        50,
        "https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits",
        "per member and per app daily limits, per endpoint, shown in the developer portal",
    ),
    Platform.SHORT_VIDEO: Budget(
        100,
        "https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit",
        "/v2/video/query/: 600 requests per minute per token",
    ),
}


def budget_of(platform: Platform) -> int:
    return BUDGETS[platform].posts_per_round
