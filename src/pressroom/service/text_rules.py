"""What a string must be to be accepted, as regular expressions both the service and its
OpenAPI document use, so the two never disagree.

JSON Schema patterns search anywhere in the string unless anchored, and Python's ``re``
(which schemathesis and the service use) reads ``\\s`` as ``str.isspace`` does.
"""

from __future__ import annotations

import re

NUL_FREE = r"^[^\u0000]*$"
"""Any text without a NUL (PostgreSQL cannot store one; lone surrogates cannot appear in
a pattern and are refused by ``guard``)."""

SOME_TEXT = r"^[^\u0000]*[^\s\u0000\u001c-\u001f\u0085][^\u0000]*$"
"""Required text: at least one character that is not a space, as Python's ``str.strip``
(which the service's check uses) counts spaces: also the separators U+001C to U+001F and
U+0085, which a JSON Schema pattern's space class does not match."""

NAME = r"^[^\u0000-\u001f\u007f]*[^\s\u0000-\u001f\u007f][^\u0000-\u001f\u007f]*$"
"""A name: no control characters, at least one that is not a space."""

CONTROL_CHARACTERS = re.compile(r"[\u0000-\u001f\u007f]")

CURSOR = r"^[0-9]{1,16}\.[A-Za-z0-9_-]{1,64}$"
"""A list's cursor: the last entry's creation time in microseconds since 1970 (UTC, up to
the year 2286), a dot, and its id. Every string of this shape is a place a newest-first
list can go on from, so the pattern says exactly which cursors are accepted."""

SHA256_HEX = r"^[0-9a-fA-F]{64}$"

IDEMPOTENCY_KEY = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"


def filename_pattern(extensions: list[str]) -> str:
    """A filename: no control characters, a name before the extension, one of ours."""
    either_case = "|".join(
        "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in ext[1:])
        for ext in sorted(set(extensions))
    )
    free = r"[^\u0000-\u001f\u007f/\\]"
    return (
        rf"^(?:[^\u0000-\u001f\u007f]*[/\\])?{free}*[^\u0000-\u001f\u007f/\\.]{free}*"
        rf"\.(?:{either_case})$"
    )
