"""X (microblog): the weighted length.

The spec makes microblog posts text only (threads are text parts too), so pressroom
never sends X a file and X's media rules (5 MB images, 512 MB and 140 s video, four
items a post) have no place here: a rule no post can reach is one no test can show.

Not in the table, not confirmed on an X page: a number of posts per day (the often
quoted 2,400 is not on X's pages), and the animated GIF limits (15 MB, 1280x1080,
350 frames: recommendations, not refusals).
"""

from __future__ import annotations

from pressroom.platforms import Platform
from pressroom.rules.counting import X_MAX_WEIGHTED_LENGTH, Unit
from pressroom.rules.model import PartsPerThread, Rule, TextLength

PLATFORM = Platform.MICROBLOG
NETWORK = "X"
COUNTING = "https://docs.x.com/fundamentals/counting-characters"
MANAGE_POSTS = "https://docs.x.com/x-api/posts/manage-tweets/migrate/overview"
POSTS_PER_WINDOW = 200
"""X's rate limit on creating posts: 200 requests in 15 minutes per user. Each part of a
thread is one such request, so a longer thread would be cut off part way."""

RULES: tuple[Rule, ...] = (
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="weighted_length",
        doc_url=COUNTING,
        fields=("text",),
        limit=X_MAX_WEIGHTED_LENGTH,
        unit=Unit.X_WEIGHTED,
    ),
    PartsPerThread(
        platform=PLATFORM,
        network=NETWORK,
        name="thread_parts",
        doc_url=MANAGE_POSTS,
        max_parts=POSTS_PER_WINDOW,
    ),
)
