"""Post formats (a publish body's ``format``): which label offers which, with which media,
each rule with the network's page it comes from.

``post`` is every label's feed post and needs no rule. The others:

- **story** on photo_sharing (Instagram ``media_type=STORIES``: one image or one video)
  and page_social (Facebook Page stories, ``/{page-id}/photo_stories`` or
  ``/video_stories``: one photo, or one video of 3 to 60 s). Neither network shows a
  text on a story made through its API (Instagram's media reference: ``caption`` "not
  supported" for stories; Facebook's photo and video stories take no message), so a
  story with a caption or message is refused rather than sent without it; nor does
  either take a first comment on a story, refused the same way.
- **reel** on photo_sharing (Instagram ``media_type=REELS``: one video, held to the
  Reels specifications already in Instagram's media rules) and page_social (Facebook
  Page reels, ``/{page-id}/video_reels``: one video of 3 to 90 s).
- **photo** on short_video (a TikTok photo post, ``media_type=PHOTO``: 1 to 35 images in
  JPEG or WebP, each at most 20 MB). ``fileIds`` on short_video is taken with
  ``format: photo`` only: a TikTok video post is one video.
- **document** on professional_network (a LinkedIn document post: one PDF, at most
  100 MB and 300 pages, titled by the body's ``documentTitle``). LinkedIn's Documents
  API page says so ("The file size cannot exceed 100MB and 300 pages", read on its
  li-lms-2023-03 and li-lms-2024-11 versions); whether its MB is 10^6 or 2^20 bytes is
  not said, so the smaller, 100,000,000 bytes, is the limit. The page also lists PPT,
  PPTX, DOC and DOCX; pressroom's media library takes PDFs only. A title length is not
  documented there, so none is checked beyond not being blank.

Facebook's story photo size (4 MB on some copies of its page, 10 MB on others) is not
in the table: which is current could not be confirmed, so the photo's own rules apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from pressroom.platforms import MediaKind, Platform, PostFormat
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
from pressroom.rules.check import MediaFacts, Violation
from pressroom.rules.model import Rule, Subject, _range

PDF = "application/pdf"

IG_STORIES = f"{instagram.PUBLISHING}#stories"
IG_REELS = f"{instagram.PUBLISHING}#reels-posts"
FB_STORIES = "https://developers.facebook.com/docs/page-stories-api"
FB_REELS = "https://developers.facebook.com/docs/video-api/guides/reels-publishing"
TIKTOK_PHOTO = "https://developers.tiktok.com/doc/content-posting-api-reference-photo-post"
TIKTOK_IMAGES = f"{tiktok.VIDEO}#image-restrictions"
LINKEDIN_DOCUMENTS = (
    "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/documents-api"
)
MB = 1_000_000


@dataclass(frozen=True, kw_only=True)
class FormatRule(Rule):
    """What one format takes on one label: the kinds of file (or the content types, for
    a document), how many, and the bounds the network sets on them for this format."""

    subject: Subject = Subject.POST
    format: PostFormat
    kinds: frozenset[MediaKind] = frozenset()
    """The kinds of media file it takes; empty for a document (``content_types``)."""
    content_types: tuple[str, ...] = ()
    """Where set, the only content types it takes (a document's PDF, TikTok's images)."""
    min_items: int = 1
    max_items: int = 1
    takes_text: bool = True
    """False where the network shows no text on it: a text is refused, not dropped."""
    takes_comment: bool = True
    min_seconds: float | None = None
    max_seconds: float | None = None
    max_bytes: int | None = None
    max_pages: int | None = None

    def describe(self) -> str:
        what = " or ".join(sorted(str(k) for k in self.kinds)) or ", ".join(self.content_types)
        count = (
            f"one {what}"
            if self.max_items == 1
            else f"{self.min_items} to {self.max_items} files ({what})"
        )
        bounds = []
        if self.content_types and self.kinds:
            bounds.append(", ".join(self.content_types) + " only")
        if self.min_seconds is not None or self.max_seconds is not None:
            bounds.append(f"video {_range(self.min_seconds, self.max_seconds)} seconds long")
        if self.max_bytes is not None:
            bounds.append(f"at most {self.max_bytes:,} bytes each")
        if self.max_pages is not None:
            bounds.append(f"at most {self.max_pages:,} pages")
        if not self.takes_text:
            bounds.append("no text")
        return f"{self.format}: {count}" + (f"; {'; '.join(bounds)}" if bounds else "")


_IMAGE = frozenset({MediaKind.IMAGE})
_VIDEO = frozenset({MediaKind.VIDEO})
_EITHER = frozenset({MediaKind.IMAGE, MediaKind.VIDEO})

FORMAT_RULES: tuple[FormatRule, ...] = (
    FormatRule(
        platform=Platform.PHOTO_SHARING,
        network=instagram.NETWORK,
        name="story",
        doc_url=IG_STORIES,
        format=PostFormat.STORY,
        kinds=_EITHER,
        takes_text=False,
        takes_comment=False,
    ),
    FormatRule(
        platform=Platform.PHOTO_SHARING,
        network=instagram.NETWORK,
        name="reel",
        doc_url=IG_REELS,
        format=PostFormat.REEL,
        kinds=_VIDEO,
    ),
    FormatRule(
        platform=Platform.PAGE_SOCIAL,
        network=facebook.NETWORK,
        name="story",
        doc_url=FB_STORIES,
        format=PostFormat.STORY,
        kinds=_EITHER,
        takes_text=False,
        takes_comment=False,
        min_seconds=3,
        max_seconds=60,
    ),
    FormatRule(
        platform=Platform.PAGE_SOCIAL,
        network=facebook.NETWORK,
        name="reel",
        doc_url=FB_REELS,
        format=PostFormat.REEL,
        kinds=_VIDEO,
        min_seconds=3,
        max_seconds=90,
    ),
    FormatRule(
        platform=Platform.SHORT_VIDEO,
        network=tiktok.NETWORK,
        name="photo",
        doc_url=TIKTOK_PHOTO,
        format=PostFormat.PHOTO,
        kinds=_IMAGE,
        content_types=("image/jpeg", "image/webp"),
        min_items=1,
        max_items=35,
        max_bytes=20 * MB,
    ),
    FormatRule(
        platform=Platform.PROFESSIONAL_NETWORK,
        network=linkedin.NETWORK,
        name="document",
        doc_url=LINKEDIN_DOCUMENTS,
        format=PostFormat.DOCUMENT,
        content_types=(PDF,),
        # LINKEDIN_DOCUMENTS, "Important": "The file size cannot exceed 100MB and 300 pages."
        max_bytes=100 * MB,
        max_pages=300,
    ),
)

FORMATS: dict[Platform, dict[PostFormat, FormatRule]] = {
    platform: {rule.format: rule for rule in FORMAT_RULES if rule.platform is platform}
    for platform in Platform
}
"""The formats each label offers beyond ``post``, read where a post is checked."""

FEED_DOCS: dict[Platform, str] = {
    Platform.MICROBLOG: x.MANAGE_POSTS,
    Platform.VIDEO_SHARING: youtube.INSERT,
    Platform.SHORT_VIDEO: tiktok.DIRECT_POST,
    Platform.PHOTO_SHARING: instagram.PUBLISHING,
    Platform.PAGE_SOCIAL: FB_STORIES,
    Platform.PIN_BOARD: pinterest.PIN_CREATE,
    Platform.TEXT_THREAD: threads.POSTS,
    Platform.PROFESSIONAL_NETWORK: LINKEDIN_DOCUMENTS,
    Platform.OPEN_MICROBLOG: bluesky.POST,
}
"""The page a refusal of a format the label does not offer points to: the network's
publishing page, which lists what it makes."""

DOCUMENT_TITLE = "document_title"
"""The body field that titles a document post (``documentTitle``)."""


def format_rule(platform: Platform, post_format: PostFormat) -> FormatRule | None:
    """The rule of a format the label offers; None for ``post`` or one it does not."""
    return FORMATS[platform].get(post_format)


def offers(platform: Platform, post_format: PostFormat) -> bool:
    return post_format is PostFormat.POST or post_format in FORMATS[platform]


def offered(platform: Platform) -> list[PostFormat]:
    """``post`` then the label's other formats, in the table's order."""
    return [PostFormat.POST, *FORMATS[platform]]


@dataclass(frozen=True, kw_only=True)
class FormatsOffered(Rule):
    """The rule a refusal of a format not offered names: ``<label>.format``."""

    offered: tuple[PostFormat, ...] = ()

    def describe(self) -> str:
        return f"format: {', '.join(self.offered)}"


def offered_rule(platform: Platform) -> FormatsOffered:
    from pressroom.rules.table import NETWORKS

    return FormatsOffered(
        platform=platform,
        name="format",
        network=NETWORKS[platform],
        doc_url=FEED_DOCS[platform],
        offered=tuple(offered(platform)),
    )


_ARTICLE = {MediaKind.IMAGE: "an image", MediaKind.VIDEO: "a video"}


def check_format_count(rule: FormatRule, items: int) -> Violation | None:
    """How many files the post carries against the format's count: one, or (TikTok's
    photo posts) up to its ``max_items``, named ``fileIds`` when several were given."""
    if rule.min_items <= items <= rule.max_items:
        return None
    if rule.max_items == 1:
        message = (
            f"{rule.network}'s {rule.format} takes one file; the post has {items:,}: give "
            "it in fileId."
        )
    else:
        message = (
            f"{rule.network}'s {rule.format} post takes {rule.min_items:,} to "
            f"{rule.max_items:,} files; the post has {items:,}."
        )
    return Violation(rule, message, field="fileIds")


def check_format_file(
    rule: FormatRule,
    facts: MediaFacts | None,
    content_type: str,
    *,
    pages: int | None = None,
    size: int | None = None,
) -> str | None:
    """What in one file the format does not take, in words; None when it takes it.
    ``facts`` is None for a file that is not an image or a video (a document), whose
    ``size`` and ``pages`` are then given alone."""
    network, fmt = rule.network, rule.format
    if rule.kinds and (facts is None or facts.kind not in rule.kinds):
        wanted = " or ".join(_ARTICLE[kind] for kind in sorted(rule.kinds))
        found = _ARTICLE[facts.kind] if facts is not None else f"a {content_type} file"
        return f"{network}'s {fmt} takes {wanted}; the file is {found}."
    if rule.content_types and content_type not in rule.content_types:
        return (
            f"{network}'s {fmt} takes {' or '.join(rule.content_types)} only; the file is "
            f"{content_type}."
        )
    if facts is not None and facts.kind is MediaKind.VIDEO and facts.duration_seconds is not None:
        seconds = facts.duration_seconds
        low, high = rule.min_seconds, rule.max_seconds
        if (low is not None and seconds < low) or (high is not None and seconds > high):
            return (
                f"{network}'s {fmt} takes videos {_range(low, high)} seconds long; the "
                f"file lasts {seconds:g} s."
            )
    size = facts.size if facts is not None else size
    if rule.max_bytes is not None and size is not None and size > rule.max_bytes:
        return f"{network}'s {fmt} takes files of at most {rule.max_bytes:,} bytes; the file has {size:,}."
    if rule.max_pages is not None and pages is not None and pages > rule.max_pages:
        return f"{network}'s {fmt} takes at most {rule.max_pages:,} pages; the file has {pages:,}."
    return None
