"""Bluesky (open_microblog, our extension): the post record's lexicon, read from its
JSON files in the AT Protocol repository (``@atproto/api`` 0.20.44, pinned with the
test network in tests/atproto/package-lock.json, carries the same).

- text: ``app.bsky.feed.post`` ``text`` has ``maxGraphemes`` 300 and ``maxLength`` 3000,
  which for a string the Lexicon spec counts in UTF-8 bytes;
- images: ``app.bsky.embed.images`` takes at most 4 (``images.maxLength``), each a blob
  of ``image/*`` up to ``maxSize`` 2,000,000 bytes ("May be up to 2 MB, formerly
  limited to 1 MB", the lexicon says), each with its ``alt`` text (required, may be
  empty);
- video: ``app.bsky.embed.video`` takes one ``video/mp4`` blob up to 300,000,000 bytes
  ("formerly limited to 100mb").

Not here: a number of posts per day (the PDS's write rate limits are points per hour,
not posts) and video durations (the lexicon sets none).
"""

from __future__ import annotations

from pressroom.platforms import MediaKind, Platform
from pressroom.rules.counting import Unit
from pressroom.rules.model import (
    Fix,
    ItemsPerPost,
    MaxBytes,
    MediaFormat,
    PartsPerThread,
    Rule,
    TextLength,
)

PLATFORM = Platform.OPEN_MICROBLOG
NETWORK = "Bluesky"
LEXICONS = "https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky"
POST = f"{LEXICONS}/feed/post.json"
IMAGES = f"{LEXICONS}/embed/images.json"
VIDEO = f"{LEXICONS}/embed/video.json"
RATE_LIMITS = "https://docs.bsky.app/docs/advanced-guides/rate-limits"
WRITE_POINTS_PER_HOUR = 5000
"""A Bluesky PDS's hourly budget of record writes per account (the rate limits page)."""
CREATE_POINTS = 3
"""What creating one record costs of it (the same page)."""

RULES: tuple[Rule, ...] = (
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="text_graphemes",
        doc_url=POST,
        fields=("text",),
        limit=300,
        unit=Unit.GRAPHEMES,
    ),
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="text_bytes",
        doc_url=POST,
        fields=("text",),
        limit=3000,
        unit=Unit.UTF8_BYTES,
    ),
    MediaFormat(
        platform=PLATFORM,
        network=NETWORK,
        name="video_format",
        doc_url=VIDEO,
        kind=MediaKind.VIDEO,
        content_types=("video/mp4",),
        fix=Fix.TRANSCODE,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="image_max_bytes",
        doc_url=IMAGES,
        kind=MediaKind.IMAGE,
        limit=2_000_000,
        fix=Fix.SCALE_DOWN,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="video_max_bytes",
        doc_url=VIDEO,
        kind=MediaKind.VIDEO,
        limit=300_000_000,
        fix=Fix.TRANSCODE,
    ),
    # Bluesky documents no length for a thread (a reply chain of posts); the PDS's write
    # limit does bound one: 5,000 points an hour at 3 per created record is 1,666 posts,
    # and a longer thread would be stopped part way by a 429.
    PartsPerThread(
        platform=PLATFORM,
        network=NETWORK,
        name="thread_parts",
        doc_url=RATE_LIMITS,
        max_parts=WRITE_POINTS_PER_HOUR // CREATE_POINTS,
    ),
    ItemsPerPost(
        platform=PLATFORM,
        network=NETWORK,
        name="images_per_post",
        doc_url=IMAGES,
        min_items=1,
        max_items=4,
    ),
)
