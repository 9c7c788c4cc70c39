"""Where the time goes: py-spy's raw (collapsed) stacks summed by package and function.

Each stack line is ``frame;frame;...;leaf count`` with frames written
``function (path:line)``. py-spy is meant to leave out threads that wait, but on this
kind of machine it does not manage to (sleeping and blocked threads show up), so stacks
whose running frame is a known wait (a lock, a condition, a socket read, a selector, an
idle thread-pool worker, the sandbox's latency sleep, an event loop in C) are counted
as waiting and left out of the shares, which are then shares of the remaining,
working samples. A C call shows as time in the Python frame that made it (a database
driver's ``execute`` is SQL time).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

_FRAME = re.compile(r"^(?P<func>.*?) \((?P<path>[^()]*?)(?::\d+)?\)$")

WAITS = frozenset(
    {
        "Condition.wait",
        "Event.wait",
        "Semaphore.acquire",
        "BoundedSemaphore.acquire",
        "Thread.join",
        "Thread._wait_for_tstate_lock",
        "Queue.get",
        "SyncStream.read",
        "EpollSelector.select",
        "_PollLikeSelector.select",
        "SelectSelector.select",
        "Runner.run",
        "_worker",
        "ThreadLock.__enter__",
        "SandboxDriver._begin",
        "sleep",
    }
)
"""Running frames that mean the thread waits (py-spy shows them as running here)."""

# Leaf functions that stand for time spent inside a C library call.
_DRIVER_CALLS = {"do_execute", "do_executemany", "do_commit", "do_rollback", "execute", "commit"}


def record_argv(spy: Path, pid: int, path: Path, *extra: str) -> list[str]:
    """``py-spy record`` of ``pid`` into ``path`` as raw stacks at 100 samples a second."""
    return [str(spy), "record", "-p", str(pid), "-f", "raw", "-o", str(path), "-r", "100", *extra]


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
    if path.startswith("<frozen "):
        module = path.removeprefix("<frozen ").rstrip(">")
        return "import machinery" if module.startswith("importlib") else "stdlib." + module
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
    """Shares (0..1) of the working samples: by the package of the running frame (self),
    by package anywhere on the stack (inclusive), and the busiest functions."""
    self_pkg: Counter[str] = Counter()
    incl_pkg: Counter[str] = Counter()
    self_func: Counter[str] = Counter()
    incl_func: Counter[str] = Counter()
    total = 0
    waiting = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = _frames(stack)
        if not frames:
            continue
        func, file = frames[-1]
        if func in WAITS:
            waiting += count
            continue
        total += count
        owner = package_of(file)
        if func in _DRIVER_CALLS and owner in ("sqlalchemy", "psycopg", "stdlib.sqlite3"):
            owner = "database driver (C)"
        self_pkg[owner] += count
        self_func[f"{func} ({owner})"] += count
        for pkg in {package_of(f) for _, f in frames}:
            incl_pkg[pkg] += count
        for name in {f"{fn} ({package_of(f)})" for fn, f in frames if "site-packages" in f}:
            incl_func[name] += count

    def shares(counter: Counter[str]) -> list[tuple[str, float]]:
        return [(name, n / total) for name, n in counter.most_common(top)] if total else []

    return {
        "samples": total,
        "waiting_samples": waiting,
        "self_by_package": shares(self_pkg),
        "inclusive_by_package": shares(incl_pkg),
        "self_by_function": shares(self_func),
        "inclusive_by_function": shares(incl_func),
    }
