"""What each network will show of each post, built from what ``validate`` found.

The preview reads the campaign as validate read it (``Report.draft``: every post, also
those with errors), so an over-long text is shown with its count past the limit and the
rule it breaks rather than not at all. Counts and cuts are asked of the rule tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

import regex

from pressroom.campaign.alts import sent_alts
from pressroom.campaign.fields import (
    CONNECTIONS,
    FORMAT,
    THUMBNAIL,
    content_fields,
    takes_post_media,
)
from pressroom.campaign.issues import Issue, dotted
from pressroom.campaign.model import Campaign, Content, Media, Post
from pressroom.campaign.timing import next_runs
from pressroom.campaign.validate import Report
from pressroom.platforms import RULES, MediaKind, Platform, count_characters
from pressroom.platforms import TextRule as SpecTextRule
from pressroom.probe import DocumentInfo
from pressroom.rules import FIRST_COMMENT, SeeMore, Unit, measure, rules_of
from pressroom.rules.check import count_items
from pressroom.rules.model import ItemCount, TextLength
from pressroom.rules.table import NETWORKS

NEXT_RUNS = 3
"""How many of a scheduled campaign's next runs the preview lists."""
SPEC = "the spec"
"""Who counts a limit of ``pressroom.platforms``: the API's own contract."""
DEFAULT_FORMAT = "post"
"""The publish body's ``format`` when none is given (a block without ``format:``)."""
_GRAPHEME = regex.compile(r"\X")


class PartKind(StrEnum):
    """What a part of a post is, as the publish result's ``parts`` name them. A carousel's
    items are the media of its one part, in order, not parts of their own here."""

    POST = "post"
    REPLY = "reply"
    """A thread's part after the first."""
    COMMENT = "comment"
    """The first comment, under the post."""


@dataclass(frozen=True)
class Count:
    """One way of counting one text, and the limit in that count (None: no limit)."""

    what: str
    """What is counted (a ``Unit``'s words, or ``hashtags``)."""
    length: int
    limit: int | None
    by: str
    """Who counts it so: ``SPEC``, or the network's name."""
    rule: str | None = None
    """The network's rule (``microblog.weighted_length``); None for the spec's limit."""
    doc_url: str | None = None

    @property
    def over(self) -> int:
        """How far past the limit the text is (0 within it)."""
        return 0 if self.limit is None else max(0, self.length - self.limit)

    @property
    def phrase(self) -> str:
        """``282 / 280 weighted characters (…)``, or ``183 characters, no limit``."""
        if self.limit is None:
            return f"{self.length:,} {self.what}, no limit"
        return f"{self.length:,} / {self.limit:,} {self.what}"


@dataclass(frozen=True)
class Cut:
    """A text as the app first shows it: ``shown``, then the ``link``, then the rest."""

    shown: str
    hidden: str
    link: str
    rule: str
    doc_url: str


@dataclass(frozen=True)
class TextPreview:
    field: str
    text: str
    counts: tuple[Count, ...]
    cut: Cut | None = None


@dataclass(frozen=True)
class MediaPreview:
    media: Media
    role: str = "media"
    """``media`` for what the post carries, ``thumbnail`` for a video's cover."""
    alt: str | None = None
    """The alt text sent with it to this network (``media.<name>.alt``, where the
    network takes it on this file)."""

    @property
    def name(self) -> str:
        return self.media.name

    def describe(self) -> str:
        """The file's facts in a few words: ``video, 720x1280, 4 s, 7.7 KB``; a
        document's pages: ``document, 12 pages, 180 KB``."""
        info = self.media.info
        if isinstance(info, DocumentInfo):
            pages = f"{info.pages:,} page{'s' if info.pages != 1 else ''}"
            return ", ".join((str(self.media.kind), pages, _size(self.media.size)))
        facts = [str(self.media.kind), f"{info.width}x{info.height}"]
        if self.media.kind is MediaKind.VIDEO and info.duration_seconds is not None:
            facts.append(f"{info.duration_seconds:.3g} s")
        facts.append(_size(self.media.size))
        return ", ".join(facts)


@dataclass(frozen=True)
class Part:
    """One part of a post: its texts and its media, in the order they are shown."""

    index: int
    kind: PartKind
    texts: tuple[TextPreview, ...]
    media: tuple[MediaPreview, ...] = ()


