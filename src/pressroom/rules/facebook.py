"""Facebook Pages (page_social): no rule is in the table yet.

None of Facebook's limits could be confirmed on a Meta page: the Page post text limit
(63,206 characters is widely quoted, not found on Meta's pages), photo formats and
sizes (secondary sources disagree: 4 MB or 10 MB), a number of Page posts per day. Add
each here, with its page, once confirmed. Nor is there a comment rule: the Page post's
comments edge (POST /{post-id}/comments, ``message``,
https://developers.facebook.com/docs/graph-api/reference/object/comments) names no
length limit for a comment that could be found. Nor is there a carousel rule: Meta's
pages describe a multi-photo Page post (photos uploaded with ``published=false``, then
``attached_media`` on POST /{page-id}/feed,
https://developers.facebook.com/docs/graph-api/reference/page/photos) without a number
of photos, so a multi-photo post is held to pressroom's own floor of 2 alone.
"""

from __future__ import annotations

from pressroom.platforms import Platform
from pressroom.rules.model import Rule

PLATFORM = Platform.PAGE_SOCIAL
NETWORK = "Facebook"

RULES: tuple[Rule, ...] = ()
