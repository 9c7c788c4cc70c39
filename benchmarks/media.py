"""Media the benchmarks make: real H.264 videos of a given length, and a large MP4.

The large file is a real, playable MP4 (the example teaser) followed by an ISO-BMFF
``free`` box of random bytes up to the wanted size: every reader skips that box, so the
service probes it as the 4-second video it is while the upload and download move every
byte. Random bytes, so nothing along the way can compress them.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from benchmarks.common import ROOT

TEASER = ROOT / "pipelines" / "media" / "teaser-vertical.mp4"


def make_video(
    path: Path, seconds: float, *, width: int = 640, height: int = 360, fps: int = 25
) -> Path:
    """An H.264 MP4 of exactly ``seconds``: a moving colour pattern of ``fps`` distinct
    frames, drawn once and repeated (a 2-minute video would otherwise draw 3,000)."""
    from PIL import Image, ImageDraw

    from tests.support.media import make_video as encode

    frames = []
    for index in range(fps):
        image = Image.new("RGB", (width, height), (index * 9 % 256, 90, 170))
        draw = ImageDraw.Draw(image)
        x = index * width // fps
        draw.rectangle((x, height // 3, x + width // 8, 2 * height // 3), fill=(250, 220, 40))
        frames.append(image)
    return encode(
        path,
        seconds,
        width=width,
        height=height,
        fps=fps,
        encoder_options={"preset": "ultrafast"},
        paint=lambda index, _total: frames[index % fps],
    )


def make_large_mp4(path: Path, size: int) -> Path:
    """A valid MP4 of exactly ``size`` bytes (the teaser plus a ``free`` box)."""
    head = TEASER.read_bytes()
    header = 16  # 32-bit size 1, type, 64-bit largesize
    padding = size - len(head) - header
    if padding < 0:
        raise ValueError(f"size must be at least {len(head) + header} bytes")
    block = os.urandom(4 * 1024 * 1024)
    with path.open("wb") as out:
        out.write(head)
        out.write(struct.pack(">I4sQ", 1, b"free", padding + header))
        left = padding
        while left:
            chunk = block[: min(left, len(block))]
            out.write(chunk)
            left -= len(chunk)
    return path
