"""YAML text to plain data, remembering where every key and value was written.

PyYAML's composer gives each node a start mark (line and column); we build the data
ourselves from the node graph so that each path (``("posts", 0, "microblog", "text")``)
keeps the position of its key and of its value. Anchors and aliases resolve to the same
node, so a value reached through ``*alias`` or a ``<<: *defaults`` merge points at the
place it was written, which is where an editor fixes it.

Unlike PyYAML's own constructor we refuse duplicate keys (the last one silently winning
is a classic editing mistake) and keep keys as written (``on:`` stays ``"on"``, not
``True``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

Path = tuple[str | int, ...]
MERGE_TAG = "tag:yaml.org,2002:merge"

try:  # libyaml is about ten times faster; the pure-Python parser gives the same marks.
    _Loader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment]
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


def glance(text: str) -> Any:
    """The text as PyYAML's plain data, with no marks and no checks: for reading one
    value before the file is loaded (a run's name), at libyaml's speed when it is there."""
    return yaml.load(text, Loader=_Loader)


_HINTS = (
    ("found character '\\t'", "indent with spaces, not tabs"),
    ("tab character", "indent with spaces, not tabs"),
    ("mapping values are not allowed", "text containing ': ' must be put in quotes"),
    ("could not find expected ':'", "each line of a mapping is 'key: value'"),
    ("found undefined alias", "an *alias needs an &anchor of the same name above it"),
    ("did not find expected key", "check the indentation of this line and the one above"),
    ("did not find expected '-'", "list items must all start at the same column"),
    ("found unexpected end of stream", "a quote or bracket is not closed"),
    (
        "did not find expected ',' or",
        "inside { } or [ ], text with ',', '#' or ': ' must be put in quotes",
    ),
    ("expected a single document", "a campaign file holds one document: remove '---'"),
)


@dataclass(frozen=True, order=True)
class Mark:
    """A position as editors count it: line and column both start at 1."""

    line: int
    column: int

    @classmethod
    def of(cls, mark: Any) -> Mark:
        return cls(mark.line + 1, mark.column + 1)


ORIGIN = Mark(1, 1)


@dataclass
class SourceMap:
    """Where each path's key and value were written."""

    values: dict[Path, Mark] = field(default_factory=dict)
    keys: dict[Path, Mark] = field(default_factory=dict)
    comments: dict[Path, str] = field(default_factory=dict)
    """Unquoted values followed by a comment on their line: ``caption: Hi #spring``
    sends "Hi", which is rarely what the editor meant."""

    def value(self, path: Path) -> Mark:
        """The value's position, else that of the nearest enclosing value."""
        for prefix in _prefixes(path):
            if prefix in self.values:
                return self.values[prefix]
        return ORIGIN

    def alias(self, written: Path, read_as: Path) -> None:
        """Positions under ``written`` also answer for ``read_as`` (a key read as another)."""
        for table in (self.values, self.keys, self.comments):
            for path in [p for p in table if p[: len(written)] == written]:
                table[(*read_as, *path[len(written) :])] = table[path]  # type: ignore[assignment]

    def key(self, path: Path) -> Mark:
        """The key's position (list items have none: their value's), else the nearest."""
        for prefix in _prefixes(path):
            if prefix in self.keys:
                return self.keys[prefix]
            if prefix in self.values:
                return self.values[prefix]
        return ORIGIN


def _prefixes(path: Path) -> Iterator[Path]:
    for end in range(len(path), -1, -1):
        yield path[:end]


@dataclass(frozen=True)
class Problem:
    """Something wrong in the YAML itself, found while building the data."""

    path: Path
    mark: Mark
    message: str


class YamlSyntaxError(ValueError):
    def __init__(self, mark: Mark, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.message = message


@dataclass
class Parsed:
    data: Any
    source: SourceMap
    problems: list[Problem]


def parse(text: str) -> Parsed:
    """Parse one YAML document; raises ``YamlSyntaxError`` with its position and a hint."""
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, text) from None
    except yaml.YAMLError as exc:  # pragma: no cover - errors without a mark are rare
        raise YamlSyntaxError(ORIGIN, str(exc)) from None
    builder = _Builder(text.splitlines())
    if root is None:
        return Parsed(None, builder.source, builder.problems)
    builder.source.values[()] = Mark.of(root.start_mark)
    return Parsed(builder.build(root, ()), builder.source, builder.problems)


def _syntax_error(exc: yaml.MarkedYAMLError, text: str) -> YamlSyntaxError:
    if (quote := _unclosed_quote(exc, text)) is not None:
        mark, char = quote
        return YamlSyntaxError(
            mark,
            f"invalid YAML: the quote {char} opened here is not closed on its line; close it "
            "(or, for a quote inside the text, use the other kind of quotes around it)",
        )
    mark_source = exc.problem_mark or exc.context_mark
    mark = Mark.of(mark_source) if mark_source is not None else ORIGIN
    if mark_source is not None and _char_at(text, mark_source) == "\t":
        return YamlSyntaxError(
            mark, "invalid YAML: a tab character here; indent with spaces, not tabs"
        )
    problem = exc.problem or "invalid YAML"
    if exc.context:
        problem = f"{problem} ({exc.context}"
        if exc.context_mark is not None and exc.context_mark is not mark_source:
            problem += f" at line {exc.context_mark.line + 1}"
        problem += ")"
    hint = next((hint for needle, hint in _HINTS if needle in str(exc)), None)
    message = f"invalid YAML: {problem}" + (f"; {hint}" if hint else "")
    return YamlSyntaxError(mark, message)


def _char_at(text: str, mark: Any) -> str:
    line: int = mark.line
    column: int = mark.column
    lines = text.splitlines()
    if line < len(lines) and column < len(lines[line]):
        return lines[line][column]
    return ""


def _unclosed_quote(exc: yaml.MarkedYAMLError, text: str) -> tuple[Mark, str] | None:
    """Where a quote that was never closed on its line opened, when that is what broke.

    YAML lets a quoted text run over several lines, so a missing closing quote is only
    noticed lines later, at the next quote (reported there as a bracket or indentation
    problem). A campaign's quoted texts are single lines: when a quoted text spans lines
    and ends on the line of the error, its opening quote is the mistake.
    """
    if exc.context == "while scanning a quoted scalar" and exc.context_mark is not None:
        return Mark.of(exc.context_mark), _char_at(text, exc.context_mark)
    problem = exc.problem_mark
    if problem is None:
        return None
    try:
        for token in yaml.scan(text, Loader=_Loader):
            if token.start_mark.index >= problem.index:
                break
            if (
                isinstance(token, yaml.ScalarToken)
                and token.style in ("'", '"')
                and token.start_mark.line < token.end_mark.line == problem.line
            ):
                return Mark.of(token.start_mark), str(token.style)
    except yaml.YAMLError:
        pass
    return None


class _Builder:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.source = SourceMap()
        self.problems: list[Problem] = []
        self._scalars = yaml.constructor.SafeConstructor()
        self._open: set[int] = set()

    def build(self, node: Node, path: Path) -> Any:
        if isinstance(node, ScalarNode):
            return self._scalar(node, path)
        if id(node) in self._open:
            self.problems.append(
                Problem(path, Mark.of(node.start_mark), "an alias refers to its own anchor")
            )
            return None
        self._open.add(id(node))
        try:
            if isinstance(node, SequenceNode):
                items = []
                for index, child in enumerate(node.value):
                    self.source.values[(*path, index)] = Mark.of(child.start_mark)
                    items.append(self.build(child, (*path, index)))
                return items
            assert isinstance(node, MappingNode)
            result: dict[str, Any] = {}
            for key, key_node, value_node in self._pairs(node, path):
                child_path = (*path, key)
                self.source.keys[child_path] = Mark.of(key_node.start_mark)
                self.source.values[child_path] = Mark.of(value_node.start_mark)
                result[key] = self.build(value_node, child_path)
            return result
        finally:
            self._open.discard(id(node))

    def _scalar(self, node: ScalarNode, path: Path) -> Any:
        if not node.style and node.end_mark.line < len(self.lines):  # plain: None or ""
            rest = self.lines[node.end_mark.line][node.end_mark.column :]
            if rest.lstrip().startswith("#") and rest[:1].isspace():
                self.source.comments[path] = rest.strip()
        try:
            return self._scalars.construct_object(node)
        except yaml.constructor.ConstructorError as exc:
            self.problems.append(
                Problem(path, Mark.of(node.start_mark), f"invalid value: {exc.problem}")
            )
            return node.value

    def _pairs(self, node: MappingNode, path: Path) -> list[tuple[str, Node, Node]]:
        """The mapping's effective pairs: merged ones first, explicit keys winning."""
        explicit: dict[str, tuple[Node, Node]] = {}
        merged: dict[str, tuple[Node, Node]] = {}
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:
                for source in self._merge_sources(key_node, value_node, path):
                    for key, k_node, v_node in self._pairs(source, path):
                        # Earlier sources win over later ones (YAML merge key spec).
                        merged.setdefault(key, (k_node, v_node))
                continue
            name = self._key(key_node, path)
            if name is None:
                continue
            if name in explicit:
                first = Mark.of(explicit[name][0].start_mark)
                self.problems.append(
                    Problem(
                        (*path, name),
                        Mark.of(key_node.start_mark),
                        f"'{name}' is given twice (first at line {first.line}); keep one",
                    )
                )
                continue
            explicit[name] = (key_node, value_node)
        pairs = {**merged, **explicit}
        return [(key, k_node, v_node) for key, (k_node, v_node) in pairs.items()]

    def _merge_sources(self, key_node: Node, value_node: Node, path: Path) -> list[MappingNode]:
        candidates = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
        sources = []
        for candidate in candidates:
            if isinstance(candidate, MappingNode):
                sources.append(candidate)
            else:
                # At the `<<`: an alias's node is where its anchor was written.
                self.problems.append(
                    Problem(
                        path,
                        Mark.of(key_node.start_mark),
                        "'<<' merges mappings only: give it an *alias of a mapping",
                    )
                )
        return sources

    def _key(self, key_node: Node, path: Path) -> str | None:
        if isinstance(key_node, ScalarNode):
            # As written: YAML 1.1 would turn `on:` or `yes:` into booleans.
            return str(key_node.value)
        self.problems.append(
            Problem(path, Mark.of(key_node.start_mark), "keys must be plain names, not lists")
        )
        return None
