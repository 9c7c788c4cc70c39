"""YouTube (video_sharing): the title and description as the Data API counts them, and
what a thumbnail may be.

The title's 100 characters are the spec's own limit too, so the spec refuses a longer
title first; the rule is kept for its page. The description is 5,000 bytes where the
spec allows 5,000 characters: any text with letters outside ASCII reaches the limit
sooner, and YouTube's is checked next.

Not in the table: the 15-minute cap of unverified channels (it depends on the account,
https://support.google.com/youtube/answer/71673; the API reports it as
``status.longUploadsStatus``); the 2 MB thumbnail figure of the Help Center (the API's
discovery document says 50 MB, which is the rule here); the upload quota in units (the
cost of ``videos.insert`` is not confirmed); a comment's length:
``commentThreads.insert`` names the refusal (``commentTextTooLong``,
https://developers.google.com/youtube/v3/docs/commentThreads/insert) but no figure, and
the 10,000 characters quoted by integrations is not on a Google page, so a first comment
has no rule.
"""

from __future__ import annotations

from pressroom.platforms import MediaKind, Platform
from pressroom.rules.counting import Unit
from pressroom.rules.model import (
    Fix,
    ForbiddenCharacters,
    MaxBytes,
    MediaFormat,
    Rule,
    Subject,
    TextLength,
)

PLATFORM = Platform.VIDEO_SHARING
NETWORK = "YouTube"
VIDEO = "https://developers.google.com/youtube/v3/docs/videos#properties"
INSERT = "https://developers.google.com/youtube/v3/docs/videos/insert"
THUMBNAILS = "https://developers.google.com/youtube/v3/docs/thumbnails/set"

RULES: tuple[Rule, ...] = (
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="title_length",
        doc_url=VIDEO,
        fields=("title",),
        limit=100,
        unit=Unit.GRAPHEMES,
    ),
    ForbiddenCharacters(
        platform=PLATFORM,
        network=NETWORK,
        name="forbidden_characters",
        doc_url=VIDEO,
        fields=("title", "description"),
        characters="<>",
    ),
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="description_bytes",
        doc_url=VIDEO,
        fields=("description",),
        limit=5000,
        unit=Unit.UTF8_BYTES,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="video_max_bytes",
        doc_url=INSERT,
        kind=MediaKind.VIDEO,
        limit=274_877_906_944,  # 256 GiB: the discovery document's maxSize
        fix=Fix.TRANSCODE,
    ),
    MediaFormat(
        platform=PLATFORM,
        network=NETWORK,
        name="thumbnail_format",
        doc_url=THUMBNAILS,
        subject=Subject.THUMBNAIL,
        kind=MediaKind.IMAGE,
        content_types=("image/jpeg", "image/png"),
        fix=Fix.CONVERT_TO_JPEG,
    ),
    MaxBytes(
        platform=PLATFORM,
        network=NETWORK,
        name="thumbnail_max_bytes",
        doc_url=THUMBNAILS,
        subject=Subject.THUMBNAIL,
        kind=MediaKind.IMAGE,
        limit=52_428_800,  # 50 MiB: the discovery document's maxSize
        fix=Fix.SCALE_DOWN,
    ),
)
