"""Content rules (spec 4.4, 7, 8), checked before anything is sent; limits from RULES."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic.alias_generators import to_camel

from pressroom.platforms import RULES, MediaKind, Platform
from pressroom.rules import CAROUSELS
from pressroom.service.publishing.schemas import REQUESTS
from tests.conftest import Service
from tests.support.files import make_file
from tests.support.publish import deliveries, error_of, post_count, publish, valid_body

LIMITED = [
    (platform, rule.name, rule.max_chars)
    for platform, rules in RULES.items()
    for rule in rules.text_fields
    if rule.max_chars is not None
]


def test_the_limits_are_the_specs() -> None:
    """The table itself, checked once against spec section 8."""
    assert sorted((p.value, n, m) for p, n, m in LIMITED) == [
        ("microblog", "text", 280),
        ("photo_sharing", "caption", 2200),
        ("pin_board", "title", 100),
        ("text_thread", "text", 500),
        ("video_sharing", "description", 5000),
        ("video_sharing", "title", 100),
    ]


@pytest.mark.parametrize(("platform", "name", "limit"), LIMITED)
def test_text_at_its_limit_passes_and_one_more_is_refused(
    service: Service, platform: Platform, name: str, limit: int
) -> None:
    account = service.account()
    at_limit = publish(account, platform, valid_body(account, platform, **{name: "a" * limit}))
    assert at_limit.status_code == 200, at_limit.text

    over = publish(account, platform, valid_body(account, platform, **{name: "a" * (limit + 1)}))
    assert over.status_code == 400
    error = error_of(over)
    assert error["code"] == "text_too_long"
    assert error["field"] == to_camel(name)
    assert (
        f"at most {limit:,}" in error["message"] and f"{limit + 1:,} characters" in error["message"]
    )
    assert len(deliveries(service)) == 1 and post_count(service) == 1


@pytest.mark.parametrize(
    "unit",
    [
        "👍🏽",  # two code points, four UTF-16 units, eight bytes
        "e\u0301",  # an accented letter written as two code points
        "🇫🇷",  # a flag: two regional indicators
        "👩‍👩‍👧",  # a family joined with zero-width joiners
    ],
)
def test_characters_count_as_people_see_them(service: Service, unit: str) -> None:
    """The spec's unit, on a field whose network counts as the spec does (YouTube's
    title; X weighs each emoji 2, so 280 of them are over X's own limit)."""
    account = service.account()
    platform = Platform.VIDEO_SHARING
    rule = RULES[platform].text_rule("title")
    assert rule is not None and rule.max_chars is not None
    limit = rule.max_chars
    fits = publish(account, platform, valid_body(account, platform, title=unit * limit))
    assert fits.status_code == 200, fits.text
    over = publish(account, platform, valid_body(account, platform, title=unit * (limit + 1)))
    assert error_of(over)["code"] == "text_too_long"
    assert f"is {limit + 1} characters" in error_of(over)["message"]


REQUIRED = [
    (platform, field)
    for platform, model in REQUESTS.items()
    for field, info in model.model_fields.items()
    if info.is_required()
]


def test_request_models_agree_with_the_rule_table() -> None:
    for platform, rules in RULES.items():
        fields = REQUESTS[platform].model_fields
        for rule in rules.text_fields:
            assert rule.name in fields, (platform, rule.name)
            assert fields[rule.name].is_required() == rule.required, (platform, rule.name)
        # A label that takes carousels needs fileId or fileIds, one of them: the service
        # says so (``test_carousels.py``), the schema cannot require either alone.
        # short_video's fileIds are a TikTok photo post's images (``format`` ``photo``).
        carousels = platform in CAROUSELS
        several = carousels or platform is Platform.SHORT_VIDEO
        assert fields["file_id"].is_required() == (not rules.text_only and not several)
        assert ("file_ids" in fields) == several, platform
        assert ("board_id" in fields) == rules.requires_board, platform


@pytest.mark.parametrize(("platform", "field"), REQUIRED)
def test_each_required_field_is_required(service: Service, platform: Platform, field: str) -> None:
    account = service.account()
    body = valid_body(account, platform)
    del body[to_camel(field)]
    response = publish(account, platform, body)
    assert response.status_code == 400
    error = error_of(response)
    assert error == {
        "code": "validation_error",
        "message": f"{to_camel(field)} is required.",
        "field": to_camel(field),
    }
    assert post_count(service) == 0


@pytest.mark.parametrize(
    ("platform", "name"),
    [(p, r.name) for p, rules in RULES.items() for r in rules.text_fields if r.required],
)
def test_blank_required_text_is_refused(service: Service, platform: Platform, name: str) -> None:
    account = service.account()
    response = publish(account, platform, valid_body(account, platform, **{name: "  \n"}))
    assert response.status_code == 400
    assert error_of(response) == {
        "code": "validation_error",
        "message": f"{name} must not be empty.",
        "field": name,
    }


