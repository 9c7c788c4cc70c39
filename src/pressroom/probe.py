"""What a media file really is: PyAV for video, Pillow for images, pypdf for a document.

Shared by the service's processing and the campaign validator, so the same bytes get the
same verdict everywhere. It imports nothing of the service (no FastAPI, SQLAlchemy or
boto3) so that ``pressroom campaign validate`` stays light.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal

if TYPE_CHECKING:
    from collections.abc import Iterable

from pressroom.platforms import MediaKind

IMAGE_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    # content type: (Pillow format, accepted extensions)
    "image/jpeg": ("JPEG", (".jpg", ".jpeg")),
    "image/png": ("PNG", (".png",)),
    "image/gif": ("GIF", (".gif",)),
    "image/webp": ("WEBP", (".webp",)),
}
VIDEO_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    # content type: (a word PyAV's container format names contain, accepted extensions)
    "video/mp4": ("mp4", (".mp4", ".m4v")),
    "video/quicktime": ("mov", (".mov", ".qt")),
    "video/webm": ("webm", (".webm",)),
}
DOCUMENT_TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    # content type: (the format's name, accepted extensions)
    "application/pdf": ("PDF", (".pdf",)),
}
"""A document is our extension to the media library: a PDF, which a document post takes
(LinkedIn's, ``format: document`` on professional_network) and nothing else does."""


class FileKind(StrEnum):
    """What a file of the media library is. ``image`` and ``video`` are the
    ``MediaKind``s networks' media rules judge; a ``document`` is neither, and only a
    post in the ``document`` format takes one."""

    IMAGE = "image"
    VIDEO = "video"
    DOCUMENT = "document"


SentKind = MediaKind | Literal[FileKind.DOCUMENT]
"""The kind of a file a post sends: an image, a video, or a document."""


def file_kind_of(content_type: str) -> FileKind | None:
    """The kind of file an accepted content type makes, or None for one not accepted."""
    if content_type in DOCUMENT_TYPES:
        return FileKind.DOCUMENT
    kind = kind_of(content_type)
    return FileKind(kind.value) if kind is not None else None


def kind_of(content_type: str) -> MediaKind | None:
    if content_type in IMAGE_TYPES:
        return MediaKind.IMAGE
    if content_type in VIDEO_TYPES:
        return MediaKind.VIDEO
    return None


def content_type_for(filename: str) -> str | None:
    """The accepted content type an extension stands for, or None."""
    suffix = Path(filename).suffix.lower()
    for table in (IMAGE_TYPES, VIDEO_TYPES, DOCUMENT_TYPES):
        for content_type, (_, extensions) in table.items():
            if suffix in extensions:
                return content_type
    return None


@dataclass(frozen=True)
class MediaInfo:
    kind: MediaKind
    format: str
    """Pillow's image format (``PNG``) or the container and codec (``mov,mp4… / h264``)."""
    width: int
    height: int
    duration_seconds: float | None = None
    video_codec: str | None = None
    """A video's codec as FFmpeg names it (``h264``, ``hevc``, ``vp9``): what networks'
    codec rules are written in (``pressroom.rules``)."""
    audio_codec: str | None = None
    """The codec of a video's first sound stream (``aac``, ``opus``); None without sound."""
    frame_rate: float | None = None
    """A video's average frames a second, when the container says."""

    def facts(self) -> dict[str, object]:
        """What a file's (or a derived copy's) row records of the probe: the columns the
        media rules read, under the same names."""
        return {
            "width": self.width,
            "height": self.height,
            "duration_seconds": self.duration_seconds,
            "video_codec": self.video_codec,
            "audio_codec": self.audio_codec,
            "frame_rate": self.frame_rate,
        }


FORMAT_NAMES = {
    "image/jpeg": "JPEG",
    "image/png": "PNG",
    "image/gif": "GIF",
    "image/webp": "WebP",
    "video/mp4": "MP4",
    "video/quicktime": "QuickTime",
    "video/webm": "WebM",
    "application/pdf": "PDF",
}
"""How a reason names each accepted format."""


def _one_of(content_types: Iterable[str]) -> str:
    names = [FORMAT_NAMES[c] for c in content_types]
    return ", ".join(names[:-1]) + " or " + names[-1]


class ProbeError(ValueError):
    """The bytes are not what they claim to be, or cannot be decoded; says so plainly.

    Its message names the rule the file broke and nothing of the machine it was read
    on: it becomes the file's ``failureReason``, which API clients, the dashboard and
    webhook receivers see. ``detail`` is the decoder's own words, which may name the
    path the bytes were read from: for logs and for the campaign validator, whose user
    gave that path.
    """

    def __init__(self, reason: str, detail: str | None = None) -> None:
        super().__init__(reason)
        self.detail = detail


@dataclass(frozen=True)
class DocumentInfo:
    """What reading a document found: its format and how many pages it has."""

    format: str
    """``PDF 1.7``: the format and the version its header declares."""
    pages: int
    kind: Literal[FileKind.DOCUMENT] = FileKind.DOCUMENT

    def facts(self) -> dict[str, object]:
        """What a file's row records of the reading (as ``MediaInfo.facts``)."""
        return {"pages": self.pages}


Probed = MediaInfo | DocumentInfo


def probe_file(source: str | Path | BinaryIO, content_type: str) -> Probed:
    """``probe`` for any file the library takes: a document is read, media decoded."""
    if content_type in DOCUMENT_TYPES:
        return probe_document(source)
    return probe(source, content_type)


def probe_document(source: str | Path | BinaryIO) -> DocumentInfo:
    """Parse the PDF through to its page tree: a file that is not a whole PDF, or one
    encrypted so that its pages cannot be read (as a network could not either), is
    refused with the rule it broke."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(str(source) if isinstance(source, Path) else source, strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise ProbeError("the PDF is encrypted with a password; upload it without one")
        pages = len(reader.pages)
        version = reader.pdf_header.removeprefix("%")
    except ProbeError:
        raise
    except (PyPdfError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ProbeError(
            "the file is not a readable PDF: its bytes are not a whole PDF document",
            f"{type(exc).__name__}: {exc}",
        ) from None
    except RecursionError:
        raise ProbeError(
            "the file is not a readable PDF: its structure nests without end"
        ) from None
    if pages < 1:
        raise ProbeError("the PDF has no pages")
    return DocumentInfo(version.replace("-", " ", 1) if version else "PDF", pages)


def probe(source: str | Path | BinaryIO, content_type: str) -> MediaInfo:
    """Decode enough of the file to be sure of its kind, size and duration."""
    kind = kind_of(content_type)
    if kind is MediaKind.IMAGE:
        return _probe_image(source, content_type)
    if kind is MediaKind.VIDEO:
        return _probe_video(source, content_type)
    raise ProbeError(f"{content_type} is not an accepted media type")


def _probe_image(source: str | Path | BinaryIO, content_type: str) -> MediaInfo:
    from PIL import Image, UnidentifiedImageError

    expected = IMAGE_TYPES[content_type][0]
    try:
        with Image.open(source) as image:
            found = image.format or "unknown"
            width, height = image.size
            image.verify()
        if found == expected:
            _decode_image(source)
    except Image.DecompressionBombError as exc:
        limit = 2 * (Image.MAX_IMAGE_PIXELS or 0)
        raise ProbeError(
            f"the image is too large to decode safely: more than {limit:,} pixels", str(exc)
        ) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise ProbeError(
            f"the file is not a readable image: its bytes are not a whole "
            f"{_one_of(IMAGE_TYPES)} image",
            str(exc),
        ) from None
    if found != expected:
        raise ProbeError(f"the file is a {found} image, but its content type says {content_type}")
    return MediaInfo(MediaKind.IMAGE, found, width, height)


def _decode_image(source: str | Path | BinaryIO) -> None:
    """Decode the pixels too: ``verify`` reads headers only, so a truncated file passes it."""
    from PIL import Image

    if not isinstance(source, str | Path):
        source.seek(0)
    with Image.open(source) as image:
        # JPEG can decode at 1/8 scale: the whole stream is still read, for a fraction
        # of the memory and time.
        image.draft("RGB", (max(1, image.width // 8), max(1, image.height // 8)))
        image.load()


def _probe_video(source: str | Path | BinaryIO, content_type: str) -> MediaInfo:
    import av

    expected = VIDEO_TYPES[content_type][0]
    try:
        opened = av.open(str(source) if isinstance(source, Path) else source, mode="r")
        with opened as container:
            container_format = container.format.name
            streams = container.streams.video
            if not streams:
                raise ProbeError("the file has no video stream")
            stream = streams[0]
            codec = stream.codec_context.name
            width, height = stream.codec_context.width, stream.codec_context.height
            duration = _duration(container, stream)
            rate = stream.average_rate or stream.guessed_rate
            frame_rate = float(rate) if rate else None
            sound = container.streams.audio
            audio_codec = sound[0].codec_context.name if sound else None
            # Decode one frame: a container with an undecodable stream is not a video.
            next(container.decode(stream), None)
    except ProbeError:
        raise
    except (av.error.FFmpegError, OSError, ValueError, StopIteration) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise ProbeError(
            f"the file is not a readable video: its bytes are not {_one_of(VIDEO_TYPES)} "
            "with pictures that decode",
            reason,
        ) from None
    if expected not in container_format.split(","):
        raise ProbeError(
            f"the file is a {container_format} container, but its content type says {content_type}"
        )
    if not width or not height:
        raise ProbeError("the video stream has no picture size")
    return MediaInfo(
        MediaKind.VIDEO,
        f"{container_format} / {codec}",
        width,
        height,
        duration,
        video_codec=codec,
        audio_codec=audio_codec,
        frame_rate=frame_rate,
    )


POSTER_MAX_SIDE = 640


def poster_frame(source: str | Path, content_type: str) -> bytes:
    """A JPEG of the video's first picture, at most ``POSTER_MAX_SIDE`` pixels a side:
    the still a library shows for a video. Raises ``ProbeError`` when there is none."""
    import io

    import av

    try:
        with av.open(str(source), mode="r") as container:
            stream = container.streams.video[0]
            frame = next(container.decode(stream), None)
            if frame is None:
                raise ProbeError("the video has no picture to show")
            image = frame.to_image()  # type: ignore[no-untyped-call]  # PyAV's stubs lack it
    except ProbeError:
        raise
    except (av.error.FFmpegError, OSError, ValueError, IndexError) as exc:
        raise ProbeError("no picture could be taken from the video", str(exc)) from None
    image.thumbnail((POSTER_MAX_SIDE, POSTER_MAX_SIDE))
    out = io.BytesIO()
    image.convert("RGB").save(out, format="JPEG", quality=80)
    return out.getvalue()


def _duration(container: object, stream: object) -> float | None:
    import av

    assert isinstance(container, av.container.InputContainer)
    assert isinstance(stream, av.VideoStream)
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / 1_000_000
    return None
