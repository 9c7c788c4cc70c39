"""Alt text (a publish body's ``fileAlts``): which label's network takes a description of
each file for people who cannot see it, on which kinds of file and formats, and how long,
each rule with the network's page it comes from.

- **Instagram** (photo_sharing): ``alt_text`` on an image container of
  ``POST /{ig-user-id}/media``, since 2025-03-24 ("for image posts ... Reels and stories
  are not supported"). Its page says so of image posts; a carousel's image items are
  image containers on the same endpoint, and integrators send it there, so it is sent on
  them too (the page does not say it in words). No length limit is documented.
- **Facebook** (page_social): ``alt_text_custom`` on each photo uploaded with
  ``POST /{page-id}/photos`` (the Photo reference's "Creating" parameters; the
  ``facebook-business`` SDK's ``Page.create_photo`` lists it), so a feed photo and each
  photo of a multi-photo post. Not on a video, and not on a story (the photo story
  edge takes a photo id only: whether the text set on its upload shows on the story is
  not documented, so it is refused rather than sent to be lost). No length limit is
  documented.
- **Threads** (text_thread): ``alt_text`` on an IMAGE or VIDEO container of
  ``POST /{threads-user-id}/threads`` ("for images and videos only"), a carousel's items
  and a thread part's files alike. No length limit is documented.
- **LinkedIn** (professional_network): ``altText`` on each image of a MultiImage post
  (``content.multiImage.images[].altText``, the Posts and MultiImage APIs); LinkedIn
  takes none on a document. No length limit is documented.
- **Pinterest** (pin_board): ``alt_text`` on ``PinCreate``, at most 500 code points
  (``maxLength`` in Pinterest's OpenAPI description). It is the Pin's: a carousel Pin's
  images (``PinMediaSourceImagesURL`` items: ``url``, ``title``, ``description``,
  ``link``) take none of their own, so alt text on a carousel Pin is refused rather than
  given to one image of it.

- **Bluesky** (open_microblog, pressroom's extension): ``alt`` on each image of
  ``app.bsky.embed.images`` and on ``app.bsky.embed.video`` (the lexicons); no length
  limit on an image's, so none is checked.

X takes alt text too (``POST /2/media/metadata``, at most 1,000 characters), but the
spec's microblog posts text only, so no microblog post carries a file to describe.
YouTube (``videos.insert``) and TikTok (its Content Posting API, photo posts included)
take no alt text: ``fileAlts`` on video_sharing or short_video is refused naming the
label's ``<label>.alt_text`` rule, as is any on microblog.
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
from pressroom.rules.check import Violation
from pressroom.rules.counting import Unit, measure
from pressroom.rules.model import Rule, Subject

IG_ALT_TEXT = instagram.PUBLISHING
FB_PHOTO = "https://developers.facebook.com/docs/graph-api/reference/photo/"
THREADS_ALT_TEXT = "https://developers.facebook.com/docs/threads/posts/accessibility"
LINKEDIN_MULTI_IMAGE = linkedin.MULTI_IMAGE

FIELD = "fileAlts"
"""The body field: an object from a file id to that file's alt text."""


def field_of(file_id: str) -> str:
    """How a refusal names one file's alt text: ``fileAlts.<id>``."""
    return f"{FIELD}.{file_id}"


@dataclass(frozen=True, kw_only=True)
class AltText(Rule):
    """What alt text one label's network takes: on which kinds of file, in which formats,
    whether on a carousel's items, and at most how long (None: no documented limit)."""

    subject: Subject = Subject.MEDIA
    kinds: frozenset[MediaKind] = frozenset()
    """The kinds of file it takes alt text on; empty: none (the network takes no alt text)."""
    formats: frozenset[PostFormat] = frozenset({PostFormat.POST})
    carousels: bool = True
    """Whether a carousel's items take one each."""
    limit: int | None = None
    unit: Unit = Unit.CODE_POINTS
    field_name: str = ""
    """The network's own name for it, for the docs."""

    @property
    def takes_alt_text(self) -> bool:
        return bool(self.kinds)

    def describe(self) -> str:
        if not self.takes_alt_text:
            return "alt text: none"
        what = " and ".join(f"{kind}s" for kind in sorted(self.kinds))
        limit = f", at most {self.limit:,} {self.unit}" if self.limit is not None else ""
        return f"alt text (`{self.field_name}`): on {what}{limit}"


_IMAGE = frozenset({MediaKind.IMAGE})
_EITHER = frozenset({MediaKind.IMAGE, MediaKind.VIDEO})

