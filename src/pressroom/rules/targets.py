"""What a file fitted for a network must be: the target of a conversion, read from the table.

A *profile* is the set of constraints one network puts on one use of a file, named
``{label}.{use}``: ``photo_sharing.image`` (JPEG, at most 8,000,000 bytes),
``video_sharing.thumbnail`` (JPEG or PNG), ``short_video.video`` (H.264, 23 to 60 frames
a second, 360 to 4096 px a side). When the picture's shape is changed to meet an aspect
ratio rule, the way it is changed is part of the profile (``photo_sharing.image.pad``,
``….crop``): a padded and a cropped picture are different files. A derived file is made
once per (file, profile) and reused by every later post of that file to that profile.

The target is every fixable media rule of the profile folded together, so a derived
file meets all of them at once, not only the one that was broken; the rules conversion
cannot meet (a duration) are refused before a target is ever asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

from pressroom.platforms import MediaKind, Platform
from pressroom.rules.check import MediaFacts, check_media, media_rules
from pressroom.rules.model import (
    AspectRatio,
    AudioCodec,
    Dimensions,
    Fit,
    Fix,
    FrameRate,
    MaxBytes,
    MediaFormat,
    Subject,
    VideoCodec,
)

JPEG = "image/jpeg"
PNG = "image/png"
MP4 = "video/mp4"
H264 = "h264"
AAC = "aac"


@dataclass(frozen=True)
class Target:
    """The constraints a derived file is made to meet (None or empty: no constraint)."""

    platform: Platform
    subject: Subject
    kind: MediaKind
    fit: Fit | None = None
    """``pad`` or ``crop`` when the picture's shape is changed; None: it is kept."""
    content_types: tuple[str, ...] = ()
    max_bytes: int | None = None
    min_width: int | None = None
    max_width: int | None = None
    min_height: int | None = None
    max_height: int | None = None
    min_ratio: float | None = None
    max_ratio: float | None = None
    video_codecs: tuple[str, ...] = ()
    audio_codecs: tuple[str, ...] = ()
    min_fps: float | None = None
    max_fps: float | None = None

    @property
    def profile(self) -> str:
        use = "thumbnail" if self.subject is Subject.THUMBNAIL else self.kind.value
        name = f"{self.platform.value}.{use}"
        return f"{name}.{self.fit.value}" if self.fit is not None else name

    def content_type_for(self, source: str) -> str:
        """The type the derived file is written in, for a source of type ``source``.

        A video is always H.264 and AAC in MP4, which every network in the table takes.
        An image keeps its type when the network takes it; otherwise a GIF becomes a PNG
        where PNG is taken (flat colours and sharp edges survive it), and anything else a
        JPEG where JPEG is."""
        if self.kind is MediaKind.VIDEO:
            return MP4
        allowed = self.content_types
        if not allowed or source in allowed:
            return source
        if source == "image/gif" and PNG in allowed:
            return PNG
        if JPEG in allowed:
            return JPEG
        return allowed[0]


def target_for(
    platform: Platform,
    facts: MediaFacts,
    *,
    subject: Subject = Subject.MEDIA,
    fit: Fit | None = None,
) -> Target | None:
    """The target a file must be converted to for the label, or None when the file
    already meets every rule conversion could (or a rule refuses it outright: the
    caller refuses first)."""
    verdict = check_media(platform, facts, subject=subject, fit=fit)
    if verdict.refused or not verdict.needs_fitting:
        return None
    reshaped = any(v.fix is Fix.PAD_OR_CROP for v in verdict.needs_fitting)
    return profile_target(platform, facts.kind, subject=subject, fit=fit if reshaped else None)


def profile_target(
    platform: Platform,
    kind: MediaKind,
    *,
    subject: Subject = Subject.MEDIA,
    fit: Fit | None = None,
) -> Target:
    """Every rule of the profile that conversion meets, folded into one target."""
    values: dict[str, object] = {}

    def tighter(name: str, value: float | None, *, low: bool) -> None:
        if value is None:
            return
        now = values.get(name)
        if now is None:
            values[name] = value
        else:
            assert isinstance(now, int | float)
            values[name] = max(now, value) if low else min(now, value)

    for rule in media_rules(platform, subject):
        if not rule.applies_to(kind) or rule.fix is None:
            continue
        if isinstance(rule, MediaFormat):
            values["content_types"] = rule.content_types
        elif isinstance(rule, MaxBytes):
            tighter("max_bytes", rule.limit, low=False)
        elif isinstance(rule, Dimensions):
            tighter("min_width", rule.min_width, low=True)
            tighter("max_width", rule.max_width, low=False)
            tighter("min_height", rule.min_height, low=True)
            tighter("max_height", rule.max_height, low=False)
        elif isinstance(rule, AspectRatio):
            if fit in (Fit.PAD, Fit.CROP):
                tighter("min_ratio", rule.min_ratio, low=True)
                tighter("max_ratio", rule.max_ratio, low=False)
        elif isinstance(rule, VideoCodec):
            values["video_codecs"] = rule.codecs
        elif isinstance(rule, AudioCodec):
            values["audio_codecs"] = rule.codecs
        elif isinstance(rule, FrameRate):
            tighter("min_fps", rule.min_fps, low=True)
            tighter("max_fps", rule.max_fps, low=False)
    shaped = fit if "min_ratio" in values or "max_ratio" in values else None
    return Target(platform, subject, kind, shaped, **values)  # type: ignore[arg-type]


def parse_profile(profile: str) -> tuple[Platform, Subject, MediaKind, Fit | None]:
    """The label, use, kind and fit a profile name stands for; ValueError when it names
    none (a profile written by another version)."""
    parts = profile.split(".")
    if len(parts) not in (2, 3):
        raise ValueError(f"not a media profile: {profile!r}")
    platform = Platform(parts[0])
    if parts[1] == "thumbnail":
        subject, kind = Subject.THUMBNAIL, MediaKind.IMAGE
    else:
        subject, kind = Subject.MEDIA, MediaKind(parts[1])
    fit = Fit(parts[2]) if len(parts) == 3 else None
    return platform, subject, kind, fit
