"""How many posts one metrics round may ask each network about: the one table of budgets.

A round reads one post per call (``MetricsDriver.fetch_metrics``; a thread's replies
are posts of their own, a call each), and rounds of one account and network never
overlap (a lease each), so a budget is the most calls a round spends on the network. The network's limit for the read is the real driver's
(``METRICS_REQUESTS_PER_HOUR``, with its source, in each driver module); each budget is
our choice under it, checked at import, leaving the rest to publishing and to other
apps: with the hourly ``collect-metrics`` schedule, a budget per round is also a budget
per hour. Where a network gives no figures to this app (LinkedIn), the driver sends no
request and the budget only paces how fast its posts are marked "not available".
"""

from __future__ import annotations

from dataclasses import dataclass

from pressroom.platforms import Platform
from pressroom.service.drivers import (
    microblog,
    open_microblog,
    page_social,
    photo_sharing,
    pin_board,
    professional_network,
    short_video,
    text_thread,
    video_sharing,
)

HOURLY_LIMITS: dict[Platform, int] = {
    Platform.MICROBLOG: microblog.METRICS_REQUESTS_PER_HOUR,
    Platform.VIDEO_SHARING: video_sharing.METRICS_REQUESTS_PER_HOUR,
    Platform.PHOTO_SHARING: photo_sharing.METRICS_REQUESTS_PER_HOUR,
    Platform.TEXT_THREAD: text_thread.METRICS_REQUESTS_PER_HOUR,
    Platform.PAGE_SOCIAL: page_social.METRICS_REQUESTS_PER_HOUR,
    Platform.PIN_BOARD: pin_board.METRICS_REQUESTS_PER_HOUR,
    Platform.PROFESSIONAL_NETWORK: professional_network.METRICS_REQUESTS_PER_HOUR,
    Platform.SHORT_VIDEO: short_video.METRICS_REQUESTS_PER_HOUR,
    Platform.OPEN_MICROBLOG: open_microblog.METRICS_REQUESTS_PER_HOUR,
}
"""The reads an hour each network allows a post's figures, as each real driver says
with its source (0: the driver makes no request, the network giving this app none)."""


@dataclass(frozen=True)
class Budget:
    posts_per_round: int
    doc_url: str
    calls_per_post: int = 1
    """Requests one post's figures take (Instagram, and a Facebook Page post: the post's
    counts, then its insights)."""


BUDGETS: dict[Platform, Budget] = {
    Platform.MICROBLOG: Budget(15, "https://docs.x.com/x-api/fundamentals/rate-limits"),
    Platform.VIDEO_SHARING: Budget(
        100, "https://developers.google.com/youtube/v3/determine_quota_cost"
    ),
    Platform.PHOTO_SHARING: Budget(
        50,
        "https://developers.facebook.com/docs/graph-api/overview/rate-limiting",
        calls_per_post=2,
    ),
    Platform.TEXT_THREAD: Budget(
        50, "https://developers.facebook.com/docs/threads/overview#rate-limiting"
    ),
    Platform.PAGE_SOCIAL: Budget(
        50,
        "https://developers.facebook.com/docs/graph-api/overview/rate-limiting",
        calls_per_post=2,
    ),
    Platform.PIN_BOARD: Budget(40, "https://developers.pinterest.com/docs/reference/rate-limits/"),
    Platform.PROFESSIONAL_NETWORK: Budget(
        50, "https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits"
    ),
    Platform.SHORT_VIDEO: Budget(100, "https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit"),
    Platform.OPEN_MICROBLOG: Budget(100, "https://docs.bsky.app/docs/advanced-guides/rate-limits"),
}

for _platform, _budget in BUDGETS.items():
    _spent = _budget.posts_per_round * _budget.calls_per_post
    _hourly = HOURLY_LIMITS[_platform]
    assert _hourly == 0 or _spent <= _hourly, f"{_platform}: {_spent} calls a round, over {_hourly}"


def limit_words(platform: Platform) -> str:
    """The network's own limit the budget stays under, for the docs."""
    hourly = HOURLY_LIMITS[platform]
    if hourly == 0:
        return "none needed: the driver makes no request (the network gives this app no figures)"
    return f"{hourly:,} requests an hour for these reads"


def budget_of(platform: Platform) -> int:
    return BUDGETS[platform].posts_per_round