@pytest.mark.parametrize("value", ["Public", "hidden", ""])
def test_privacy_status_is_one_of_three(service: Service, value: str) -> None:
    account = service.account()
    body = valid_body(account, Platform.VIDEO_SHARING, privacyStatus=value)
    error = error_of(publish(account, Platform.VIDEO_SHARING, body))
    assert error["code"] == "validation_error" and error["field"] == "privacyStatus"
    assert "public, unlisted, private" in error["message"]


@pytest.mark.parametrize("platform", [p for p, r in RULES.items() if r.text_only])
def test_text_only_platforms_refuse_media(service: Service, platform: Platform) -> None:
    account = service.account()
    body = valid_body(account, platform, fileId=make_file(account, "image"))
    response = publish(account, platform, body)
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "media_kind_not_allowed" and error["field"] == "fileId"
    if platform is Platform.PROFESSIONAL_NETWORK:  # a file alone is a document's PDF
        assert error["message"] == (
            "professional_network takes one file only as a document post: give format: "
            "document and documentTitle with a PDF in fileId, or remove fileId (give fileIds "
            "for a carousel)."
        )
        assert error["rule"] == "professional_network.document"
    elif platform in CAROUSELS:  # its files go in fileIds, as a carousel
        assert error["message"] == (
            f"{platform.value} takes no single file: remove fileId, or give fileIds for a carousel."
        )
    else:
        assert error["message"] == f"{platform.value} posts text only: remove fileId."


MEDIA_CASES = [
    (platform, kind, kind in rules.media_kinds)
    for platform, rules in RULES.items()
    if not rules.text_only
    for kind in MediaKind
]


@pytest.mark.parametrize(("platform", "kind", "allowed"), MEDIA_CASES)
def test_media_kind_per_platform(
    service: Service, platform: Platform, kind: MediaKind, allowed: bool
) -> None:
    account = service.account()
    body = valid_body(account, platform, fileId=make_file(account, kind.value))
    response = publish(account, platform, body)
    if allowed:
        assert response.status_code == 200, response.text
        return
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "media_kind_not_allowed" and error["field"] == "fileId"
    assert f"is {'an image' if kind == MediaKind.IMAGE else 'a video'}" in error["message"]
    assert deliveries(service) == []


def test_the_spec_media_kinds() -> None:
    kinds = {p.value: sorted(k.value for k in r.media_kinds) for p, r in RULES.items()}
    assert kinds == {
        "microblog": [],
        "text_thread": [],
        "professional_network": [],
        "video_sharing": ["video"],
        "short_video": ["video"],
        "pin_board": ["image"],
        "photo_sharing": ["image", "video"],
        "page_social": ["image", "video"],
        "open_microblog": ["image", "video"],
    }


@pytest.mark.parametrize(
    ("seconds", "ok"), [(2.9, False), (3.0, True), (45.5, True), (600.0, True), (600.4, False)]
)
def test_short_video_lasts_3_seconds_to_10_minutes(
    service: Service, seconds: float, ok: bool
) -> None:
    account = service.account()
    video = make_file(account, "video", duration=seconds)
    response = publish(
        account, Platform.SHORT_VIDEO, valid_body(account, Platform.SHORT_VIDEO, fileId=video)
    )
    if ok:
        assert response.status_code == 200, response.text
        return
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "video_duration_out_of_range" and error["field"] == "fileId"
    assert "3 s to 10 min" in error["message"] and f"lasts {seconds:g} s" in error["message"]


def test_long_videos_are_fine_elsewhere(service: Service) -> None:
    account = service.account()
    video = make_file(account, "video", duration=3600.0)
    body = valid_body(account, Platform.VIDEO_SHARING, fileId=video)
    assert publish(account, Platform.VIDEO_SHARING, body).status_code == 200


@pytest.mark.parametrize(
    ("body_change", "field", "fragment"),
    [
        ({"mediaUrl": "https://x.example/a.png"}, "mediaUrl", "mediaUrl is not a known field."),
        ({"text": 42}, "text", "text: input should be a valid string."),
        (
            {"connectionId": ""},
            "connectionId",
            "connectionId: string should have at least 1 character.",
        ),
    ],
)
def test_malformed_bodies_name_the_field(
    service: Service, body_change: dict[str, Any], field: str, fragment: str
) -> None:
    account = service.account()
    response = publish(
        account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG, **body_change)
    )
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "validation_error" and error["field"] == field
    assert fragment in error["message"]


def test_a_body_that_is_not_json_is_a_clear_400(service: Service) -> None:
    account = service.account()
    response = service.client.post(
        RULES[Platform.MICROBLOG].publish_path,
        content=b"{not json",
        headers={**account.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert error_of(response)["message"] == "The body is not valid JSON."
