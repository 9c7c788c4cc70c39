"""LinkedIn (professional_network): the images of a MultiImage post, 2 to 20, as the
MultiImage API's page says ("minimum of 2 images and maximum of 20 images"; copies of the
page for versions before 2023 said 9); and a post's ``commentary`` of at most 3,000.

The 3,000 is LinkedIn's composer's limit, the one every integration quotes; the Posts
API's page describes ``commentary`` without printing a length. It is checked anyway, as
the safe side: a longer post is refused here, naming the rule, before a campaign sends it
for LinkedIn to refuse. It counts UTF-16 code units, as the composer counts in the
browser (an emoji is two), the strictest of the counts it could be; whether the escapes
of LinkedIn's "little text" format count is not known, and they are not counted. The
Comments API (POST /rest/socialActions/{shareUrn}/comments,
https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api)
names no length limit for a comment's ``message.text`` that could be found either
(1,250 characters is quoted by integrations only), so a first comment has no rule.
"""

from __future__ import annotations

from pressroom.platforms import Platform
from pressroom.rules.counting import Unit
from pressroom.rules.model import ItemsPerPost, Rule, TextLength

PLATFORM = Platform.PROFESSIONAL_NETWORK
NETWORK = "LinkedIn"
MULTI_IMAGE = (
    "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/"
    "multiimage-post-api"
)

POSTS = "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api"

RULES: tuple[Rule, ...] = (
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="commentary_length",
        doc_url=POSTS,
        fields=("text",),
        limit=3000,
        unit=Unit.UTF16_UNITS,
    ),
    ItemsPerPost(
        platform=PLATFORM,
        network=NETWORK,
        name="carousel_items",
        doc_url=MULTI_IMAGE,
        min_items=2,
        max_items=20,
    ),
)
