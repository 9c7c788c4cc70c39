"""Videos made for a network with PyAV: H.264 and AAC in MP4, at a frame rate the
network takes, shaped and scaled into its bounds.

The frame rate is clamped into the network's range (to the nearest common rate inside
it: a 15 fps clip for a 23 to 60 fps network becomes 24 fps) by holding each decoded
picture until the next one is due, so the video lasts as long as the source. Sound, when
there is any, is resampled to 48 kHz stereo and encoded in AAC.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from pressroom.conversion.errors import ConversionError
from pressroom.conversion.geometry import Frame, plan, render
from pressroom.rules.targets import Target

if TYPE_CHECKING:
    import av

COMMON_RATES = (Fraction(24), Fraction(25), Fraction(30), Fraction(48), Fraction(50), Fraction(60))
"""Rates a clamped frame rate is rounded to, when one lies inside the network's range."""
AUDIO_RATE = 48_000
AAC_FRAME = 1024
X264_OPTIONS = {"preset": "veryfast", "crf": "23"}
MP4_OPTIONS = {"movflags": "+faststart"}
"""The index first, so a network can start reading the video before it has all of it."""
BLACK = (0, 0, 0)


def output_rate(source: Fraction, target: Target) -> Fraction:
    """The source's rate when the network takes it, else the nearest common rate in range."""
    low, high = target.min_fps, target.max_fps
    if (low is None or source >= low) and (high is None or source <= high):
        return source
    inside = [r for r in COMMON_RATES if (low is None or r >= low) and (high is None or r <= high)]
    if inside:
        return min(inside, key=lambda rate: abs(rate - source))
    bound = low if low is not None and source < low else high
    assert bound is not None
    return Fraction(bound).limit_denominator(1001)


def convert_video(source: Path, content_type: str, target: Target, out: Path) -> str:
    """Write the derived video to ``out``; its content type."""
    import av

    try:
        with av.open(str(source), mode="r") as inp:
            _transcode(inp, target, out)
    except av.error.FFmpegError as exc:
        if "memory" in str(exc).lower():
            raise MemoryError(str(exc)) from None
        raise ConversionError(f"the video could not be converted: {exc.strerror or exc}") from None
    size = out.stat().st_size
    if target.max_bytes is not None and size > target.max_bytes:
        raise ConversionError(
            f"the converted video has {size:,} bytes, over the {target.max_bytes:,} the "
            "network takes"
        )
    return target.content_type_for(content_type)


def _transcode(inp: av.container.InputContainer, target: Target, out: Path) -> None:
    import av

    video_in = inp.streams.video[0]
    video_in.thread_type = "AUTO"
    sound_in = inp.streams.audio[0] if inp.streams.audio else None
    source_rate = video_in.average_rate or video_in.guessed_rate or Fraction(30)
    rate = output_rate(Fraction(source_rate), target)
    width, height = video_in.codec_context.width, video_in.codec_context.height
    frame = plan(width, height, target, even=True)
    with av.open(str(out), mode="w", format="mp4", options=dict(MP4_OPTIONS)) as output:
        video_out = output.add_stream("libx264", rate=rate)
        video_out.width, video_out.height = frame.width, frame.height
        video_out.pix_fmt = "yuv420p"
        video_out.options = dict(X264_OPTIONS)
        sound_out = None
        resampler = None
        if sound_in is not None:
            sound_out = output.add_stream("aac", rate=AUDIO_RATE, layout="stereo")
            resampler = av.AudioResampler(
                format="fltp", layout="stereo", rate=AUDIO_RATE, frame_size=AAC_FRAME
            )
        clock = _Retimer(rate, Fraction(1) / Fraction(source_rate))
        samples = 0
        streams = [video_in] + ([sound_in] if sound_in is not None else [])
        for packet in inp.demux(*streams):
            for decoded in packet.decode():
                if isinstance(decoded, av.VideoFrame):
                    for tick, picture in clock.push(decoded):
                        _encode_picture(output, video_out, picture, frame, tick, rate)
                elif isinstance(decoded, av.AudioFrame) and sound_out and resampler:
                    samples = _encode_sound(output, sound_out, resampler, decoded, samples)
        for tick, picture in clock.finish():
            _encode_picture(output, video_out, picture, frame, tick, rate)
        for packet in video_out.encode(None):
            output.mux(packet)
        if sound_out is not None and resampler is not None:
            samples = _encode_sound(output, sound_out, resampler, None, samples)
            for packet in sound_out.encode(None):
                output.mux(packet)


class _Retimer:
    """Decoded pictures in, pictures at the output rate out: each one held until the
    next is due (repeated to raise the rate, skipped to lower it)."""

    def __init__(self, rate: Fraction, source_step: Fraction) -> None:
        self.rate = rate
        self.source_step = source_step
        self.tick = 0
        self.start: float | None = None
        self.held: av.VideoFrame | None = None
        self.held_at = 0.0
        self.count = 0

    def _time(self, picture: av.VideoFrame) -> float:
        at = picture.time
        if at is None:
            at = float(self.count * self.source_step)
        if self.start is None:
            self.start = at
        self.count += 1
        return at - self.start

    def push(self, picture: av.VideoFrame) -> Iterator[tuple[int, av.VideoFrame]]:
        at = self._time(picture)
        if self.held is not None:
            yield from self._until(at)
        self.held, self.held_at = picture, at

    def finish(self) -> Iterator[tuple[int, av.VideoFrame]]:
        if self.held is not None:
            yield from self._until(self.held_at + float(self.source_step))

    def _until(self, end: float) -> Iterator[tuple[int, av.VideoFrame]]:
        assert self.held is not None
        while self.tick / self.rate < end - 1e-9:
            yield self.tick, self.held
            self.tick += 1


def _encode_picture(
    output: av.container.OutputContainer,
    stream: av.VideoStream,
    picture: av.VideoFrame,
    frame: Frame,
    tick: int,
    rate: Fraction,
) -> None:
    import av

    if frame.fit is None:
        made = picture.reformat(width=frame.width, height=frame.height, format="yuv420p")
    else:
        image = render(picture.to_image(), frame, BLACK)  # type: ignore[no-untyped-call]
        still = av.VideoFrame.from_image(image)  # type: ignore[no-untyped-call]
        made = still.reformat(format="yuv420p")
    made.pts = tick
    made.time_base = Fraction(1) / rate
    for packet in stream.encode(made):
        output.mux(packet)


def _encode_sound(
    output: av.container.OutputContainer,
    stream: av.AudioStream,
    resampler: av.AudioResampler,
    decoded: av.AudioFrame | None,
    samples: int,
) -> int:
    for chunk in resampler.resample(decoded):
        chunk.pts = samples
        chunk.time_base = Fraction(1, AUDIO_RATE)
        samples += chunk.samples
        for packet in stream.encode(chunk):
            output.mux(packet)
    return samples