@dataclass(frozen=True)
class BlockPreview:
    """One post on one network."""

    platform: Platform
    network: str
    parts: tuple[Part, ...]
    settings: tuple[tuple[str, str], ...] = ()
    """The block's other fields (connections, privacy, board, fit …), as written."""
    thumbnail: MediaPreview | None = None
    format: str = DEFAULT_FORMAT
    issues: tuple[Issue, ...] = ()

    @property
    def numbered(self) -> int:
        """How many parts are numbered ("Part 1 of 3"): the post and a thread's replies;
        a first comment has a heading of its own."""
        return sum(part.kind is not PartKind.COMMENT for part in self.parts)


@dataclass(frozen=True)
class PostPreview:
    id: str
    blocks: tuple[BlockPreview, ...]
    issues: tuple[Issue, ...] = ()
    """validate's findings about the post itself (its id, its media, an empty block)."""


@dataclass(frozen=True)
class CampaignPreview:
    file: str
    """As given on the command line."""
    name: str
    description: str | None
    posts: tuple[PostPreview, ...]
    issues: tuple[Issue, ...]
    """validate's findings not about any one post (the header, media entries)."""
    all_issues: tuple[Issue, ...]
    cron: str | None = None
    timezone: str | None = None
    next_runs: tuple[datetime, ...] = ()
    readable: bool = True
    """False when not even the campaign's header could be read: only its issues show."""

    @property
    def errors(self) -> int:
        return sum(issue.is_error for issue in self.all_issues)

    @property
    def warnings(self) -> int:
        return len(self.all_issues) - self.errors

    @property
    def media(self) -> list[MediaPreview]:
        """Every file shown, once, in the order the posts show them."""
        seen: dict[Path, MediaPreview] = {}
        for post in self.posts:
            for block in post.blocks:
                shown = [m for part in block.parts for m in part.media]
                for item in [*shown, *([block.thumbnail] if block.thumbnail else [])]:
                    seen.setdefault(item.media.path, item)
        return list(seen.values())


def shown_time(moment: datetime) -> str:
    """A run's time as its zone's clock reads it: ``Mon 2026-11-30 09:00 CET``."""
    return f"{moment:%a %Y-%m-%d %H:%M} {moment.tzname()}"


def build(report: Report, *, now: datetime | None = None) -> CampaignPreview:
    """The preview of one validated file; ``now`` is when the next runs count from."""
    file = str(report.file)
    campaign = report.draft
    issues = tuple(report.issues)
    if campaign is None:
        return CampaignPreview(file, report.file.stem, None, (), issues, issues, readable=False)
    posts = tuple(_post(campaign, post, issues) for post in campaign.posts)
    shown = {issue for post in posts for issue in _issues_of(post)}
    schedule = campaign.schedule
    runs: list[datetime] = []
    if schedule is not None:
        runs = next_runs(schedule.cron, schedule.timezone, now or datetime.now(UTC), NEXT_RUNS)
    return CampaignPreview(
        file,
        campaign.name,
        campaign.description,
        posts,
        tuple(issue for issue in issues if issue not in shown),
        issues,
        cron=schedule.cron if schedule else None,
        timezone=schedule.timezone if schedule else None,
        next_runs=tuple(runs),
    )


def _post(campaign: Campaign, post: Post, issues: tuple[Issue, ...]) -> PostPreview:
    blocks = tuple(_block(campaign, post, content, issues) for content in post.contents)
    beside_blocks = {issue for block in blocks for issue in block.issues}
    own = [issue for issue in _under(issues, [dotted(post.path)]) if issue not in beside_blocks]
    return PostPreview(post.id, blocks, tuple(own))


def _issues_of(post: PostPreview) -> list[Issue]:
    return [*post.issues, *(issue for block in post.blocks for issue in block.issues)]


