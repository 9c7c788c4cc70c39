"""Images made for a network with Pillow: the first frame, in sRGB, flattened onto white
when the format has no transparency, shaped and scaled into the network's bounds, and
encoded under its byte limit (JPEG at quality 90, stepping down, then smaller)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from pressroom.conversion.errors import ConversionError
from pressroom.conversion.geometry import plan, render
from pressroom.rules.targets import JPEG, PNG, Target

if TYPE_CHECKING:
    from PIL import Image

PILLOW_FORMATS = {JPEG: "JPEG", PNG: "PNG", "image/gif": "GIF", "image/webp": "WEBP"}
JPEG_QUALITIES = (90, 85, 80, 75, 70, 65, 60)
"""Tried in turn until the file is under the limit; below 60 the picture is made smaller."""
SHRINK = 0.85
"""Each side's share kept when even the lowest quality is over the byte limit."""
MAX_SHRINKS = 12
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)


def convert_image(source: Path, content_type: str, target: Target, out: Path) -> str:
    """Write the derived image to ``out``; its content type."""
    out_type = target.content_type_for(content_type)
    picture = _first_frame(source)
    if out_type == JPEG or not _has_alpha(picture):
        picture = _flatten(picture)
    frame = plan(picture.width, picture.height, target)
    bars = BLACK if picture.mode == "RGB" else (*BLACK, 0)
    picture = render(picture, frame, bars)
    out.write_bytes(_encode_within(picture, out_type, target.max_bytes))
    return out_type


def still(source: Path) -> Image.Image:
    """The picture as a viewer first sees it, for a thumbnail: its first frame, turned
    upright, in sRGB, transparency flattened onto white."""
    return _flatten(_first_frame(source))


def _first_frame(source: Path) -> Image.Image:
    from PIL import Image, ImageOps

    with Image.open(source) as opened:
        opened.seek(0)  # an animated GIF or WebP: its first frame
        upright = ImageOps.exif_transpose(opened)
        return _srgb(upright)


def _has_alpha(picture: Image.Image) -> bool:
    return picture.mode in ("RGBA", "LA", "PA") or (
        picture.mode == "P" and "transparency" in picture.info
    )


def _srgb(picture: Image.Image) -> Image.Image:
    """The picture in sRGB (RGB, or RGBA when it has transparency): an embedded colour
    profile is applied, so colours look the same after the profile is dropped."""
    from PIL import ImageCms

    alpha = _has_alpha(picture)
    mode = "RGBA" if alpha else "RGB"
    icc = picture.info.get("icc_profile")
    if icc and picture.mode in ("RGB", "RGBA", "CMYK", "L"):
        try:
            converted = ImageCms.profileToProfile(
                picture,
                ImageCms.ImageCmsProfile(io.BytesIO(icc)),
                ImageCms.createProfile("sRGB"),
                outputMode=mode if picture.mode != "CMYK" else "RGB",
            )
            if converted is not None:
                return converted.convert(mode) if converted.mode != mode else converted
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass  # a broken profile: the pixels are taken as sRGB
    return picture.convert(mode)


def _flatten(picture: Image.Image) -> Image.Image:
    """Transparent pixels onto white: JPEG has no transparency, and black (what
    dropping the alpha channel leaves) is rarely what was meant."""
    from PIL import Image

    if picture.mode != "RGBA":
        return picture.convert("RGB")
    ground = Image.new("RGB", picture.size, WHITE)
    ground.paste(picture, mask=picture.getchannel("A"))
    return ground


def _encode(picture: Image.Image, out_type: str, quality: int) -> bytes:
    buffer = io.BytesIO()
    fmt = PILLOW_FORMATS[out_type]
    if fmt == "JPEG":
        picture.save(buffer, format=fmt, quality=quality, optimize=True, progressive=True)
    elif fmt == "PNG":
        picture.save(buffer, format=fmt, optimize=True)
    elif fmt == "WEBP":
        picture.save(buffer, format=fmt, quality=quality)
    else:
        picture.save(buffer, format=fmt)
    return buffer.getvalue()


def _encode_within(picture: Image.Image, out_type: str, max_bytes: int | None) -> bytes:
    from PIL import Image

    qualities = JPEG_QUALITIES if out_type in (JPEG, "image/webp") else (JPEG_QUALITIES[0],)
    for _ in range(MAX_SHRINKS + 1):
        for quality in qualities:
            data = _encode(picture, out_type, quality)
            if max_bytes is None or len(data) <= max_bytes:
                return data
        smaller = (max(1, int(picture.width * SHRINK)), max(1, int(picture.height * SHRINK)))
        if smaller == picture.size:
            break
        picture = picture.resize(smaller, Image.Resampling.LANCZOS)
    raise ConversionError(
        f"the image could not be brought under {max_bytes:,} bytes, even at quality "
        f"{qualities[-1]} and {picture.width}x{picture.height}"
    )
