"""X (microblog): the weighted length, and the media rules kept for when posts carry media.

The spec's microblog posts text only, so the media rules below are never reached today:
they are here, with their page, for the post formats that attach media.

Not in the table, not confirmed on an X page: a number of posts per day (the often
quoted 2,400 is not on X's pages), and the animated GIF limits (15 MB, 1280x1080,
350 frames: recommendations, not refusals).
"""

from __future__ import annotations

from pressroom.platforms import MediaKind, Platform
from pressroom.rules.counting import X_MAX_WEIGHTED_LENGTH, Unit
from pressroom.rules.model import (
    AspectRatio,
    AudioCodec,
    Dimensions,
    Duration,
    Fix,
    FrameRate,
    ItemsPerPost,
    MaxBytes,
    Rule,
    TextLength,
)

PLATFORM = Platform.MICROBLOG
NETWORK = "X"
COUNTING = "https://docs.x.com/fundamentals/counting-characters"
MEDIA = "https://docs.x.com/x-api/media/quickstart/best-practices"
MB = 1_000_000

RULES: tuple[Rule, ...] = (
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="weighted_length",
        doc_url=COUNTING,
        fields=("text",),
        limit=X_MAX_WEIGHTED_LENGTH,
        unit=Unit.X_WEIGHTED,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="image_max_bytes",
        doc_url=MEDIA,
        kind=MediaKind.IMAGE,
        limit=5 * MB,
        fix=Fix.SCALE_DOWN,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="video_max_bytes",
        doc_url=MEDIA,
        kind=MediaKind.VIDEO,
        limit=512 * MB,
        fix=Fix.TRANSCODE,
    ),
    Duration(
        platform=PLATFORM,
        network=NETWORK,
        name="video_duration",
        doc_url=MEDIA,
        min_seconds=0.5,
        max_seconds=140,
    ),
    FrameRate(
        platform=PLATFORM,
        network=NETWORK,
        name="video_frame_rate",
        doc_url=MEDIA,
        max_fps=60,
    ),
    Dimensions(
        platform=PLATFORM,
        network=NETWORK,
        name="video_dimensions",
        doc_url=MEDIA,
        kind=MediaKind.VIDEO,
        min_width=32,
        min_height=32,
        max_width=1280,
        max_height=1024,
        fix=Fix.SCALE,
    ),
    AspectRatio(
        platform=PLATFORM,
        network=NETWORK,
        name="video_aspect_ratio",
        doc_url=MEDIA,
        kind=MediaKind.VIDEO,
        min_ratio=1 / 3,
        max_ratio=3,
    ),
    AudioCodec(
        platform=PLATFORM,
        network=NETWORK,
        name="audio_codec",
        doc_url=MEDIA,
        codecs=("aac",),
    ),
    ItemsPerPost(
        platform=PLATFORM,
        network=NETWORK,
        name="photos_per_post",
        doc_url=MEDIA,
        min_items=1,
        max_items=4,
    ),
)
