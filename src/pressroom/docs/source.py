"""The docstrings written under assignments (``NAME = …`` or ``name: T = …`` followed by a
string), which Python keeps only in the source: the generated pages read them from there.

CPython 3.11 before 3.11.8 keeps the counter that checks an AST's construction in one
place for the whole process, so a parse can fail with a spurious ``SystemError: AST
constructor recursion depth mismatch`` when another thread builds an AST at the same time
(python/cpython gh-106905). Other threads do so whenever they format a traceback, since
3.11's tracebacks parse the failing line to place their carets; ``inspect.getsource`` of a
class parses its whole module too. The source was fine, so that one error is retried; any
other error is raised at once."""

from __future__ import annotations

import ast
import inspect
import textwrap
from itertools import pairwise
from types import ModuleType

SPURIOUS = "AST constructor recursion depth mismatch"
"""The start of the message CPython gives when another thread's AST upset the count."""

ATTEMPTS = 5
"""Parses tried before the spurious error is let through: each needs another thread to
build an AST within the same few milliseconds, so a second attempt nearly always does."""


def parse(owner: ModuleType | type) -> ast.Module:
    """The syntax tree of a module's or a class's source."""
    for _ in range(ATTEMPTS - 1):
        try:
            return _tree(owner)
        except SystemError as error:
            if not str(error).startswith(SPURIOUS):
                raise
    return _tree(owner)


def _tree(owner: ModuleType | type) -> ast.Module:
    return ast.parse(textwrap.dedent(inspect.getsource(owner)))


def attribute_docstrings(owner: ModuleType | type) -> dict[str, str]:
    """Each name assigned in a module's body (or a class's, for a class) mapped to the
    string written right under it, as written."""
    body = parse(owner).body
    if isinstance(owner, type):
        klass = body[0]
        assert isinstance(klass, ast.ClassDef), owner
        body = klass.body
    found: dict[str, str] = {}
    for node, after in pairwise(body):
        name = _assigned_name(node)
        if (
            name is not None
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            found[name] = after.value.value
    return found


def _assigned_name(node: ast.stmt) -> str | None:
    """The one plain name a statement assigns (``NAME = …`` or ``name: T = …``), if any."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target: ast.expr = node.targets[0]
    elif isinstance(node, ast.AnnAssign):
        target = node.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None
