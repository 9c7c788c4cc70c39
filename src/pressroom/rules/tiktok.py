"""TikTok (short_video): the caption in UTF-16 code units and the video restrictions of
the Content Posting API.

The longest video TikTok takes from an app is 10 minutes, the spec's own bound too, so
the spec refuses a longer one first. Each creator may have a shorter limit
(``max_video_post_duration_sec`` of the creator info query): that is the account's, read
by the driver, not a rule of this table.

Not in the table: a minimum duration (TikTok documents none; the spec's 3 s is the
spec's); a number of posts per day (TikTok documents a "daily post cap" without a
number); the photo post limits (title 90, description 4,000, 35 images), which no
publish sends yet.
"""

from __future__ import annotations

from pressroom.platforms import MediaKind, Platform
from pressroom.rules.counting import Unit
from pressroom.rules.model import (
    Dimensions,
    Duration,
    Fix,
    FrameRate,
    MaxBytes,
    MediaFormat,
    Rule,
    TextLength,
    VideoCodec,
)

PLATFORM = Platform.SHORT_VIDEO
NETWORK = "TikTok"
DIRECT_POST = "https://developers.tiktok.com/doc/content-posting-api-reference-direct-post"
VIDEO = "https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide"
GB = 1_000_000_000

RULES: tuple[Rule, ...] = (
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="caption_length",
        doc_url=DIRECT_POST,
        fields=("caption",),
        limit=2200,
        unit=Unit.UTF16_UNITS,
    ),
    MediaFormat(
        platform=PLATFORM,
        network=NETWORK,
        name="video_container",
        doc_url=VIDEO,
        kind=MediaKind.VIDEO,
        content_types=("video/mp4", "video/webm", "video/quicktime"),
        fix=Fix.TRANSCODE,
    ),
    VideoCodec(
        platform=PLATFORM,
        network=NETWORK,
        name="video_codec",
        doc_url=VIDEO,
        codecs=("h264", "hevc", "vp8", "vp9"),
    ),
    FrameRate(
        platform=PLATFORM,
        network=NETWORK,
        name="video_frame_rate",
        doc_url=VIDEO,
        min_fps=23,
        max_fps=60,
    ),
    Dimensions(
        platform=PLATFORM,
        network=NETWORK,
        name="video_dimensions",
        doc_url=VIDEO,
        kind=MediaKind.VIDEO,
        min_width=360,
        max_width=4096,
        min_height=360,
        max_height=4096,
        fix=Fix.SCALE,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="video_max_bytes",
        doc_url=VIDEO,
        kind=MediaKind.VIDEO,
        limit=4 * GB,
        fix=Fix.TRANSCODE,
    ),
    Duration(
        platform=PLATFORM,
        network=NETWORK,
        name="video_duration",
        doc_url=VIDEO,
        max_seconds=600,
    ),
)
