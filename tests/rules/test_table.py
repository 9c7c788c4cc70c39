"""The rule table as data, and the media checker on small probe facts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace

import pytest

from pressroom.platforms import RULES, MediaKind, Platform
from pressroom.rules import (
    NETWORKS,
    TABLE,
    Fit,
    Fix,
    MediaFacts,
    Subject,
    all_rules,
    check_media,
    check_text,
    rule_by_id,
)
from pressroom.rules.model import AspectRatio, Duration, MediaRule, TextRule


def test_every_rule_has_an_id_a_network_and_a_page() -> None:
    ids = [rule.id for rule in all_rules()]
    assert len(ids) == len(set(ids))
    for rule in all_rules():
        assert re.fullmatch(r"[a-z_]+\.[a-z0-9_]+", rule.id), rule.id
        assert rule.id.startswith(f"{rule.platform.value}.")
        assert rule.network == NETWORKS[rule.platform]
        assert rule.doc_url.startswith("https://"), rule.id
        assert rule.describe()
    assert set(TABLE) == set(Platform)


def test_text_rules_name_fields_the_spec_has() -> None:
    for rule in all_rules():
        if isinstance(rule, TextRule):
            names = {spec.name for spec in RULES[rule.platform].text_fields}
            assert set(rule.fields) <= names, rule.id


def test_only_the_editor_can_meet_a_duration_or_a_shape() -> None:
    """What conversion cannot do stays unfixable: a video's length; an aspect ratio,
    which only padding or cropping (the campaign's choice) changes."""
    for rule in all_rules():
        if isinstance(rule, Duration):
            assert rule.fix is None, rule.id
        elif isinstance(rule, AspectRatio):
            assert rule.fix is Fix.PAD_OR_CROP, rule.id
        elif isinstance(rule, MediaRule):
            assert rule.fix is not None, rule.id


def test_the_rules_the_networks_document_are_in_the_table() -> None:
    assert rule_by_id("microblog.weighted_length").doc_url == (
        "https://docs.x.com/fundamentals/counting-characters"
    )
    assert {r.id for r in all_rules() if r.platform is Platform.VIDEO_SHARING} >= {
        "video_sharing.title_length",
        "video_sharing.description_bytes",
        "video_sharing.forbidden_characters",
        "video_sharing.thumbnail_format",
    }
    assert rule_by_id("photo_sharing.image_format").fix is Fix.CONVERT_TO_JPEG


def test_text_checks() -> None:
    found = check_text(Platform.VIDEO_SHARING, {"title": "a <b>", "description": "é" * 2501})
    assert [(v.rule.id, v.field) for v in found] == [
        ("video_sharing.forbidden_characters", "title"),
        ("video_sharing.description_bytes", "description"),
    ]
    assert "5,002 bytes (UTF-8)" in found[1].message
    caption = " ".join(f"#tag{i}" for i in range(31)) + " mail@example.com"
    found = check_text(Platform.PHOTO_SHARING, {"caption": caption})
    assert [v.rule.id for v in found] == ["photo_sharing.caption_hashtags"]
    assert check_text(Platform.PHOTO_SHARING, {"caption": None}) == []


def image(content_type: str = "image/jpeg", width: int = 1080, height: int = 1080) -> MediaFacts:
    return MediaFacts(MediaKind.IMAGE, content_type, 1000, width, height)


def video(**facts: object) -> MediaFacts:
    base = MediaFacts(MediaKind.VIDEO, "video/mp4", 5000, 320, 240, 2.0, "h264", None, 24.0)
    return replace(base, **facts)  # type: ignore[arg-type]


def ids(violations: tuple[object, ...]) -> list[str]:
    return [v.rule.id for v in violations]  # type: ignore[attr-defined]


def test_a_png_for_instagram_needs_fitting_and_is_not_refused() -> None:
    verdict = check_media(Platform.PHOTO_SHARING, image("image/png"))
    assert verdict.refused == ()
    assert ids(verdict.needs_fitting) == ["photo_sharing.image_format"]
    assert verdict.needs_fitting[0].fix is Fix.CONVERT_TO_JPEG


def test_a_shape_instagram_refuses_is_refused_unless_the_campaign_fits_it() -> None:
    tall = image(width=200, height=300)  # 2:3, under 4:5
    assert ids(check_media(Platform.PHOTO_SHARING, tall).refused) == [
        "photo_sharing.image_aspect_ratio"
    ]
    for fit in (Fit.PAD, Fit.CROP):
        verdict = check_media(Platform.PHOTO_SHARING, tall, fit=fit)
        assert verdict.refused == () and verdict.needs_fitting[0].fix is Fix.PAD_OR_CROP
    assert ids(check_media(Platform.PHOTO_SHARING, tall, fit=Fit.REFUSE).refused) == [
        "photo_sharing.image_aspect_ratio"
    ]
    assert check_media(Platform.PHOTO_SHARING, image(width=1080, height=1350)).refused == ()


def test_video_rules_on_probe_facts() -> None:
    reel = check_media(Platform.PHOTO_SHARING, video(duration_seconds=2.0))
    assert ids(reel.refused) == ["photo_sharing.video_duration"]
    assert check_media(Platform.PHOTO_SHARING, video(duration_seconds=3.0)).refused == ()
    transcode = check_media(
        Platform.PHOTO_SHARING,
        video(duration_seconds=5.0, video_codec="vp9", audio_codec="opus", frame_rate=10.0),
    )
    assert transcode.refused == ()
    assert ids(transcode.needs_fitting) == [
        "photo_sharing.video_codec",
        "photo_sharing.audio_codec",
        "photo_sharing.video_frame_rate",
    ]
    assert {v.fix for v in transcode.needs_fitting} == {Fix.TRANSCODE}
    tiktok = check_media(Platform.SHORT_VIDEO, video(duration_seconds=601.0, width=200))
    assert ids(tiktok.refused) == ["short_video.video_duration"]
    assert ids(tiktok.needs_fitting) == ["short_video.video_dimensions"]


def test_what_was_not_probed_breaks_no_rule() -> None:
    unknown = MediaFacts(MediaKind.VIDEO, "video/mp4")
    assert check_media(Platform.PHOTO_SHARING, unknown) == check_media(
        Platform.PAGE_SOCIAL, unknown
    )
    assert check_media(Platform.PHOTO_SHARING, unknown).refused == ()


def test_thumbnail_rules_apply_to_thumbnails_only() -> None:
    gif = image("image/gif", 1280, 720)
    verdict = check_media(Platform.VIDEO_SHARING, gif, subject=Subject.THUMBNAIL)
    assert ids(verdict.needs_fitting) == ["video_sharing.thumbnail_format"]
    assert check_media(Platform.VIDEO_SHARING, gif).needs_fitting == ()


@pytest.mark.parametrize("module", ["pressroom.rules", "pressroom.rules.check"])
def test_the_table_imports_nothing_of_the_service(module: str) -> None:
    script = (
        f"import json, sys, {module}\n"
        "heavy = ('fastapi', 'starlette', 'sqlalchemy', 'boto3', 'prefect', 'av', 'PIL')\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & set(heavy))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(done.stdout) == []
