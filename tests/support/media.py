"""Real media made by the tests: H.264 MP4s of a chosen length, PNGs, JPEGs, fakes."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import av
from PIL import Image


def make_video(
    path: Path,
    seconds: float,
    *,
    width: int = 64,
    height: int = 48,
    fps: int = 10,
    container: str = "mp4",
    encoder_options: dict[str, str] | None = None,
    paint: Callable[[int, int], Image.Image] | None = None,
) -> Path:
    """An H.264 video of exactly ``seconds`` at a tiny size: fast to make and to probe.

    ``paint(index, frames)`` draws each frame (default: a flat colour that changes).
    """
    with av.open(str(path), mode="w", format=container) as output:
        stream = output.add_stream("libx264", rate=fps)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuv420p"
        stream.options = encoder_options or {"preset": "ultrafast", "tune": "zerolatency"}
        frames = max(1, round(seconds * fps))
        for index in range(frames):
            if paint is not None:
                image = paint(index, frames)
            else:
                image = Image.new("RGB", (width, height), (index * 7 % 256, 80, 160))
            frame = av.VideoFrame.from_image(image)
            frame.pts = index
            frame.time_base = Fraction(1, fps)
            for packet in stream.encode(frame):
                output.mux(packet)
        for packet in stream.encode():
            output.mux(packet)
    return path


def make_image(path: Path, *, size: tuple[int, int] = (32, 24), fmt: str = "PNG") -> Path:
    Image.new("RGB", size, (200, 30, 30)).save(path, format=fmt)
    return path


def make_fake_video(path: Path) -> Path:
    """A text file wearing a video's name."""
    path.write_text("this is not a video, only text with an .mp4 name\n")
    return path
