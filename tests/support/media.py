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


def make_clip(
    path: Path,
    seconds: float,
    *,
    codec: str,
    container: str,
    fps: int = 15,
    width: int = 320,
    height: int = 240,
    sound: str | None = None,
) -> Path:
    """A small clip in another codec than H.264 (``libvpx`` in WebM, ``mpeg4`` in MP4),
    with sound in ``sound`` (``libopus``, ``mp3``) when given: what networks that take
    H.264 and AAC only refuse, and fitting converts."""
    with av.open(str(path), mode="w", format=container) as output:
        video = output.add_stream(codec, rate=fps)
        video.width, video.height = width, height
        video.pix_fmt = "yuv420p"
        audio = output.add_stream(sound, rate=48_000, layout="stereo") if sound else None
        frames = max(1, round(seconds * fps))
        for index in range(frames):
            image = Image.new("RGB", (width, height), (index * 9 % 256, 90, 140))
            frame = av.VideoFrame.from_image(image)
            frame.pts = index
            frame.time_base = Fraction(1, fps)
            for packet in video.encode(frame):
                output.mux(packet)
        if audio is not None:
            chunk = 960
            for start in range(0, round(seconds * 48_000), chunk):
                samples = av.AudioFrame(format="s16", layout="stereo", samples=chunk)
                samples.planes[0].update(bytes(chunk * 4))
                samples.sample_rate = 48_000
                samples.pts = start
                samples.time_base = Fraction(1, 48_000)
                for packet in audio.encode(samples):
                    output.mux(packet)
            for packet in audio.encode(None):
                output.mux(packet)
        for packet in video.encode(None):
            output.mux(packet)
    return path


def make_transparent_png(path: Path, size: tuple[int, int] = (320, 240)) -> Path:
    """A PNG whose left half is fully transparent and right half opaque blue."""
    width, height = size
    image = Image.new("RGBA", size, (0, 0, 0, 0))
    image.paste((20, 60, 200, 255), (width // 2, 0, width, height))
    image.save(path, format="PNG")
    return path


def make_gif(path: Path, size: tuple[int, int] = (64, 36), frames: int = 3) -> Path:
    """An animated GIF: a format YouTube does not take for thumbnails."""
    pictures = [Image.new("RGB", size, (200, 40 * i % 256, 40)) for i in range(frames)]
    pictures[0].save(path, format="GIF", save_all=True, append_images=pictures[1:], duration=100)
    return path