def _block(
    campaign: Campaign, post: Post, content: Content, issues: tuple[Issue, ...]
) -> BlockPreview:
    spec = RULES[content.platform]
    texts = tuple(
        _text(content.platform, rule, value)
        for rule in spec.text_fields
        if (value := content.text(rule.name)) is not None
    )
    media: tuple[MediaPreview, ...] = ()
    alts = sent_alts(content, post.media, campaign.media)
    if content.carousel:  # its files in order, instead of the post's one
        media = tuple(
            MediaPreview(campaign.media[name], alt=alts.get(name))
            for name in content.carousel
            if name in campaign.media
        )
    elif (
        takes_post_media(content.platform, content.fields)
        and post.media is not None
        and post.media in campaign.media
    ):
        media = (MediaPreview(campaign.media[post.media], alt=alts.get(post.media)),)
    thumbnail = None
    if content.thumbnail is not None and content.thumbnail in campaign.media:
        thumbnail = MediaPreview(campaign.media[content.thumbnail], role="thumbnail")
    places = [dotted(content.path), *(dotted(path) for path in content.origins.values())]
    if content.selector.path:
        places.append(dotted(content.selector.path))
    text_rule = spec.text_rule("text")
    part_media = content.thread_media or ((),) * len(content.thread)
    replies = tuple(
        Part(
            index,
            PartKind.REPLY,
            (_text(content.platform, text_rule, text),),
            tuple(
                MediaPreview(campaign.media[n], alt=alts.get(n))
                for n in names
                if n in campaign.media
            ),
        )
        for index, (text, names) in enumerate(zip(content.thread, part_media, strict=True), 1)
        if text_rule is not None  # a thread is read only where there is a text
    )
    comments = (
        ()
        if content.first_comment is None
        else (
            Part(
                1 + len(replies),
                PartKind.COMMENT,
                (_comment_text(content.platform, content.first_comment),),
            ),
        )
    )
    return BlockPreview(
        content.platform,
        NETWORKS[content.platform],
        (Part(0, PartKind.POST, texts, media), *replies, *comments),
        format=content.text(FORMAT) or DEFAULT_FORMAT,
        settings=_settings(content),
        thumbnail=thumbnail,
        issues=_under(issues, places),
    )


def _text(platform: Platform, spec: SpecTextRule, text: str) -> TextPreview:
    own: list[Count] = []
    items: list[Count] = []
    spec_count = Count(str(Unit.GRAPHEMES), count_characters(text), spec.max_chars, SPEC)
    for rule in rules_of(platform):
        if isinstance(rule, TextLength) and spec.name in rule.fields:
            count = Count(
                str(rule.unit),
                measure(text, rule.unit),
                rule.limit,
                rule.network,
                rule.id,
                rule.doc_url,
            )
            if rule.unit is Unit.GRAPHEMES and rule.limit == spec.max_chars:
                spec_count = count  # the same count and limit: shown once, with the page
            else:
                own.append(count)
        elif isinstance(rule, ItemCount) and spec.name in rule.fields:
            items.append(
                Count(
                    str(rule.item),
                    count_items(text, rule.item),
                    rule.limit,
                    rule.network,
                    rule.id,
                    rule.doc_url,
                )
            )
    counts = (*own, spec_count, *items)
    return TextPreview(spec.name, text, counts, _cut(platform, spec.name, text))


def _comment_text(platform: Platform, text: str) -> TextPreview:
    """A first comment's counts: the network's comment rules where it documents any,
    else its characters with no limit (the spec has no first comment)."""
    counts = tuple(
        Count(
            str(rule.unit),
            measure(text, rule.unit),
            rule.limit,
            rule.network,
            rule.id,
            rule.doc_url,
        )
        for rule in rules_of(platform)
        if isinstance(rule, TextLength) and FIRST_COMMENT in rule.fields
    ) or (Count(str(Unit.GRAPHEMES), count_characters(text), None, NETWORKS[platform]),)
    return TextPreview(FIRST_COMMENT, text, counts)


def _cut(platform: Platform, field: str, text: str) -> Cut | None:
    """Where the app hides the rest of ``text``, when the table says and it is that long."""
    for rule in rules_of(platform):
        if not isinstance(rule, SeeMore) or field not in rule.fields:
            continue
        if measure(text, rule.unit) <= rule.limit:
            return None
        clusters = _GRAPHEME.findall(text)
        # The longest run of whole characters within the limit (a count that grows with
        # the text, so halving finds it in a few counts even for a long caption).
        low, high = 0, len(clusters)
        while low < high:
            middle = (low + high + 1) // 2
            if measure("".join(clusters[:middle]), rule.unit) <= rule.limit:
                low = middle
            else:
                high = middle - 1
        shown = "".join(clusters[:low])
        return Cut(shown, text[len(shown) :], rule.link, rule.id, rule.doc_url)
    return None


def _settings(content: Content) -> tuple[tuple[str, str], ...]:
    texts = {rule.name for rule in RULES[content.platform].text_fields}
    found = [(CONNECTIONS, str(content.selector))]
    for name in content_fields(content.platform):
        value = content.fields.get(name)
        if name in texts or name in (THUMBNAIL, FORMAT) or value is None:
            continue
        found.append((name, str(value).lower() if isinstance(value, bool) else value))
    return tuple(found)


def _under(issues: Iterable[Issue], places: list[str]) -> tuple[Issue, ...]:
    """The issues at or under any of ``places``. A default's issue is under every block
    that takes the default, and so shown beside each of those posts."""
    return tuple(
        issue
        for issue in issues
        if any(issue.path == place or issue.path.startswith(f"{place}.") for place in places)
    )


def _size(size: int) -> str:
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
