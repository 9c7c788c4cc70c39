"""The docstrings under assignments are read from the source, and a parse that CPython
3.11 spoils because another thread built an AST at the same moment is tried again."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import pytest

from pressroom.docs import source
from pressroom.pipeline.config import PipelineSettings
from pressroom.service.drivers import microblog


def test_a_modules_and_a_classs_assignments_give_their_docstrings() -> None:
    said = source.attribute_docstrings(source)
    assert said["SPURIOUS"].startswith("The start of the message CPython gives")
    assert said["ATTEMPTS"].startswith("Parses tried before")
    assert "PUBLISH_SCOPES" in source.attribute_docstrings(microblog)
    fields = source.attribute_docstrings(PipelineSettings)
    assert set(PipelineSettings.model_fields) <= set(fields)


def _failing(times: int, message: str) -> tuple[Callable[..., ast.Module], list[int]]:
    """``ast.parse`` that raises ``SystemError(message)`` on its first ``times`` calls."""
    real = ast.parse
    calls = [0]

    def parse(*args: Any, **kwargs: Any) -> ast.Module:
        calls[0] += 1
        if calls[0] <= times:
            raise SystemError(message)
        return real(*args, **kwargs)

    return parse, calls


def test_the_spurious_recursion_depth_error_is_tried_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    want = source.attribute_docstrings(microblog)
    parse, calls = _failing(2, f"{source.SPURIOUS} (before=6, after=7)")
    monkeypatch.setattr(source.ast, "parse", parse)
    assert source.attribute_docstrings(microblog) == want
    assert calls[0] == 3


def test_the_spurious_error_is_let_through_when_it_persists(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parse, calls = _failing(source.ATTEMPTS, f"{source.SPURIOUS} (before=6, after=7)")
    monkeypatch.setattr(source.ast, "parse", parse)
    with pytest.raises(SystemError, match=source.SPURIOUS):
        source.attribute_docstrings(microblog)
    assert calls[0] == source.ATTEMPTS


def test_any_other_system_error_is_raised_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parse, calls = _failing(1, "error return without exception set")
    monkeypatch.setattr(source.ast, "parse", parse)
    with pytest.raises(SystemError, match="error return without exception set"):
        source.attribute_docstrings(microblog)
    assert calls[0] == 1
