"""Targets read from the rule table, and conversions that meet them, on real small files."""

from __future__ import annotations

import io
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from PIL import Image

from pressroom.conversion import ConversionError, convert
from pressroom.conversion.geometry import plan
from pressroom.conversion.videos import output_rate
from pressroom.platforms import MediaKind, Platform
from pressroom.probe import probe
from pressroom.rules import Fit, MediaFacts, Subject, check_media
from pressroom.rules.targets import parse_profile, profile_target, target_for
from tests.support.media import make_gif, make_image


def facts(path: Path, content_type: str) -> MediaFacts:
    info = probe(path, content_type)
    return MediaFacts(
        kind=info.kind,
        content_type=content_type,
        size=path.stat().st_size,
        width=info.width,
        height=info.height,
        duration_seconds=info.duration_seconds,
        video_codec=info.video_codec,
        audio_codec=info.audio_codec,
        frame_rate=info.frame_rate,
    )


def test_a_profile_folds_every_fixable_rule_of_its_label() -> None:
    target = profile_target(Platform.PHOTO_SHARING, MediaKind.IMAGE)
    assert target.profile == "photo_sharing.image"
    assert (target.content_types, target.max_bytes) == (("image/jpeg",), 8_000_000)
    assert target.min_ratio is None  # the shape is kept unless a fit is asked for
    padded = profile_target(Platform.PHOTO_SHARING, MediaKind.IMAGE, fit=Fit.PAD)
    assert (padded.profile, padded.min_ratio, padded.max_ratio) == (
        "photo_sharing.image.pad",
        0.8,
        1.91,
    )
    video = profile_target(Platform.SHORT_VIDEO, MediaKind.VIDEO)
    assert (video.min_width, video.max_width, video.min_fps, video.max_fps) == (360, 4096, 23, 60)
    thumbnail = profile_target(Platform.VIDEO_SHARING, MediaKind.IMAGE, subject=Subject.THUMBNAIL)
    assert thumbnail.profile == "video_sharing.thumbnail"
    for made in (target, padded, video, thumbnail):
        platform, subject, kind, fit = parse_profile(made.profile)
        assert profile_target(platform, kind, subject=subject, fit=fit) == made


def test_only_a_file_that_breaks_a_fixable_rule_gets_a_target(tmp_path: Path) -> None:
    jpeg = make_image(tmp_path / "ok.jpg", size=(320, 240), fmt="JPEG")
    assert target_for(Platform.PHOTO_SHARING, facts(jpeg, "image/jpeg")) is None
    png = make_image(tmp_path / "a.png", size=(320, 240))
    assert target_for(Platform.PHOTO_SHARING, facts(png, "image/png")) is not None
    banner = make_image(tmp_path / "banner.png", size=(320, 100))
    assert target_for(Platform.PHOTO_SHARING, facts(banner, "image/png")) is None  # refused
    cropped = target_for(Platform.PHOTO_SHARING, facts(banner, "image/png"), fit=Fit.CROP)
    assert cropped is not None and cropped.profile == "photo_sharing.image.crop"
    # A fit asked for but not needed does not change the profile: the same file is reused.
    plain = target_for(Platform.PHOTO_SHARING, facts(png, "image/png"), fit=Fit.PAD)
    assert plain is not None and plain.profile == "photo_sharing.image"
    assert target_for(Platform.PIN_BOARD, facts(png, "image/png")) is None  # no rules known


def test_the_derived_type_keeps_what_the_network_takes() -> None:
    instagram = profile_target(Platform.PHOTO_SHARING, MediaKind.IMAGE)
    youtube = profile_target(Platform.VIDEO_SHARING, MediaKind.IMAGE, subject=Subject.THUMBNAIL)
    assert [instagram.content_type_for(t) for t in ("image/png", "image/gif", "image/webp")] == [
        "image/jpeg"
    ] * 3
    assert youtube.content_type_for("image/gif") == "image/png"
    assert youtube.content_type_for("image/webp") == "image/jpeg"
    assert youtube.content_type_for("image/png") == "image/png"


