"""``python -m pressroom.docs [--check]``: rewrite the generated pages of ``docs/`` from
the code (run from the project's root), or with ``--check`` only name the stale ones."""

from __future__ import annotations

import sys

from pressroom.docs.pages import stale, write


def main(argv: list[str]) -> int:
    if "--check" in argv:
        found = stale()
        for path in found:
            print(f"stale: {path} (run `python -m pressroom.docs`)", file=sys.stderr)
        return 1 if found else 0
    for path in write():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
