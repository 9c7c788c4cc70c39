"""What each real network is asked for at consent, and what of it publishing needs.

Each real driver keeps its own scopes (``SCOPES``, sent at consent) and the part of them
its publishing calls require (``PUBLISH_SCOPES``); this gathers them per label for those
that stand in for the networks or report on them: the sandbox's consent page grants the
same scopes and refuses a post as the network would when one is missing, and
``pressroom drivers check`` says what a connection's grant lacks. The figures a metrics
read needs a further scope for (``METRICS_SCOPES``) are gathered the same way, so the
sandbox counts what the network would for a grant. Nothing here restates a scope.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields

from pressroom.platforms import Platform
from pressroom.service.drivers import (
    microblog,
    open_microblog,
    page_social,
    photo_sharing,
    pin_board,
    professional_network,
    short_video,
    text_thread,
    video_sharing,
)
from pressroom.service.drivers.base import PostMetrics

CONSENT: dict[Platform, tuple[str, ...]] = {
    Platform.MICROBLOG: microblog.SCOPES,
    Platform.VIDEO_SHARING: video_sharing.SCOPES,
    Platform.SHORT_VIDEO: short_video.SCOPES,
    Platform.PHOTO_SHARING: photo_sharing.SCOPES,
    Platform.PAGE_SOCIAL: page_social.SCOPES,
    Platform.PIN_BOARD: pin_board.SCOPES,
    Platform.TEXT_THREAD: text_thread.SCOPES,
    Platform.PROFESSIONAL_NETWORK: professional_network.SCOPES,
    Platform.OPEN_MICROBLOG: open_microblog.SCOPES,
}
"""The scopes each label's real driver asks for at consent."""

PUBLISHING: dict[Platform, tuple[str, ...]] = {
    Platform.MICROBLOG: microblog.PUBLISH_SCOPES,
    Platform.VIDEO_SHARING: video_sharing.PUBLISH_SCOPES,
    Platform.SHORT_VIDEO: short_video.PUBLISH_SCOPES,
    Platform.PHOTO_SHARING: photo_sharing.PUBLISH_SCOPES,
    Platform.PAGE_SOCIAL: page_social.PUBLISH_SCOPES,
    Platform.PIN_BOARD: pin_board.PUBLISH_SCOPES,
    Platform.TEXT_THREAD: text_thread.PUBLISH_SCOPES,
    Platform.PROFESSIONAL_NETWORK: professional_network.PUBLISH_SCOPES,
    Platform.OPEN_MICROBLOG: open_microblog.PUBLISH_SCOPES,
}
"""The scopes each label's publishing calls require of the token."""

COMMENTING: dict[Platform, tuple[str, ...]] = {
    Platform.PHOTO_SHARING: photo_sharing.COMMENT_SCOPES,
    Platform.PAGE_SOCIAL: page_social.COMMENT_SCOPES,
    Platform.PROFESSIONAL_NETWORK: professional_network.COMMENT_SCOPES,
    Platform.VIDEO_SHARING: video_sharing.COMMENT_SCOPES,
}
"""The scopes a first comment's call requires of the token, on the labels that take one."""

METRICS: dict[Platform, dict[str, tuple[str, ...]]] = {
    Platform.SHORT_VIDEO: short_video.METRICS_SCOPES,
    Platform.PHOTO_SHARING: photo_sharing.METRICS_SCOPES,
    Platform.PAGE_SOCIAL: page_social.METRICS_SCOPES,
    Platform.TEXT_THREAD: text_thread.METRICS_SCOPES,
}
"""Per label, the figures (``PostMetrics``'s names) its metrics read needs a scope for
that publishing does not: a grant without the scope leaves them not counted (None), or,
where it is every figure the network reports, gets none at all. A label not here reads
its figures under its publishing scopes."""

for _platform, _needed in (
    *PUBLISHING.items(),
    *COMMENTING.items(),
    *((p, tuple(by_scope)) for p, by_scope in METRICS.items()),
):
    assert set(_needed) <= set(CONSENT[_platform]), f"{_platform}: calls with unasked scopes"
for _platform, _by_scope in METRICS.items():
    for _figures in _by_scope.values():
        assert set(_figures) <= {f.name for f in fields(PostMetrics)}, f"{_platform}: {_figures}"


def missing_for_publishing(
    platform: Platform, granted: Iterable[str], *, comment: bool = False
) -> tuple[str, ...]:
    """The scopes publishing on ``platform`` (with ``comment``, a first comment) needs
    that ``granted`` lacks, in the driver's order."""
    have = set(granted)
    needed = COMMENTING.get(platform, ()) if comment else PUBLISHING[platform]
    return tuple(scope for scope in needed if scope not in have)


def uncounted(platform: Platform, granted: Iterable[str]) -> frozenset[str]:
    """The figures a metrics read on ``platform`` leaves None for want of a scope that
    ``granted`` lacks (``METRICS``)."""
    have = set(granted)
    return frozenset(
        figure
        for scope, figures in METRICS.get(platform, {}).items()
        if scope not in have
        for figure in figures
    )
