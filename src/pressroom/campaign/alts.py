"""Which media's alt text (the campaign's ``media.<name>.alt``) a post sends to its
network: the API's ``fileAlts`` goes only where the network takes alt text on that file
(``pressroom.rules.alt_text``), so a file described once is sent with its description
to Instagram and left without it on YouTube, without refusing either post."""

from __future__ import annotations

from collections.abc import Mapping

from pressroom.campaign import model
from pressroom.campaign.fields import FORMAT
from pressroom.platforms import PostFormat
from pressroom.rules.alt_text import check_alt_kind, check_alt_post


def names_of(content: model.Content, post_media: str | None) -> list[str]:
    """Every media name the post carries on this network, in order: its file or its
    carousel's, then each thread part's."""
    names = list(content.carousel) if content.carousel else ([post_media] if post_media else [])
    names += [name for part in content.thread_media for name in part]
    return list(dict.fromkeys(names))


def sent_alts(
    content: model.Content, post_media: str | None, media: Mapping[str, model.Media]
) -> dict[str, str]:
    """Each described media name this post sends with its alt text."""
    chosen = content.text(FORMAT)
    post_format = PostFormat(chosen) if chosen in set(PostFormat) else PostFormat.POST
    carousel = bool(content.carousel) or any(len(part) > 1 for part in content.thread_media)
    if check_alt_post(content.platform, post_format, carousel=carousel) is not None:
        return {}
    sent = {}
    for name in names_of(content, post_media):
        found = media.get(name)
        if found is None or not found.alt or not found.alt.strip():
            continue
        if check_alt_kind(content.platform, found.kind) is None:
            sent[name] = found.alt
    return sent
