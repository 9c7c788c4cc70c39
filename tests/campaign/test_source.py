"""The YAML loader: data as YAML means it, positions as editors count them."""

from __future__ import annotations

import textwrap

import pytest

from pressroom.campaign.source import Mark, YamlSyntaxError, parse


def load(text: str) -> object:
    return parse(textwrap.dedent(text).lstrip("\n"))


def test_keys_and_values_of_nested_list_items_keep_their_positions() -> None:
    parsed = parse("posts:\n  - id: a\n    tags:\n      - one\n      - {x: 1}\n")
    assert parsed.data == {"posts": [{"id": "a", "tags": ["one", {"x": 1}]}]}
    source = parsed.source
    assert source.key(("posts",)) == Mark(1, 1)
    assert source.value(("posts", 0)) == Mark(2, 5)
    assert source.key(("posts", 0, "id")) == Mark(2, 5)
    assert source.value(("posts", 0, "id")) == Mark(2, 9)
    assert source.value(("posts", 0, "tags", 1)) == Mark(5, 9)
    assert source.key(("posts", 0, "tags", 1, "x")) == Mark(5, 10)
    # A list item has no key: its value stands in.
    assert source.key(("posts", 0, "tags", 0)) == Mark(4, 9)


def test_an_unknown_path_falls_back_to_its_nearest_known_parent() -> None:
    source = parse("a:\n  b: 1\n").source
    assert source.value(("a", "b", "c", 3)) == Mark(2, 6)
    assert source.key(("a", "missing")) == Mark(1, 1)


def test_flow_style_positions_point_inside_the_line() -> None:
    parsed = parse('post: {id: a, tags: [x, "y"], n: {k: v}}\n')
    assert parsed.data == {"post": {"id": "a", "tags": ["x", "y"], "n": {"k": "v"}}}
    assert parsed.source.value(("post", "tags", 1)) == Mark(1, 25)
    assert parsed.source.key(("post", "n", "k")) == Mark(1, 35)


def test_merge_keys_merge_with_explicit_keys_and_earlier_sources_winning() -> None:
    parsed = load(
        """
        a: &a {x: 1, y: 1}
        b: &b {y: 2, z: 2}
        c:
          <<: [*a, *b]
          x: 3
        """
    )
    assert parsed.data["c"] == {"x": 3, "y": 1, "z": 2}  # type: ignore[index]
    source = parsed.source
    assert source.value(("c", "x")) == Mark(5, 6)  # the explicit key
    assert source.value(("c", "y")) == Mark(1, 17)  # from *a, where it was written
    assert source.key(("c", "z")) == Mark(2, 14)  # from *b
    assert parsed.problems == []


def test_aliases_point_at_their_anchor() -> None:
    parsed = load(
        """
        defaults: &d
          text: hi
        posts:
          - *d
        """
    )
    assert parsed.data["posts"] == [{"text": "hi"}]  # type: ignore[index]
    assert parsed.source.value(("posts", 0, "text")) == Mark(2, 9)


def test_keys_stay_as_written_while_values_follow_yaml() -> None:
    parsed = parse("on: yes\n1: 0x10\nnull: ~\ndate: 2026-03-01\n")
    assert parsed.data == {
        "on": True,
        "1": 16,
        "null": None,
        "date": __import__("datetime").date(2026, 3, 1),
    }


def test_duplicate_keys_are_problems_and_the_first_stays() -> None:
    parsed = load(
        """
        a: 1
        b: 2
        a: 3
        """
    )
    assert parsed.data == {"a": 1, "b": 2}
    [problem] = parsed.problems
    assert (problem.path, problem.mark) == (("a",), Mark(3, 1))
    assert problem.message == "'a' is given twice (first at line 1); keep one"


def test_merging_a_scalar_and_a_self_referencing_alias_are_problems() -> None:
    merged = load(
        """
        s: &s text
        m:
          <<: *s
          k: v
        """
    )
    assert merged.data == {"s": "text", "m": {"k": "v"}}
    assert [(p.mark, p.message) for p in merged.problems] == [
        (Mark(3, 3), "'<<' merges mappings only: give it an *alias of a mapping")
    ]
    recursive = parse("a: &a [1, *a]\n")
    assert recursive.data == {"a": [1, None]}
    assert [(p.path, p.message) for p in recursive.problems] == [
        (("a", 1), "an alias refers to its own anchor")
    ]


def test_syntax_errors_carry_the_position_and_a_hint() -> None:
    with pytest.raises(YamlSyntaxError) as raised:
        parse("a: b: c\n")
    assert raised.value.mark == Mark(1, 5)
    assert raised.value.message.endswith("text containing ': ' must be put in quotes")


def test_an_empty_document_is_none() -> None:
    assert parse("# only a comment\n").data is None
