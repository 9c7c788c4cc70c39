"""The units networks count text in, each a function from a text to a number.

- ``GRAPHEMES``: characters as a reader sees them (extended grapheme clusters), the
  spec's own unit (``pressroom.platforms.count_characters``).
- ``CODE_POINTS``: Unicode code points, what a JSON Schema ``maxLength`` counts
  (Pinterest's published description of its API).
- ``UTF8_BYTES``: the bytes of the text in UTF-8 (YouTube's description).
- ``UTF16_UNITS``: UTF-16 code units, what JavaScript's ``length`` counts: an emoji
  outside the Basic Multilingual Plane is two (TikTok's caption).
- ``X_WEIGHTED``: X's weighted length, twitter-text's configuration v3
  (https://github.com/twitter/twitter-text/blob/master/config/v3.json, explained on
  https://docs.x.com/fundamentals/counting-characters): after NFC normalisation, each
  code point in the Latin, punctuation and general ranges weighs 1, any other weighs 2
  (CJK, most other scripts), an emoji weighs 2 however many code points it joins (a
  family, a flag, a skin tone), and every link weighs 23 whatever its length (X shortens
  it to a t.co link of that size).
- ``THREADS``: Threads' count: characters, except that an emoji counts as its UTF-8
  bytes (https://developers.facebook.com/docs/threads/posts, "Emojis are counted as the
  number of UTF-8 bytes").

Why X's count is ours and not the ``twitter-text-parser`` package: that package passes
twitter-text's conformance file, but imports setuptools' ``pkg_resources`` (deprecated,
not declared, absent from a fresh virtual environment) and carries the emoji list of
2019, so emoji newer than Unicode 12 that are joined sequences count as several (a
family of three adults and children made of newer code points weighed 8 where X says
2). The rules X documents are few: weight ranges, emoji as one unit, links as 23. Here
emoji are found with the ``regex`` module's current Unicode properties on grapheme
clusters, and a link's top-level domain is checked against the Public Suffix List
(``publicsuffixlist``, kept current), as twitter-text checks it against its list: a
word with a dot is a link only when it ends in a real top-level domain
(``example.com``, ``example.jp``, ``https://例え.jp``), not ``end.Then`` or
``http://localhost``.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING

import regex

from pressroom.platforms import count_characters

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList


class Unit(StrEnum):
    """What a text limit counts; the value is how a message names it."""

    GRAPHEMES = "characters"
    CODE_POINTS = "code points"
    UTF8_BYTES = "bytes (UTF-8)"
    UTF16_UNITS = "UTF-16 code units"
    X_WEIGHTED = "weighted characters (X's count: CJK and emoji 2, a link 23)"
    THREADS = "characters (Threads' count: an emoji counts its UTF-8 bytes)"


# X's weighted length: twitter-text configuration v3.
X_MAX_WEIGHTED_LENGTH = 280
"""``maxWeightedTweetLength``: the limit the rule table cites for X (in ``x.py``)."""
X_SCALE = 100
X_DEFAULT_WEIGHT = 200
X_RANGES: tuple[tuple[int, int, int], ...] = (
    (0, 4351, 100),
    (8192, 8205, 100),
    (8208, 8223, 100),
    (8242, 8247, 100),
)
"""(first code point, last code point, weight); every other code point weighs
``X_DEFAULT_WEIGHT``."""
X_EMOJI_WEIGHT = X_DEFAULT_WEIGHT
"""``emojiParsingEnabled``: an emoji weighs the default weight, whatever its length."""
X_URL_LENGTH = 23
"""``transformedURLLength``: every link counts as this many characters."""

_GRAPHEME = regex.compile(r"\X")
_EMOJI = regex.compile(
    r"[\p{Extended_Pictographic}\p{Emoji_Presentation}\p{Regional_Indicator}\u20e3]"
)
"""A grapheme cluster holding one of these is an emoji: a pictograph (with or without
its emoji variation selector), a flag's regional indicators, a keycap (``1️⃣``).
Digits, ``#`` and ``*`` alone have the Emoji property too, and are not emoji."""

