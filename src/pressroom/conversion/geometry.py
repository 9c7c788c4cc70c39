"""The size and shape of a derived picture: scaled into the network's bounds, and padded
(letterboxed) or centre-cropped to the nearest ratio it allows when the editor asked.

Shared by images and video frames, so both get the same picture for the same target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pressroom.rules.model import Fit
from pressroom.rules.targets import Target

if TYPE_CHECKING:
    from PIL import Image


@dataclass(frozen=True)
class Frame:
    """The derived picture: its size, and how the source fills it."""

    width: int
    height: int
    fit: Fit | None
    """``pad``: the whole source, centred on bars; ``crop``: the centre of the source,
    filling it; None: the source scaled to it (its shape kept, within a pixel)."""


def _clamp(value: float, low: float | None, high: float | None) -> float:
    if low is not None and value < low:
        return low
    if high is not None and value > high:
        return high
    return value


def plan(width: int, height: int, target: Target, *, even: bool = False) -> Frame:
    """The output size for a ``width`` x ``height`` source (``even``: both sides even, as
    4:2:0 video needs)."""
    ratio = width / height
    shaped = target.fit in (Fit.PAD, Fit.CROP)
    wanted = _clamp(ratio, target.min_ratio, target.max_ratio) if shaped else ratio
    fit = target.fit if shaped and wanted != ratio else None
    # The shaped size in source pixels: padding adds bars, cropping takes the centre.
    if fit is Fit.PAD:
        w, h = max(width, height * wanted), max(height, width / wanted)
    elif fit is Fit.CROP:
        w, h = min(width, height * wanted), min(height, width / wanted)
    else:
        w, h = float(width), float(height)
    scale = 1.0
    if target.max_width is not None and w > target.max_width:
        scale = min(scale, target.max_width / w)
    if target.max_height is not None and h > target.max_height:
        scale = min(scale, target.max_height / h)
    if scale == 1.0:
        if target.min_width is not None and w < target.min_width:
            scale = max(scale, target.min_width / w)
        if target.min_height is not None and h < target.min_height:
            scale = max(scale, target.min_height / h)
    out_w, out_h = _side(w * scale, even), _side(h * scale, even)
    if fit is not None:
        # Rounding to whole (or even) pixels may step just outside the allowed ratio:
        # give up a pixel or two on the longer side rather than the rule.
        step = 2 if even else 1
        while target.max_ratio is not None and out_w / out_h > target.max_ratio and out_w > step:
            out_w -= step
        while target.min_ratio is not None and out_w / out_h < target.min_ratio and out_h > step:
            out_h -= step
    return Frame(out_w, out_h, fit)


def _side(value: float, even: bool) -> int:
    if even:
        return max(2, round(value / 2) * 2)
    return max(1, round(value))


def render(picture: Image.Image, frame: Frame, background: tuple[int, ...]) -> Image.Image:
    """``picture`` drawn into ``frame``: scaled, padded or cropped."""
    from PIL import Image

    width, height = picture.size
    if frame.fit is Fit.PAD:
        scale = min(frame.width / width, frame.height / height)
        inner = (
            min(frame.width, max(1, round(width * scale))),
            min(frame.height, max(1, round(height * scale))),
        )
        canvas = Image.new(picture.mode, (frame.width, frame.height), background)
        canvas.paste(
            picture.resize(inner, Image.Resampling.LANCZOS),
            ((frame.width - inner[0]) // 2, (frame.height - inner[1]) // 2),
        )
        return canvas
    if frame.fit is Fit.CROP:
        scale = max(frame.width / width, frame.height / height)
        covering = (
            max(frame.width, math.ceil(width * scale)),
            max(frame.height, math.ceil(height * scale)),
        )
        scaled = picture.resize(covering, Image.Resampling.LANCZOS)
        left = (covering[0] - frame.width) // 2
        top = (covering[1] - frame.height) // 2
        return scaled.crop((left, top, left + frame.width, top + frame.height))
    if (frame.width, frame.height) == picture.size:
        return picture
    return picture.resize((frame.width, frame.height), Image.Resampling.LANCZOS)
