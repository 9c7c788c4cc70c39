"""A campaign as each network will show it, before it is merged: ``campaign preview``.

``build(report)`` reads what ``validate`` read (the same ``Report``, its campaign as far
as it could be read, errors and all) and returns a ``CampaignPreview``: for every post
and network block its text with the counts the spec and the network take (X's weighted
count, YouTube's bytes, TikTok's UTF-16 units, Threads' emoji in bytes, each with the
rule it comes from), its media in order, its format, validate's errors and warnings
beside it, and the campaign's next runs in its own time zone. ``markdown.render`` and
``html.write`` show it; nothing is sent anywhere and no service is asked.

Contracts
- Every number comes from the rule tables (``pressroom.platforms`` for the spec's,
  ``pressroom.rules`` for the networks'); this package restates none.
- A post is a list of parts: today one (``PartKind.POST``), with its texts and its one
  media file. Threads add ``REPLY`` parts, carousels more media in the part, a first
  comment a ``COMMENT`` part, and ``format`` its value: the renderers already number
  parts and media and show a first comment, so those slot in without a new layout.
- The Markdown is for a pull request's job summary: no image at all (GitHub shows none
  from a relative path, and a ``data:`` URI is refused), at most ``markdown.LIMIT``
  bytes, cut with a note past that. The HTML writes its thumbnails as files beside it
  (``<name>_files/``) and escapes every text a campaign holds.

The "see more" cut: networks' apps hide a long text behind a link ("more", "see more"),
and ``pressroom.rules.SeeMore`` holds where, with its page. No network documents the cut
for the posts pressroom sends, so the table holds none and the preview shows no cut
rather than a guessed one. Looked for (2026-11): Instagram's caption (the "125
characters" often quoted is from third-party guides; Meta's Ads Guide recommends 125
characters of an ad's primary text, advice for ads, not the cut of a post's caption);
Facebook Page posts and LinkedIn posts (only third-party estimates, which LinkedIn's
own pages do not confirm); YouTube's description above "...more" (the Help Center names
no length); TikTok's caption. X and Threads show a post whole up to their limits.
"""

from pressroom.campaign.preview.model import (
    BlockPreview,
    CampaignPreview,
    Count,
    Cut,
    MediaPreview,
    Part,
    PartKind,
    PostPreview,
    TextPreview,
    build,
)

__all__ = [
    "BlockPreview",
    "CampaignPreview",
    "Count",
    "Cut",
    "MediaPreview",
    "Part",
    "PartKind",
    "PostPreview",
    "TextPreview",
    "build",
]
