"""The sandbox's figures for a published post: deterministic, growing with time.

A figure is a function of the post's id on the network and the seconds since the
sandbox recorded it, nothing else (no randomness, no state), so a test can predict it:

    impressions = floor(reach * sqrt(seconds))       reach = 5 + h[0] % 10
    views       = impressions * 3 // 4               where the network counts plays
    likes       = impressions // (8 + h[1] % 8)
    comments    = impressions // (40 + h[2] % 40)
    shares      = impressions // (25 + h[3] % 25)
    saves       = impressions // (30 + h[4] % 30)
    clicks      = impressions // (12 + h[5] % 12)

where ``h`` is the SHA-256 of the post id. The square root makes a post gain fast at
first and slower later, as real posts do, and every figure never falls. Each network
reports only the figures its real driver reads of it (``REPORTED``); the others are None.
A figure the connection's grant lacks a scope for is None too (the sandbox driver,
``grants.METRICS``).
"""

from __future__ import annotations

import hashlib
import math
from datetime import datetime

from pressroom.platforms import Platform
from pressroom.service.drivers.base import PostMetrics

IMPRESSIONS = "impressions"
VIEWS = "views"
LIKES = "likes"
COMMENTS = "comments"
SHARES = "shares"
SAVES = "saves"
CLICKS = "clicks"

REPORTED: dict[Platform, frozenset[str]] = {
    # X public_metrics: impression_count, like_count, reply_count, retweet_count,
    # bookmark_count. https://docs.x.com/x-api/fundamentals/metrics
    Platform.MICROBLOG: frozenset({IMPRESSIONS, LIKES, COMMENTS, SHARES, SAVES}),
    # YouTube statistics: viewCount, likeCount, commentCount.
    # https://developers.google.com/youtube/v3/docs/videos#statistics
    Platform.VIDEO_SHARING: frozenset({VIEWS, LIKES, COMMENTS}),
    # Instagram media insights: views, likes, comments, shares, saved.
    # https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights
    Platform.PHOTO_SHARING: frozenset({IMPRESSIONS, LIKES, COMMENTS, SHARES, SAVES}),
    # Threads media insights: views (times shown, read as impressions), likes, replies,
    # reposts, quotes. https://developers.facebook.com/docs/threads/insights
    Platform.TEXT_THREAD: frozenset({IMPRESSIONS, LIKES, COMMENTS, SHARES}),
    # Facebook: a Page post's post_media_view insight (impressions), its reactions,
    # comments and shares; clicks are not read.
    # https://developers.facebook.com/docs/graph-api/reference/insights
    Platform.PAGE_SOCIAL: frozenset({IMPRESSIONS, LIKES, COMMENTS, SHARES}),
    # Pinterest pin analytics: IMPRESSION, SAVE, PIN_CLICK, OUTBOUND_CLICK.
    # https://developers.pinterest.com/docs/api/v5/pins-analytics
    Platform.PIN_BOARD: frozenset({IMPRESSIONS, SAVES, CLICKS}),
    # LinkedIn social actions: likes and comments (share statistics for organizations).
    # https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/network-update-social-actions
    Platform.PROFESSIONAL_NETWORK: frozenset({LIKES, COMMENTS}),
    # TikTok video query: view_count, like_count, comment_count, share_count.
    # https://developers.tiktok.com/doc/tiktok-api-v2-video-query
    Platform.SHORT_VIDEO: frozenset({VIEWS, LIKES, COMMENTS, SHARES}),
    # Bluesky's post view: likeCount, replyCount, repostCount and quoteCount (shares).
    # https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/feed/defs.json
    Platform.OPEN_MICROBLOG: frozenset({LIKES, COMMENTS, SHARES}),
}


def sandbox_metrics(
    platform: Platform, platform_post_id: str, published_at: datetime, now: datetime
) -> PostMetrics:
    """The figures the sandbox network reports of ``platform_post_id`` at ``now``."""
    h = hashlib.sha256(platform_post_id.encode()).digest()
    seconds = max(0.0, (now - published_at).total_seconds())
    impressions = math.floor((5 + h[0] % 10) * math.sqrt(seconds))
    every = {
        IMPRESSIONS: impressions,
        VIEWS: impressions * 3 // 4,
        LIKES: impressions // (8 + h[1] % 8),
        COMMENTS: impressions // (40 + h[2] % 40),
        SHARES: impressions // (25 + h[3] % 25),
        SAVES: impressions // (30 + h[4] % 30),
        CLICKS: impressions // (12 + h[5] % 12),
    }
    reported = REPORTED.get(platform, frozenset(every))
    return PostMetrics(
        **{name: (value if name in reported else None) for name, value in every.items()}
    )