def test_a_webp_and_a_gif_become_jpegs_meeting_the_rules(tmp_path: Path) -> None:
    target = profile_target(Platform.PHOTO_SHARING, MediaKind.IMAGE)
    webp = make_image(tmp_path / "a.webp", size=(300, 300), fmt="WEBP")
    gif = make_gif(tmp_path / "b.gif", size=(200, 160))
    for source, content_type in ((webp, "image/webp"), (gif, "image/gif")):
        made = convert(source, content_type, target, tmp_path / "out")
        assert (made.content_type, made.info.format) == ("image/jpeg", "JPEG")
        verdict = check_media(Platform.PHOTO_SHARING, facts(tmp_path / "out", "image/jpeg"))
        assert verdict == type(verdict)()


def noise(path: Path, size: tuple[int, int]) -> Path:
    """Random pixels: the hardest picture to compress."""
    rng = random.Random(7)
    data = bytes(rng.getrandbits(8) for _ in range(size[0] * size[1] * 3))
    Image.frombytes("RGB", size, data).save(path, format="PNG")
    return path


def test_an_image_over_the_byte_limit_steps_quality_then_size_down(tmp_path: Path) -> None:
    source = noise(tmp_path / "noise.png", (400, 300))
    roomy = profile_target(Platform.PHOTO_SHARING, MediaKind.IMAGE)
    full = convert(source, "image/png", roomy, tmp_path / "full.jpg")
    assert full.info.width == 400
    tight = replace(roomy, max_bytes=full.size // 4)
    made = convert(source, "image/png", tight, tmp_path / "small.jpg")
    assert made.size <= tight.max_bytes  # type: ignore[operator]
    picture = Image.open(io.BytesIO((tmp_path / "small.jpg").read_bytes()))
    assert picture.width / picture.height == pytest.approx(400 / 300, rel=0.02)
    with pytest.raises(ConversionError, match="under 100 bytes"):
        convert(source, "image/png", replace(roomy, max_bytes=100), tmp_path / "never.jpg")


def test_an_image_over_the_dimension_limit_is_scaled_down_keeping_its_shape(
    tmp_path: Path,
) -> None:
    threads = profile_target(Platform.TEXT_THREAD, MediaKind.IMAGE)
    assert threads.max_width == 1440
    source = make_image(tmp_path / "wide.png", size=(2000, 1000))
    made = convert(source, "image/png", threads, tmp_path / "out")
    assert (made.info.width, made.info.height, made.content_type) == (1440, 720, "image/png")


@pytest.mark.parametrize(
    ("size", "fit", "expected"),
    [
        ((320, 100), Fit.PAD, (320, 168)),
        ((320, 100), Fit.CROP, (191, 100)),
        ((100, 400), Fit.PAD, (320, 400)),  # too tall: bars left and right, to 4:5
        ((100, 400), Fit.CROP, (100, 125)),
        ((320, 240), Fit.PAD, (320, 240)),  # already a shape Instagram takes
    ],
)
def test_pad_and_crop_reach_the_nearest_allowed_ratio(
    size: tuple[int, int], fit: Fit, expected: tuple[int, int]
) -> None:
    target = profile_target(Platform.PHOTO_SHARING, MediaKind.IMAGE, fit=fit)
    frame = plan(*size, target)
    assert (frame.width, frame.height) == expected
    assert 0.8 <= frame.width / frame.height <= 1.91


def test_video_frame_rates_are_clamped_to_a_common_rate_in_range() -> None:
    tiktok = profile_target(Platform.SHORT_VIDEO, MediaKind.VIDEO)
    assert output_rate(Fraction(15), tiktok) == 24
    assert output_rate(Fraction(120), tiktok) == 60
    assert output_rate(Fraction(30000, 1001), tiktok) == Fraction(30000, 1001)  # kept
    reels = profile_target(Platform.PHOTO_SHARING, MediaKind.VIDEO)
    assert output_rate(Fraction(90), reels) == 60
