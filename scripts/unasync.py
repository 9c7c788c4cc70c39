"""Generate the blocking client, src/pressroom/client/_sync.py, from _async.py.

    python scripts/unasync.py           # rewrite _sync.py
    python scripts/unasync.py --check   # exit 1, changing nothing, if _sync.py is stale

unasync (https://github.com/python-trio/unasync, as httpcore uses it) drops ``async``
and ``await`` and renames names by the rules below; ruff then sorts the imports and
formats the result like the rest of the tree. What differs in more than names (the
locks) is written by hand in src/pressroom/client/_synchronization.py, not special-cased
here. Needs the ``test`` extra (unasync, ruff); the generated file is committed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "src" / "pressroom" / "client"
SOURCE = CLIENT / "_async.py"
TARGET = CLIENT / "_sync.py"

# Beyond unasync's own (__aenter__, AsyncIterator, ...). A name starting ``Async`` that is
# not listed here would become ``Sync...``.
RENAMES = {
    "AsyncClient": "Client",  # ours, and httpx's
    "AsyncLock": "Lock",
    "AsyncPageFetch": "PageFetch",
    "aclose": "close",
    "aread": "read",
    "aiter_bytes": "iter_bytes",
    "achunks": "chunks",
    # anyio.sleep -> time.sleep. `import anyio` becomes a second `import time`, which
    # ruff's fix removes; so anyio must serve nothing but sleep in _async.py.
    "anyio": "time",
}

HEADER = """\
# This file is generated from _async.py by scripts/unasync.py: do not edit it.
# Change _async.py, then run `python scripts/unasync.py`.
"""


def generate(out_dir: Path) -> Path:
    """Write the blocking client to ``out_dir / "_sync.py"`` and return that path."""
    unasync = _import_unasync()
    target = out_dir / TARGET.name
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / SOURCE.name
        shutil.copyfile(SOURCE, copy)
        rule = unasync.Rule(f"/{SOURCE.name}", f"/{TARGET.name}", additional_replacements=RENAMES)
        unasync.unasync_files([str(copy)], rules=[rule])
        generated = (Path(work) / TARGET.name).read_text(encoding="utf-8")
    target.write_text(HEADER + generated, encoding="utf-8")
    # The project's settings, wherever the file is (the staleness test writes to a temp dir).
    config = ["--config", str(ROOT / "pyproject.toml")]
    ruff = [sys.executable, "-m", "ruff"]
    fixes = ["--select", "I,F401,F811", "--fix", "--quiet"]
    subprocess.run([*ruff, "check", *config, *fixes, str(target)], check=True)
    subprocess.run([*ruff, "format", *config, "--quiet", str(target)], check=True)
    return target


def _import_unasync() -> ModuleType:
    # Run as a script, this file's folder is first on sys.path, and this file has the
    # package's name: look past it.
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    import unasync

    module: ModuleType = unasync  # the package has no type hints
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether _sync.py is stale")
    args = parser.parse_args(argv)
    if not args.check:
        generate(CLIENT)
        return 0
    with tempfile.TemporaryDirectory() as out:
        fresh = generate(Path(out)).read_text(encoding="utf-8")
    if fresh != TARGET.read_text(encoding="utf-8"):
        print(f"{TARGET.relative_to(ROOT)} is stale: run `python scripts/unasync.py`")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
