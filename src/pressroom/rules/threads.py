"""Threads (text_thread): 500 characters with emoji counted in UTF-8 bytes, the daily
publishing quota, and the media specifications kept for when posts carry media.

Threads' pages say "Emojis are counted as the number of UTF-8 bytes"; whether other
letters outside ASCII count in bytes too (reports of refusals of texts with curly
quotes suggest so) is not confirmed, so only emoji count as bytes here.

The spec's text_thread posts text only, so the media rules are never reached today.
"""

from __future__ import annotations

from pressroom.platforms import MediaKind, Platform
from pressroom.rules.counting import Unit
from pressroom.rules.model import (
    AspectRatio,
    AudioCodec,
    Dimensions,
    Duration,
    Fix,
    FrameRate,
    ItemsPerPost,
    MaxBytes,
    MediaFormat,
    PartsPerThread,
    PostsPerDay,
    Rule,
    TextLength,
    VideoCodec,
)

PLATFORM = Platform.TEXT_THREAD
NETWORK = "Threads"
POSTS = "https://developers.facebook.com/docs/threads/posts"
OVERVIEW = "https://developers.facebook.com/docs/threads/overview"
REPLIES = "https://developers.facebook.com/docs/threads/retrieve-and-manage-replies"
REPLIES_PER_DAY = 1000
"""Threads' quota of API-published replies in a moving 24 hours: every part of a thread
after the first is a reply, so a longer thread could never be finished."""
MB = 1_000_000
GB = 1_000_000_000

RULES: tuple[Rule, ...] = (
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="text_length",
        doc_url=POSTS,
        fields=("text",),
        limit=500,
        unit=Unit.THREADS,
    ),
    PostsPerDay(
        platform=PLATFORM,
        network=NETWORK,
        name="posts_per_day",
        doc_url=OVERVIEW,
        limit=250,
    ),
    PartsPerThread(
        platform=PLATFORM,
        network=NETWORK,
        name="thread_parts",
        doc_url=REPLIES,
        max_parts=1 + REPLIES_PER_DAY,
    ),
    MediaFormat(
        platform=PLATFORM,
        network=NETWORK,
        name="image_format",
        doc_url=OVERVIEW,
        kind=MediaKind.IMAGE,
        content_types=("image/jpeg", "image/png"),
        fix=Fix.CONVERT_TO_JPEG,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="image_max_bytes",
        doc_url=OVERVIEW,
        kind=MediaKind.IMAGE,
        limit=8 * MB,
        fix=Fix.SCALE_DOWN,
    ),
    Dimensions(
        platform=PLATFORM,
        network=NETWORK,
        name="image_dimensions",
        doc_url=OVERVIEW,
        kind=MediaKind.IMAGE,
        min_width=320,
        max_width=1440,
        fix=Fix.SCALE,
    ),
    AspectRatio(
        platform=PLATFORM,
        network=NETWORK,
        name="image_aspect_ratio",
        doc_url=OVERVIEW,
        kind=MediaKind.IMAGE,
        max_ratio=10,
    ),
    MediaFormat(
        platform=PLATFORM,
        network=NETWORK,
        name="video_container",
        doc_url=OVERVIEW,
        kind=MediaKind.VIDEO,
        content_types=("video/mp4", "video/quicktime"),
        fix=Fix.TRANSCODE,
    ),
    VideoCodec(
        platform=PLATFORM,
        network=NETWORK,
        name="video_codec",
        doc_url=OVERVIEW,
        codecs=("h264", "hevc"),
    ),
    AudioCodec(
        platform=PLATFORM,
        network=NETWORK,
        name="audio_codec",
        doc_url=OVERVIEW,
        codecs=("aac",),
    ),
    FrameRate(
        platform=PLATFORM,
        network=NETWORK,
        name="video_frame_rate",
        doc_url=OVERVIEW,
        min_fps=23,
        max_fps=60,
    ),
    Dimensions(
        platform=PLATFORM,
        network=NETWORK,
        name="video_dimensions",
        doc_url=OVERVIEW,
        kind=MediaKind.VIDEO,
        max_width=1920,
        fix=Fix.SCALE_DOWN,
    ),
    AspectRatio(
        platform=PLATFORM,
        network=NETWORK,
        name="video_aspect_ratio",
        doc_url=OVERVIEW,
        kind=MediaKind.VIDEO,
        min_ratio=0.01,
        max_ratio=10,
    ),
    Duration(
        platform=PLATFORM,
        network=NETWORK,
        name="video_duration",
        doc_url=OVERVIEW,
        max_seconds=5 * 60,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="video_max_bytes",
        doc_url=OVERVIEW,
        kind=MediaKind.VIDEO,
        limit=1 * GB,
        fix=Fix.TRANSCODE,
    ),
    ItemsPerPost(
        platform=PLATFORM,
        network=NETWORK,
        name="carousel_items",
        doc_url=OVERVIEW,
        min_items=2,
        max_items=20,
    ),
)
