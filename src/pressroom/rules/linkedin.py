"""LinkedIn (professional_network): the images of a MultiImage post, 2 to 20, as the
MultiImage API's page says ("minimum of 2 images and maximum of 20 images"; copies of the
page for versions before 2023 said 9).

The 3,000-character limit on a post's commentary is quoted by integrations, but was not
found on a LinkedIn page, and whether the escapes of LinkedIn's "little text" format
count is not known. Add it here, with its page, once confirmed. The Comments API (POST
/rest/socialActions/{shareUrn}/comments,
https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api)
names no length limit for a comment's ``message.text`` that could be found either
(1,250 characters is quoted by integrations only), so a first comment has no rule.
"""

from __future__ import annotations

from pressroom.platforms import Platform
from pressroom.rules.model import ItemsPerPost, Rule

PLATFORM = Platform.PROFESSIONAL_NETWORK
NETWORK = "LinkedIn"
MULTI_IMAGE = (
    "https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/"
    "multiimage-post-api"
)

RULES: tuple[Rule, ...] = (
    ItemsPerPost(
        platform=PLATFORM,
        network=NETWORK,
        name="carousel_items",
        doc_url=MULTI_IMAGE,
        min_items=2,
        max_items=20,
    ),
)
