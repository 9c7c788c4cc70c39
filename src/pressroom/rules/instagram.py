"""Instagram (photo_sharing): the caption's counts, JPEG only, and the Reels and image
specifications of the Instagram Platform's media reference.

The caption's 2,200 characters are the spec's limit too, so the spec refuses a longer
caption first; the rule is kept for its page (Instagram does not say what a character
is).

Not in the table: image widths of 320 to 1440 px (Instagram scales such images, it does
not refuse them); the colour space (converted by Instagram). The Reels file size is the
current page's 1 GB; earlier copies said 300 MB, and when it changed is not confirmed.
The carousel limit is the API's 10 (the app allows 20).

No comment rule: the IG Media comments edge (POST /{ig-media-id}/comments, ``message``,
https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments)
names no length limit for a comment (none was found on its page); the 2,200 characters
quoted for comments are the caption's, and a first comment is held to no figure before
sending.
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
    Item,
    ItemCount,
    ItemsPerPost,
    MaxBytes,
    MediaFormat,
    PostsPerDay,
    Rule,
    TextLength,
    VideoCodec,
)

PLATFORM = Platform.PHOTO_SHARING
NETWORK = "Instagram"
MEDIA = "https://developers.facebook.com/docs/instagram-platform/reference/instagram-user/media"
PUBLISHING = "https://developers.facebook.com/docs/instagram-platform/content-publishing"
LIMITATIONS = f"{PUBLISHING}#limitations"
MB = 1_000_000
GB = 1_000_000_000

RULES: tuple[Rule, ...] = (
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="caption_length",
        doc_url=MEDIA,
        fields=("caption",),
        limit=2200,
        unit=Unit.GRAPHEMES,
    ),
    ItemCount(
        platform=PLATFORM,
        network=NETWORK,
        name="caption_hashtags",
        doc_url=MEDIA,
        fields=("caption",),
        item=Item.HASHTAGS,
        limit=30,
    ),
    ItemCount(
        platform=PLATFORM,
        network=NETWORK,
        name="caption_mentions",
        doc_url=MEDIA,
        fields=("caption",),
        item=Item.MENTIONS,
        limit=20,
    ),
    MediaFormat(
        platform=PLATFORM,
        network=NETWORK,
        name="image_format",
        doc_url=LIMITATIONS,
        kind=MediaKind.IMAGE,
        content_types=("image/jpeg",),
        fix=Fix.CONVERT_TO_JPEG,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="image_max_bytes",
        doc_url=MEDIA,
        kind=MediaKind.IMAGE,
        limit=8 * MB,
        fix=Fix.SCALE_DOWN,
    ),
    AspectRatio(
        platform=PLATFORM,
        network=NETWORK,
        name="image_aspect_ratio",
        doc_url=MEDIA,
        kind=MediaKind.IMAGE,
        min_ratio=4 / 5,
        max_ratio=1.91,
    ),
    MediaFormat(
        platform=PLATFORM,
        network=NETWORK,
        name="video_container",
        doc_url=MEDIA,
        kind=MediaKind.VIDEO,
        content_types=("video/mp4", "video/quicktime"),
        fix=Fix.TRANSCODE,
    ),
    VideoCodec(
        platform=PLATFORM,
        network=NETWORK,
        name="video_codec",
        doc_url=MEDIA,
        codecs=("h264", "hevc"),
    ),
    AudioCodec(
        platform=PLATFORM,
        network=NETWORK,
        name="audio_codec",
        doc_url=MEDIA,
        codecs=("aac",),
    ),
    FrameRate(
        platform=PLATFORM,
        network=NETWORK,
        name="video_frame_rate",
        doc_url=MEDIA,
        min_fps=23,
        max_fps=60,
    ),
    Dimensions(
        platform=PLATFORM,
        network=NETWORK,
        name="video_dimensions",
        doc_url=MEDIA,
        kind=MediaKind.VIDEO,
        max_width=1920,
        fix=Fix.SCALE_DOWN,
    ),
    AspectRatio(
        platform=PLATFORM,
        network=NETWORK,
        name="video_aspect_ratio",
        doc_url=MEDIA,
        kind=MediaKind.VIDEO,
        min_ratio=0.01,
        max_ratio=10,
    ),
    Duration(
        platform=PLATFORM,
        network=NETWORK,
        name="video_duration",
        doc_url=MEDIA,
        min_seconds=3,
        max_seconds=15 * 60,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="video_max_bytes",
        doc_url=MEDIA,
        kind=MediaKind.VIDEO,
        limit=1 * GB,
        fix=Fix.TRANSCODE,
    ),
    ItemsPerPost(
        platform=PLATFORM,
        network=NETWORK,
        name="carousel_items",
        doc_url=PUBLISHING,
        min_items=2,
        max_items=10,
    ),
    PostsPerDay(
        platform=PLATFORM,
        network=NETWORK,
        name="posts_per_day",
        doc_url=PUBLISHING,
        limit=100,
    ),
)
