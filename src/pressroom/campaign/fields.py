"""Campaign field names and the publish-body fields they become: the one place they meet.

Text fields keep the API's names (``text``, ``title``, ``description``, ``caption``,
``message``) and come from the rule table; the others are renamed for editors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pressroom.platforms import RULES, Platform, PostFormat
from pressroom.rules.formats import DOCUMENT_TITLE, FORMATS, format_rule

CONNECTIONS = "connections"
PRIVACY = "privacy"
PRIVACY_LEVEL = "privacy_level"
BOARD = "board"
THUMBNAIL = "thumbnail"
FIT = "fit"
"""``refuse`` (the default), ``pad`` or ``crop``: what may be done to a picture whose
shape the network does not take."""
MADE_FOR_KIDS = "made_for_kids"
FORMAT = "format"
"""``post`` (the default) or a format the label offers (``pressroom.rules.formats``)."""
ALT_TEXT = "alt_text"
"""open_microblog's description of the post's image or video, for people who cannot see it."""
INTERACTIONS = ("allow_comments", "allow_duet", "allow_stitch")
"""short_video's yes/no choices, each turning one interaction on (pressroom's extension)."""
CHOICES = (PRIVACY, PRIVACY_LEVEL, BOARD, THUMBNAIL, FIT, FORMAT)
"""Fields that name a value rather than carry text: surrounding spaces are dropped."""

BODY_FIELDS: Mapping[str, str] = {
    PRIVACY: "privacyStatus",
    PRIVACY_LEVEL: "privacyLevel",
    BOARD: "boardId",
    "media": "fileId",
    THUMBNAIL: "thumbnailFileId",
    "allow_comments": "allowComments",
    "allow_duet": "allowDuet",
    "allow_stitch": "allowStitch",
    MADE_FOR_KIDS: "madeForKids",
    DOCUMENT_TITLE: "documentTitle",
    ALT_TEXT: "altText",
}
"""Campaign name → API body name, where they differ."""

BODY_CONSTANTS: Mapping[Platform, Mapping[str, str]] = {
    # The short_video endpoint is shared (`/api/social/post`) and names its platform.
    Platform.SHORT_VIDEO: {"platform": Platform.SHORT_VIDEO.value},
}


def body_name(field: str) -> str:
    return BODY_FIELDS.get(field, field)


def content_fields(platform: Platform) -> tuple[str, ...]:
    """The fields a platform block carries besides ``connections``, in body order."""
    rules = RULES[platform]
    names = [rule.name for rule in rules.text_fields]
    if rules.requires_board:
        names.insert(0, BOARD)
    if platform is Platform.VIDEO_SHARING:
        names.extend((PRIVACY, MADE_FOR_KIDS))
    if platform is Platform.SHORT_VIDEO:
        names.extend((PRIVACY_LEVEL, *INTERACTIONS))
    if rules.supports_thumbnail:
        names.append(THUMBNAIL)
    if not rules.text_only:
        names.append(FIT)
    if FORMATS[platform]:
        names.append(FORMAT)
    if any(rule.name == "document" for rule in FORMATS[platform].values()):
        names.append(DOCUMENT_TITLE)
    if platform is Platform.OPEN_MICROBLOG:
        names.append(ALT_TEXT)
    return tuple(names)


def publish_body(
    platform: Platform,
    fields: Mapping[str, str | bool],
    connection_id: str,
    file_id: str | None = None,
    thread: Sequence[str] = (),
    first_comment: str | None = None,
) -> dict[str, Any]:
    """The exact JSON body of the platform's publish call (the thumbnail is a later step);
    a thread's follow-up parts go in ``thread`` as ``{text}`` parts, after the first's
    fields, and a first comment in ``firstComment``."""
    body: dict[str, Any] = {**BODY_CONSTANTS.get(platform, {}), "connectionId": connection_id}
    if file_id is not None:
        body[body_name("media")] = file_id
    for name in content_fields(platform):
        if name != THUMBNAIL and fields.get(name) is not None:
            body[body_name(name)] = fields[name]
    if thread:
        body["thread"] = [{"text": text} for text in thread]
    if first_comment is not None:
        body["firstComment"] = first_comment
    return body


def thumbnail_body(file_id: str) -> dict[str, Any]:
    return {body_name(THUMBNAIL): file_id}


def takes_post_media(platform: Platform, fields: Mapping[str, str | bool]) -> bool:
    """Whether the post's one file (its ``media``) goes with a block of ``platform``
    holding ``fields``: on a label that takes media, and on a text-only one in a format
    that takes a file (a document post's PDF on professional_network)."""
    if not RULES[platform].text_only:
        return True
    chosen = fields.get(FORMAT)
    return (
        isinstance(chosen, str)
        and chosen in set(PostFormat)
        and format_rule(platform, PostFormat(chosen)) is not None
    )
