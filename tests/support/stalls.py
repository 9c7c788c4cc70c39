"""Stand-ins for a decoder that misbehaves, importable by spawned probe workers."""

from __future__ import annotations

import os
import time
from pathlib import Path

from pressroom.probe import MediaInfo


def hang(path: Path, content_type: str) -> MediaInfo:
    """A decoder stuck in a loop on a crafted file."""
    while True:
        time.sleep(1)


def crash(path: Path, content_type: str) -> MediaInfo:
    """A decoder that takes its process down (a segfault in native code, say)."""
    os._exit(139)