_URL_CANDIDATE = regex.compile(
    r"(?<![\p{L}\p{N}_-])"
    r"(?P<scheme>https?://)?"
    r"(?P<host>(?:(?>[\p{L}\p{N}][\p{L}\p{N}_-]{0,62})\.){1,20}"
    r"(?P<tld>xn--[a-z0-9-]{1,59}|\p{L}{2,63}))"
    r"(?![\p{L}\p{N}_-])"
    r"(?P<port>:[0-9]{1,5})?",
    regex.IGNORECASE,
)
"""A host name ending in what may be a top-level domain, with its scheme and port.
Labels are at most 63 characters and a host at most 20 labels, as in DNS, which also
bounds the work on a hostile text."""
_NOT_BEFORE_A_LINK = regex.compile(r"[\p{L}\p{N}@＠$#＃\u202a-\u202e]")
"""A link is not glued to a word, a handle, a cashtag or a hashtag before it."""
_NOT_BEFORE_A_BARE_LINK = regex.compile(r"[-_./]")
"""A link without its scheme does not continue a path or a longer name either."""
_PATH = regex.compile(r"[/?#][\p{Latin}\p{Cyrillic}0-9!*';:=+,.$/%#\[\]\-\u2013_~@|&()?]*")
"""A path, query and fragment: Latin and Cyrillic letters, digits and URL punctuation;
anything else (a space, CJK, an emoji, a curly quote) ends the link."""
_PATH_END = regex.compile(r"[\p{Latin}\p{Cyrillic}0-9=_#/+\-&)]")
"""What a link's path can end with: a sentence's full stop or comma after it is not
part of it."""


@functools.cache
def _suffixes() -> PublicSuffixList:
    """Loaded on the first text with a dotted word (about 80 ms), not on import."""
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()


def _is_top_level_domain(label: str) -> bool:
    return _suffixes().publicsuffix(f"a.{label.lower()}", accept_unknown=False) is not None


def _path_length(text: str, start: int) -> int:
    """How much of ``text`` from ``start`` is the link's path: up to a closing bracket
    it did not open, then back to a character a link can end with."""
    match = _PATH.match(text, start)
    if match is None:
        return 0
    path = match.group()
    depth = 0
    for index, char in enumerate(path):
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                path = path[:index]
                break
            depth -= 1
    while path and _PATH_END.match(path[-1]) is None:
        path = path[:-1]
    if path.count("(") != path.count(")"):
        path = path.rstrip(")")
    return len(path)


def links(text: str) -> list[tuple[int, int]]:
    """Where the links are in ``text``, as (start, end) offsets: what X counts as 23."""
    found: list[tuple[int, int]] = []
    position = 0
    while (match := _URL_CANDIDATE.search(text, position)) is not None:
        start = match.start()
        before = text[start - 1] if start > 0 else ""
        bare = match.group("scheme") is None
        refused = bool(before) and (
            _NOT_BEFORE_A_LINK.match(before) is not None
            or (bare and _NOT_BEFORE_A_BARE_LINK.match(before) is not None)
        )
        if refused or not _is_top_level_domain(match.group("tld")):
            position = match.end("host")
            continue
        end = match.end() + _path_length(text, match.end())
        found.append((start, end))
        position = end
    return found


def is_emoji(cluster: str) -> bool:
    return _EMOJI.search(cluster) is not None


def _code_point_weight(char: str) -> int:
    point = ord(char)
    for first, last, weight in X_RANGES:
        if first <= point <= last:
            return weight
    return X_DEFAULT_WEIGHT


def x_weighted_length(text: str) -> int:
    """X's weighted length of ``text`` (twitter-text v3); 280 is X's limit."""
    text = unicodedata.normalize("NFC", text)
    found = links(text) if "." in text else []  # every link's host has a dot
    if text.isascii():  # no emoji, and every code point weighs 1: as below, without regex
        linked = sum(end - start for start, end in found)
        return len(text) - linked + X_URL_LENGTH * len(found)
    total = 0
    position = 0
    for start, end in [*found, (len(text), len(text))]:
        for cluster in _GRAPHEME.findall(text[position:start]):
            if is_emoji(cluster):
                total += X_EMOJI_WEIGHT
            else:
                total += sum(_code_point_weight(char) for char in cluster)
        if end > start:
            total += X_URL_LENGTH * X_SCALE
        position = end
    return total // X_SCALE


def threads_length(text: str) -> int:
    """Characters, with each emoji counted as its UTF-8 bytes (Threads)."""
    if text.isascii():
        return len(text)
    return sum(
        len(cluster.encode()) if is_emoji(cluster) else 1 for cluster in _GRAPHEME.findall(text)
    )


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def utf8_bytes(text: str) -> int:
    return len(text.encode())


def code_points(text: str) -> int:
    return len(text)


COUNTERS: dict[Unit, Callable[[str], int]] = {
    Unit.GRAPHEMES: count_characters,
    Unit.CODE_POINTS: code_points,
    Unit.UTF8_BYTES: utf8_bytes,
    Unit.UTF16_UNITS: utf16_units,
    Unit.X_WEIGHTED: x_weighted_length,
    Unit.THREADS: threads_length,
}


def measure(text: str, unit: Unit) -> int:
    """The length of ``text`` in ``unit``."""
    return COUNTERS[unit](text)
