"""The units networks count text in, each case written from the network's documented rule.

X: https://docs.x.com/fundamentals/counting-characters and twitter-text's configuration
v3 (maxWeightedTweetLength 280; code points 0-4351, 8192-8205, 8208-8223, 8242-8247
weigh 1, any other 2; an emoji 2 whatever its composition; a link 23; NFC first).
"""

from __future__ import annotations

import pytest

from pressroom.rules.counting import (
    X_MAX_WEIGHTED_LENGTH,
    Unit,
    links,
    measure,
    threads_length,
    x_weighted_length,
)

CJK = "中"


def test_280_latin_characters_are_x_s_limit_and_281_are_over() -> None:
    assert x_weighted_length("a" * 280) == 280 == X_MAX_WEIGHTED_LENGTH
    assert x_weighted_length("a" * 281) == 281


def test_cjk_weighs_two_so_140_fit_and_141_do_not() -> None:
    assert x_weighted_length(CJK * 140) == 280
    assert x_weighted_length(CJK * 141) == 282
    assert x_weighted_length("こんにちは") == 10
    assert x_weighted_length("한국어") == 6


@pytest.mark.parametrize(
    "emoji",
    [
        "😀",  # one code point
        "👍🏽",  # with a skin tone
        "👩‍👩‍👧",  # a family joined with zero-width joiners
        "🧑‍🧑‍🧒",  # a family of code points newer than Unicode 12
        "🐦‍🔥",  # a phoenix: a joined sequence of Unicode 15.1
        "🇫🇷",  # a flag: two regional indicators
        "1️⃣",  # a keycap
        "❤️",  # a pictograph with its emoji variation selector
        "🏴󠁧󠁢󠁳󠁣󠁴󠁿",  # a subdivision flag: tag characters
    ],
)
def test_an_emoji_weighs_two_whatever_it_is_made_of(emoji: str) -> None:
    assert x_weighted_length(emoji) == 2
    assert x_weighted_length(emoji * 140) == 280


@pytest.mark.parametrize(
    "text",
    [
        "https://example.com",
        "https://example.com/a/very/long/path/that/goes/on/and/on?with=a&query=string#frag",
        "http://sub.example.co.uk/x",
        "example.com",
        "www.example.org/a/b",
        "example.jp",
        "https://例え.jp",
    ],
)
def test_every_link_with_or_without_its_scheme_weighs_23(text: str) -> None:
    assert x_weighted_length(text) == 23


def test_links_inside_a_sentence_end_before_its_punctuation() -> None:
    assert x_weighted_length("https://例え.jp/パス") == 23 + 4  # CJK ends a link's path
    assert x_weighted_length("Visit example.com.") == len("Visit ") + 23 + 1
    assert x_weighted_length("(see https://example.com/a_(b))") == len("(see ") + 23 + 1
    text = "Launch day: https://example.com/launch & more"
    assert x_weighted_length(text) == len("Launch day: ") + 23 + len(" & more")
    assert links("a https://x.example.com/p, b") == [(2, 25)]


@pytest.mark.parametrize(
    "text", ["end.Then", "http://localhost", "name@example.com", "#tag.com", "v1.2", "e.g."]
)
def test_what_is_not_a_link_counts_its_characters(text: str) -> None:
    assert x_weighted_length(text) == len(text)


def test_text_is_normalised_first_so_a_combining_accent_joins_its_letter() -> None:
    decomposed = "e\u0301"  # é written as two code points
    assert x_weighted_length(decomposed) == 1
    assert x_weighted_length(decomposed * 280) == 280
    assert x_weighted_length(decomposed * 281) == 281


def test_punctuation_ranges_weigh_one_and_other_symbols_two() -> None:
    assert x_weighted_length("\u2014\u2019\u2032") == 3  # em dash, quote, prime
    assert x_weighted_length("\u2026") == 2  # the ellipsis (8230) is between two ranges
    assert x_weighted_length("\u20ac") == 2  # the euro sign is outside the ranges


def test_the_other_units() -> None:
    assert measure("é😀a", Unit.UTF8_BYTES) == 2 + 4 + 1
    assert measure("é😀a", Unit.UTF16_UNITS) == 1 + 2 + 1
    assert measure("e\u0301😀", Unit.CODE_POINTS) == 3
    assert measure("e\u0301👍🏽", Unit.GRAPHEMES) == 2
    assert measure("中" * 3, Unit.X_WEIGHTED) == 6


def test_threads_counts_an_emoji_as_its_utf8_bytes_and_other_characters_once() -> None:
    assert threads_length("a" * 500) == 500
    assert threads_length("😀") == 4
    assert threads_length("👍🏽") == 8
    assert threads_length("é中") == 2


def test_a_hostile_text_is_counted_quickly() -> None:
    import time

    started = time.perf_counter()
    for text in ("a" * 4480, "a." * 2240, "a-" * 2240, "https://" * 560):
        x_weighted_length(text)
    assert time.perf_counter() - started < 1.0
