"""Where the time goes: py-spy's raw (collapsed) stacks summed by package and function.

py-spy samples only threads that are running (not waiting), so shares are of CPU time,
not of wall time. Each stack line is ``frame;frame;...;leaf count`` with frames written
``function (path:line)``.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

_FRAME = re.compile(r"^(?P<func>.*?) \((?P<path>[^()]*?)(?::\d+)?\)$")

# Leaf functions that stand for time spent inside a C library call.
_DRIVER_CALLS = {"do_execute", "do_executemany", "do_commit", "do_rollback", "execute", "commit"}


def package_of(path: str) -> str:
    """A readable owner of a source file: a distribution, a pressroom module, stdlib."""
    if "site-packages/" in path:
        name = path.split("site-packages/", 1)[1].split("/", 1)[0]
        return name.removesuffix(".py")
    if "/src/pressroom/" in path:
        parts = path.split("/src/pressroom/", 1)[1].split("/")
        return "pressroom." + parts[0].removesuffix(".py")
    for glue in ("/flows/", "/tasks/", "/benchmarks/"):
        if glue in path:
            return glue.strip("/") + " (project glue)"
    match = re.search(r"/lib/python3\.\d+/([^/]+)", path)
    if match:
        return "stdlib." + match.group(1).removesuffix(".py")
    if path.startswith("<frozen"):
        return "import machinery"
    return path or "?"


def _frames(stack: str) -> list[tuple[str, str]]:
    found = []
    for frame in stack.split(";"):
        match = _FRAME.match(frame.strip())
        if match:
            found.append((match.group("func"), match.group("path")))
        else:
            found.append((frame.strip(), ""))
    return found


def summarise(path: Path, top: int = 12) -> dict[str, Any]:
    """Shares (0..1) of samples: by the package of the running frame (self), by package
    anywhere on the stack (inclusive), and the busiest functions."""
    self_pkg: Counter[str] = Counter()
    incl_pkg: Counter[str] = Counter()
    self_func: Counter[str] = Counter()
    incl_func: Counter[str] = Counter()
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = _frames(stack)
        if not frames:
            continue
        total += count
        func, file = frames[-1]
        owner = package_of(file)
        if func in _DRIVER_CALLS and owner in ("sqlalchemy", "psycopg", "stdlib.sqlite3"):
            owner = "database driver (C)"
        self_pkg[owner] += count
        self_func[f"{func} ({owner})"] += count
        for pkg in {package_of(f) for _, f in frames}:
            incl_pkg[pkg] += count
        for name in {f"{fn} ({package_of(f)})" for fn, f in frames}:
            incl_func[name] += count

    def shares(counter: Counter[str]) -> list[tuple[str, float]]:
        return [(name, n / total) for name, n in counter.most_common(top)] if total else []

    return {
        "samples": total,
        "self_by_package": shares(self_pkg),
        "inclusive_by_package": shares(incl_pkg),
        "self_by_function": shares(self_func),
        "inclusive_by_function": shares(incl_func),
    }
