"""What the validator reports: one line per issue, ``file:line:column: field.path: message``."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from pressroom.campaign.source import Mark, Path, SourceMap
from pressroom.rules import Rule

ROOT_PATH = "campaign"
"""The path printed for the file as a whole (an empty file, broken YAML)."""


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Issue:
    file: str
    line: int
    column: int
    path: str
    message: str
    severity: Severity = Severity.ERROR
    rule: str | None = field(default=None, compare=False)
    """The real network's rule (``pressroom.rules``) the value breaks, by its id."""
    doc_url: str | None = field(default=None, compare=False)
    """The network's page the rule comes from."""

    def __str__(self) -> str:
        return (
            f"{self.severity}: {self.file}:{self.line}:{self.column}: {self.path}: "
            f"{self.full_message}"
        )

    @property
    def full_message(self) -> str:
        """The message, with the network's rule and its page when one was broken."""
        if self.rule is None:
            return self.message
        return f"{self.message} [{self.rule}: {self.doc_url}]"

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


def dotted(path: Path) -> str:
    """``("posts", 0, "text")`` → ``posts.0.text``, the service's field-path style."""
    return ".".join(str(part) for part in path) or ROOT_PATH


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` did you mean 'title'?`` when a choice is close, else the list of choices."""
    options = sorted(set(choices))
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if not close:
        close = [option for option in options if option.lower() == word.lower()]
    if close:
        return f"did you mean '{close[0]}'?"
    if not options:
        return "nothing else is expected here"
    return "expected one of: " + ", ".join(options)


def unique(issues: Iterable[Issue]) -> list[Issue]:
    """Sorted by position, each reported once (defaults shared by many posts, merges)."""
    return sorted(set(issues))


class Reporter:
    """Collects the issues of one file, placing each at its key or its value."""

    def __init__(self, file: str, source: SourceMap) -> None:
        self.file = file
        self.source = source
        self.issues: list[Issue] = []
        self.unknown_keys: set[Path] = set()
        """Keys reported as unknown: what they meant is not checked again."""

    def error(
        self,
        path: Path,
        message: str,
        *,
        at_key: bool = False,
        place: Path | None = None,
        rule: Rule | None = None,
    ) -> None:
        self.add(path, message, Severity.ERROR, at_key=at_key, place=place, rule=rule)

    def warning(
        self,
        path: Path,
        message: str,
        *,
        at_key: bool = False,
        place: Path | None = None,
        rule: Rule | None = None,
    ) -> None:
        self.add(path, message, Severity.WARNING, at_key=at_key, place=place, rule=rule)

    def add(
        self,
        path: Path,
        message: str,
        severity: Severity,
        *,
        at_key: bool = False,
        place: Path | None = None,
        rule: Rule | None = None,
    ) -> None:
        """Report ``path``, positioned at ``place`` (default: the path itself)."""
        where = path if place is None else place
        mark = self.source.key(where) if at_key else self.source.value(where)
        self.at(mark, dotted(path), message, severity, rule=rule)

    def at(
        self,
        mark: Mark,
        path: str,
        message: str,
        severity: Severity = Severity.ERROR,
        *,
        rule: Rule | None = None,
    ) -> None:
        self.issues.append(
            Issue(
                self.file,
                mark.line,
                mark.column,
                path,
                message,
                severity,
                rule=rule.id if rule else None,
                doc_url=rule.doc_url if rule else None,
            )
        )

    def has_unknown_key_in(self, mapping: Path) -> bool:
        return any(key[:-1] == mapping for key in self.unknown_keys)

    @property
    def has_errors(self) -> bool:
        return any(issue.is_error for issue in self.issues)