ALT_TEXT_RULES: dict[Platform, AltText] = {
    Platform.PHOTO_SHARING: AltText(
        platform=Platform.PHOTO_SHARING,
        network=instagram.NETWORK,
        name="alt_text",
        doc_url=IG_ALT_TEXT,
        kinds=_IMAGE,
        field_name="alt_text",
    ),
    Platform.PAGE_SOCIAL: AltText(
        platform=Platform.PAGE_SOCIAL,
        network=facebook.NETWORK,
        name="alt_text",
        doc_url=FB_PHOTO,
        kinds=_IMAGE,
        field_name="alt_text_custom",
    ),
    Platform.TEXT_THREAD: AltText(
        platform=Platform.TEXT_THREAD,
        network=threads.NETWORK,
        name="alt_text",
        doc_url=THREADS_ALT_TEXT,
        kinds=_EITHER,
        field_name="alt_text",
    ),
    Platform.PROFESSIONAL_NETWORK: AltText(
        platform=Platform.PROFESSIONAL_NETWORK,
        network=linkedin.NETWORK,
        name="alt_text",
        doc_url=LINKEDIN_MULTI_IMAGE,
        kinds=_IMAGE,
        field_name="altText",
    ),
    Platform.PIN_BOARD: AltText(
        platform=Platform.PIN_BOARD,
        network=pinterest.NETWORK,
        name="alt_text",
        doc_url=pinterest.PIN_CREATE,
        kinds=_IMAGE,
        carousels=False,
        limit=500,
        unit=Unit.CODE_POINTS,
        field_name="alt_text",
    ),
    Platform.OPEN_MICROBLOG: AltText(
        platform=Platform.OPEN_MICROBLOG,
        network=bluesky.NETWORK,
        name="alt_text",
        doc_url=bluesky.IMAGES,
        kinds=_EITHER,
        field_name="alt",
    ),
    # The networks that take none: a refusal still names a rule and the page that
    # lists what the network's publishing call takes.
    Platform.MICROBLOG: AltText(
        platform=Platform.MICROBLOG, network=x.NETWORK, name="alt_text", doc_url=x.MANAGE_POSTS
    ),
    Platform.VIDEO_SHARING: AltText(
        platform=Platform.VIDEO_SHARING,
        network=youtube.NETWORK,
        name="alt_text",
        doc_url=youtube.INSERT,
    ),
    Platform.SHORT_VIDEO: AltText(
        platform=Platform.SHORT_VIDEO,
        network=tiktok.NETWORK,
        name="alt_text",
        doc_url=tiktok.DIRECT_POST,
    ),
}
"""Every label's alt-text rule, one each (``<label>.alt_text``)."""


def alt_text_rule(platform: Platform) -> AltText:
    return ALT_TEXT_RULES[platform]


def takes_alt_text(platform: Platform) -> bool:
    return ALT_TEXT_RULES[platform].takes_alt_text


def check_alt_post(
    platform: Platform, post_format: PostFormat, *, carousel: bool
) -> Violation | None:
    """Whether the post may carry alt text at all: the network takes it, in this format,
    on a carousel's items where the post is one."""
    rule = ALT_TEXT_RULES[platform]
    if not rule.takes_alt_text:
        return Violation(rule, f"{rule.network} takes no alt text through its API.")
    if post_format not in rule.formats:
        return Violation(rule, f"{rule.network} takes no alt text on a {post_format}.")
    if carousel and not rule.carousels:
        return Violation(
            rule,
            f"{rule.network} takes alt text for a post of one image; a carousel's images "
            "take none of their own.",
        )
    return None


def check_alt_text(platform: Platform, text: str) -> Violation | None:
    """One file's alt text against the network's length limit, where it documents one."""
    rule = ALT_TEXT_RULES[platform]
    if rule.limit is None:
        return None
    length = measure(text, rule.unit)
    if length <= rule.limit:
        return None
    return Violation(
        rule,
        f"the alt text is {length:,} {rule.unit}; {rule.network} takes at most "
        f"{rule.limit:,}: shorten it by {length - rule.limit:,}.",
    )


def check_alt_kind(platform: Platform, kind: str) -> Violation | None:
    """Whether the network takes alt text on this kind of file (``image``, ``video``, or
    another kind of upload, such as a document)."""
    rule = ALT_TEXT_RULES[platform]
    if kind in set(rule.kinds):
        return None
    wanted = " and ".join(f"{k}s" for k in sorted(rule.kinds)) or "no file"
    return Violation(rule, f"{rule.network} takes alt text on {wanted} only; the file is a {kind}.")
