"""The real networks' own rules, as data: what X, YouTube, TikTok, Instagram, Facebook,
Pinterest, Threads, LinkedIn and Bluesky refuse, each rule with the page it comes from.

**The spec first, then the network.** ``pressroom.platforms`` holds the spec's contract
(labels, routes, the spec's limits), checked first with the spec's errors: 281
characters on microblog is the spec's 400 ``text_too_long``. A network that is stricter
or counts differently (X weighs CJK, emoji and links; YouTube counts its description in
bytes and refuses ``<`` and ``>``; Instagram takes JPEG only) has its rule here, checked
next, before anything is sent: a 400 ``validation_error`` naming the field, the rule
(``error.rule``, e.g. ``microblog.weighted_length``) and its page (``error.docUrl``). Where
the network is looser than the spec, the spec wins and the network's rule is never
reached.

One table, read by every consumer at the moment it checks: the API's validator,
``pressroom campaign validate`` (offline, at the YAML line of the field), the sandbox
driver (which refuses what the network would) and the real drivers' check before their
first request.

**Adding a rule** is adding data to one network's module (``x.py`` for microblog,
``youtube.py``, ``tiktok.py``, ``instagram.py``, ``facebook.py``, ``pinterest.py``,
``threads.py``, ``linkedin.py``, ``bluesky.py`` for open_microblog): one of the kinds of ``model`` (``TextLength``,
``ForbiddenCharacters``, ``ItemCount``, ``MediaFormat``, ``MaxBytes``, ``Dimensions``,
``AspectRatio``, ``Duration``, ``VideoCodec``, ``AudioCodec``, ``FrameRate``,
``ItemsPerPost``, ``PartsPerThread``, ``PostsPerDay``, ``SeeMore``) with its name, its limit and ``doc_url``; a media rule
says what conversion meets it (``fix``) or None when nothing does. The tests go over the
table, so a new text rule is tried through the API just inside and just outside its
limit without a test written for it. A figure that could not be confirmed on the
network's own page stays out, and its module's docstring says so.

**Units** (``counting.Unit``): ``characters`` are grapheme clusters, as the spec counts
(an emoji with its skin tone, a flag, an accented letter: one each); ``code points``
(a JSON Schema ``maxLength``, Pinterest); ``bytes (UTF-8)`` (YouTube's description: é
is 2, 😀 is 4); ``UTF-16 code units`` (TikTok's caption: 😀 is 2); X's weighted
characters (twitter-text v3: Latin and punctuation 1, CJK and other scripts 2, an emoji
2 however it is composed, a link 23); Threads' characters (an emoji counts its UTF-8
bytes). Sizes are bytes; where a page says MB or GB, the smaller reading (10^6, 10^9)
is taken, unless the network gives the figure in bytes. Aspect ratios are width
divided by height; frame rates are frames a second; durations are seconds.

**Media rules and fitting**: a file breaking a rule that conversion can meet is not
refused; the check reports it as needing fitting (``MediaVerdict.needs_fitting``). A
rule nothing but the editor's choice can meet (a duration; an aspect ratio, unless the
campaign says ``fit: pad`` or ``fit: crop``) refuses the post. Item counts per post
(``ItemsPerPost``) bound a carousel's ``fileIds``, whose labels and kinds of file are
``CAROUSELS``; posts per day are the sandbox's daily quotas.
``SeeMore`` (how much of a text an app shows before its "more" link) refuses nothing:
the preview shows the cut. No network documents one for the posts pressroom sends, so
the table holds none yet (``pressroom.campaign.preview`` says what was looked for).

This package imports nothing of the service (no FastAPI, SQLAlchemy or boto3), so the
campaign validator and the client stay light.
"""

from __future__ import annotations

from pressroom.rules.check import (
    CAROUSELS,
    COMMENTED,
    FIRST_COMMENT,
    MIN_CAROUSEL_ITEMS,
    Carousel,
    MediaFacts,
    MediaVerdict,
    Violation,
    carousel_rule,
    check_carousel,
    check_media,
    check_text,
    check_thread,
    media_rules,
    takes_carousels,
    takes_first_comment,
    takes_threads,
    text_rules,
)
from pressroom.rules.counting import Unit, measure
from pressroom.rules.model import Fit, Fix, Rule, SeeMore, Subject
from pressroom.rules.table import NETWORKS, TABLE, all_rules, rule_by_id, rules_of

__all__ = [
    "CAROUSELS",
    "COMMENTED",
    "FIRST_COMMENT",
    "MIN_CAROUSEL_ITEMS",
    "NETWORKS",
    "TABLE",
    "Carousel",
    "Fit",
    "Fix",
    "MediaFacts",
    "MediaVerdict",
    "Rule",
    "SeeMore",
    "Subject",
    "Unit",
    "Violation",
    "all_rules",
    "carousel_rule",
    "check_carousel",
    "check_media",
    "check_text",
    "check_thread",
    "measure",
    "media_rules",
    "rule_by_id",
    "rules_of",
    "takes_carousels",
    "takes_first_comment",
    "takes_threads",
    "text_rules",
]
