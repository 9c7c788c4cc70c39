"""Media files named by a campaign: found, typed by extension, probed, compared with advice.

Probing goes through ``pressroom.probe``, the same code the service runs on uploads,
so a file the validator accepts is not refused later for its kind or duration.
"""

from __future__ import annotations

import difflib
import math
from pathlib import Path, PurePosixPath

from pressroom.campaign.model import Media
from pressroom.platforms import Recommendation
from pressroom.probe import (
    DOCUMENT_TYPES,
    IMAGE_TYPES,
    VIDEO_TYPES,
    FileKind,
    MediaInfo,
    ProbeError,
    SentKind,
    content_type_for,
    kind_of,
    probe_file,
)


class MediaProblem(ValueError):
    """Why a media entry cannot be used, worded for the person who wrote it."""


def examine(
    name: str, written: str, folder: str | None, base_dir: Path, alt: str | None = None
) -> Media:
    """Find, type and probe one media entry; raises ``MediaProblem``."""
    path = _locate(written, base_dir)
    content_type = content_type_for(path.name)
    kind: SentKind | None = kind_of(content_type) if content_type else None
    if content_type in DOCUMENT_TYPES:
        kind = FileKind.DOCUMENT
    if content_type is None or kind is None:
        raise MediaProblem(
            f"'{path.suffix or path.name}' files are not accepted; use {_accepted()}"
        )
    try:
        info = probe_file(path, content_type)
    except ProbeError as exc:
        # The editor's own file: the decoder's words (which may name its path) help here.
        detail = f" ({exc.detail})" if exc.detail else ""
        raise MediaProblem(f"'{written}': {exc}{detail}") from None
    return Media(
        name=name,
        path=path,
        written_path=written,
        folder=folder.strip() if folder and folder.strip() else None,
        content_type=content_type,
        kind=kind,
        size=path.stat().st_size,
        info=info,
        alt=alt,
    )


def _locate(written: str, base_dir: Path) -> Path:
    if not written.strip():
        raise MediaProblem("give the file's path, relative to this campaign file")
    if PurePosixPath(written).is_absolute() or Path(written).is_absolute():
        raise MediaProblem(
            f"'{written}' is an absolute path; write it relative to this campaign file "
            "(e.g. media/teaser.mp4) so it works on every checkout"
        )
    path = (base_dir / written).resolve()
    if path.is_dir():
        raise MediaProblem(f"'{written}' is a folder; name a file inside it")
    if not path.is_file():
        raise MediaProblem(f"file not found: '{written}'{_nearby(written, base_dir)}")
    return path


def _nearby(written: str, base_dir: Path) -> str:
    """`` (did you mean 'media/teaser.mp4'?)`` from the files next to where it was looked for."""
    folder = (base_dir / written).parent
    if not folder.is_dir():
        return f" (there is no folder '{PurePosixPath(written).parent}' next to this file)"
    wanted = Path(written)
    siblings = sorted(entry.name for entry in folder.iterdir() if entry.is_file())
    # Same name with another extension (cover.png for cover.jpg), else a near spelling.
    close = [name for name in siblings if Path(name).stem == wanted.stem]
    close = close or difflib.get_close_matches(wanted.name, siblings, n=1, cutoff=0.75)
    if not close:
        return ""
    return f"; did you mean '{PurePosixPath(written).parent / close[0]}'?"


def _accepted() -> str:
    images = ", ".join(ext for _, exts in IMAGE_TYPES.values() for ext in exts)
    videos = ", ".join(ext for _, exts in VIDEO_TYPES.values() for ext in exts)
    documents = ", ".join(ext for _, exts in DOCUMENT_TYPES.values() for ext in exts)
    return f"{images} (images), {videos} (videos) or {documents} (documents)"


def gaps(advice: Recommendation, media: Media) -> list[str]:
    """What the file is where it departs from the advice (``640x360``, ``WEBP``)."""
    if not isinstance(media.info, MediaInfo):
        return []  # a document: the advice is about pictures
    width, height = media.info.width, media.info.height
    found: list[str] = []
    if advice.width and advice.height and (width, height) != (advice.width, advice.height):
        found.append(f"{width}x{height}")
    elif advice.aspect and not _has_aspect(width, height, advice.aspect):
        found.append(f"{width}x{height} ({_ratio(width, height)})")
    if advice.max_bytes and media.size > advice.max_bytes:
        found.append(_megabytes(media.size))
    if advice.formats and media.info.format not in advice.formats:
        found.append(_format_name(media.info.format))
    return found


def describe(advice: Recommendation) -> str:
    """The advice in words: ``1280x720 (16:9), under 2 MB, JPG, GIF or PNG``."""
    parts = []
    aspect = f"{advice.aspect[0]}:{advice.aspect[1]}" if advice.aspect else None
    if advice.width and advice.height:
        parts.append(f"{advice.width}x{advice.height}" + (f" ({aspect})" if aspect else ""))
    elif aspect:
        assert advice.aspect is not None
        vertical = advice.aspect[0] < advice.aspect[1]
        parts.append(f"{aspect} vertical" if vertical else aspect)
    if advice.max_bytes:
        parts.append(f"under {_megabytes(advice.max_bytes)}")
    if advice.formats:
        names = [_format_name(name) for name in advice.formats]
        parts.append(", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0])
    return ", ".join(parts)


def _has_aspect(width: int, height: int, aspect: tuple[int, int]) -> bool:
    # Within 1%: 1080x1920 is 9:16 exactly, 720x1280 too; 1366x768 is "16:9" in practice.
    return math.isclose(width / height, aspect[0] / aspect[1], rel_tol=0.01)


def _ratio(width: int, height: int) -> str:
    divisor = math.gcd(width, height)
    return f"{width // divisor}:{height // divisor}"


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB".replace(".0 MB", " MB")


def _format_name(pillow_format: str) -> str:
    return "JPG" if pillow_format == "JPEG" else pillow_format
