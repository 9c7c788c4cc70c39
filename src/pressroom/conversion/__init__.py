"""Making a file fit a network: images with Pillow, video with PyAV.

``convert`` writes a derived file that meets a ``pressroom.rules.targets.Target`` and
returns what the probe finds in it. It imports nothing of the service (no FastAPI,
SQLAlchemy or boto3): the service runs it in a process of its own with bounds on CPU
time and memory (``pressroom.service.media.bounds``), so a file that makes a decoder
run away costs that process, never the worker that asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pressroom.conversion.errors import ConversionError
from pressroom.conversion.images import convert_image
from pressroom.conversion.videos import convert_video
from pressroom.platforms import MediaKind
from pressroom.probe import MediaInfo, ProbeError, kind_of, probe
from pressroom.rules.targets import Target

__all__ = ["ConversionError", "Converted", "convert"]


@dataclass(frozen=True)
class Converted:
    content_type: str
    size: int
    info: MediaInfo


def convert(source: Path, content_type: str, target: Target, out: Path) -> Converted:
    """Convert ``source`` (of ``content_type``) for ``target`` into ``out``."""
    if kind_of(content_type) is not target.kind:
        raise ConversionError(f"a {content_type} file cannot be made into a {target.kind}")
    if target.kind is MediaKind.IMAGE:
        made = convert_image(source, content_type, target, out)
    else:
        made = convert_video(source, content_type, target, out)
    try:
        info = probe(out, made)
    except ProbeError as exc:
        raise ConversionError(f"the converted file does not read back: {exc}") from None
    return Converted(made, out.stat().st_size, info)
