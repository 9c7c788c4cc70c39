"""A validated campaign: defaults merged, media resolved and probed, selectors parsed.

This is what ``load`` returns and ``plan`` reads. Paths (``("posts", 0, "microblog",
"text")``) record where each value was written, so later steps (an unknown connection
name found by ``plan``) can still point at a line of the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from pressroom.campaign.source import Path as FieldPath
from pressroom.campaign.source import SourceMap
from pressroom.platforms import Platform
from pressroom.probe import Probed, SentKind
from pressroom.rules import CAROUSELS


@dataclass(frozen=True)
class Schedule:
    cron: str
    timezone: str


@dataclass(frozen=True)
class Retries:
    attempts: int = 3
    backoff_seconds: float = 5.0
    max_delay_seconds: float = 60.0

    def delays(self) -> list[float]:
        """Base waits before each retry (exponential, capped), without jitter."""
        return [
            min(self.backoff_seconds * 2**index, self.max_delay_seconds)
            for index in range(self.attempts - 1)
        ]


@dataclass(frozen=True)
class Media:
    name: str
    path: Path
    """Absolute."""
    written_path: str
    """As written in the file, relative to it."""
    folder: str | None
    content_type: str
    kind: SentKind
    """An image or a video, or a document (a PDF, for a document post only)."""
    size: int
    info: Probed
    alt: str | None = None
    """Its alt text, sent where the network takes alt text on it (``rules.alt_text``)."""


class SelectBy(StrEnum):
    NAME = "name"
    ID = "id"


@dataclass(frozen=True)
class ConnectionRef:
    by: SelectBy
    value: str
    path: FieldPath

    def __str__(self) -> str:
        return f"{self.by.value} {self.value!r}"


@dataclass(frozen=True)
class Selector:
    """Every active connection of the platform (no refs), or the ones named."""

    refs: tuple[ConnectionRef, ...] = ()
    path: FieldPath = ()

    @property
    def every_active(self) -> bool:
        return not self.refs

    def __str__(self) -> str:
        if self.every_active:
            return "every active connection"
        return ", ".join(str(ref) for ref in self.refs)


@dataclass(frozen=True)
class Content:
    """One platform block of one post, with the campaign's defaults merged in."""

    platform: Platform
    fields: Mapping[str, str | bool]
    """Campaign field name → value (text, title, privacy, board, thumbnail …; the
    yes/no choices such as ``allow_comments`` as booleans)."""
    selector: Selector
    path: FieldPath
    origins: Mapping[str, FieldPath] = field(default_factory=dict)
    """Where each field was written: in the post's block or under ``defaults``; for a
    thread, where its list was written (part i after the first at ``(*origin, i)``)."""
    thread: tuple[str, ...] = ()
    """A thread's parts after the first (``text`` is the first); empty for a single post."""
    first_comment: str | None = None
    """The comment under the post, sent once the post stands; None for none."""
    carousel: tuple[str, ...] = ()
    """A carousel's media names in order, used instead of the post's media; empty for
    none. Where it was written is ``origins["media"]`` (item i at ``(*origin, i)``)."""
    thread_media: tuple[tuple[str, ...], ...] = ()
    """Each of ``thread``'s parts' media names (``{text, media}`` entries), in order;
    empty where a part has none, or for no thread. Part i's item j was written at
    ``(*origins["thread"], i, "media", j)``."""

    @property
    def parts(self) -> int:
        """How many parts this block makes: the post, a carousel's items where the
        network gives them ids, a thread's later parts, and its first comment."""
        return (
            1
            + item_parts(self.platform, len(self.carousel))
            + len(self.thread)
            + (self.first_comment is not None)
        )

    @property
    def thumbnail(self) -> str | None:
        return self.text("thumbnail")

    def text(self, name: str) -> str | None:
        """A field that holds a string (every field but the yes/no choices)."""
        value = self.fields.get(name)
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Post:
    id: str
    media: str | None
    contents: tuple[Content, ...]
    path: FieldPath


@dataclass(frozen=True)
class Campaign:
    name: str
    file: Path
    description: str | None
    schedule: Schedule | None
    retries: Retries
    media: Mapping[str, Media]
    posts: tuple[Post, ...]
    source: SourceMap = field(default_factory=SourceMap, compare=False, repr=False)


def item_parts(platform: Platform, items: int) -> int:
    """The ``item`` parts a carousel of ``items`` files adds to the result: one per file
    where the network gives each an id of its own, none where it does not (Pinterest)."""
    carousel = CAROUSELS.get(platform)
    return items if carousel is not None and carousel.item_ids else 0
