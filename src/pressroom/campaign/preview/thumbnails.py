"""Small JPEGs of a campaign's media for the HTML preview: an image's first frame, a
video's first picture (``pressroom.probe.poster_frame``, the still the media library
shows), at most ``MAX_SIDE`` pixels a side.

Pillow and PyAV are imported only here and only when a thumbnail is made: the campaign
package stays light for ``validate``.
"""

from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path

from pressroom.campaign.model import Media
from pressroom.platforms import MediaKind

MAX_SIDE = 320
QUALITY = 80
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def file_name(media: Media) -> str:
    """A name for the file's thumbnail, the same for the same file under any media name,
    and safe in a URL: the path's hash, then the file's own name to read by."""
    digest = hashlib.sha256(str(media.path).encode()).hexdigest()[:12]
    stem = _UNSAFE.sub("-", media.path.stem).strip("-")[:40] or "media"
    return f"{digest}-{stem}.jpg"


def write(media: Media, folder: Path) -> tuple[str, int, int] | None:
    """Write the thumbnail of ``media`` into ``folder``; its file name, width and height,
    or None when no picture could be taken from the file (the preview says so in words)."""
    from PIL import Image, UnidentifiedImageError

    from pressroom.probe import ProbeError, poster_frame

    if media.kind not in set(MediaKind):
        return None  # a document: no picture is taken from a PDF
    try:
        if media.kind is MediaKind.VIDEO:
            with Image.open(io.BytesIO(poster_frame(media.path, media.content_type))) as poster:
                picture = poster.convert("RGB")
        else:
            from pressroom.conversion.images import still

            picture = still(media.path)
    except (ProbeError, UnidentifiedImageError, OSError, ValueError):
        return None
    picture.thumbnail((MAX_SIDE, MAX_SIDE))
    name = file_name(media)
    folder.mkdir(parents=True, exist_ok=True)
    picture.save(folder / name, format="JPEG", quality=QUALITY)
    return name, picture.width, picture.height
