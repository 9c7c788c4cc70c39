"""Each network's text rules through the API on the sandbox and through campaign validate,
generated from the rule table itself, so a rule added later is tried without a test
written for it: a body just inside the rule is published, one just outside is a 400
naming the field, the rule and its page, with nothing sent, and ``campaign validate``
reports the same rule at the line of the field.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic.alias_generators import to_camel

from pressroom.campaign import validate
from pressroom.platforms import RULES, Platform, count_characters
from pressroom.rules import all_rules, measure, rule_by_id
from pressroom.rules.model import ForbiddenCharacters, Item, ItemCount, TextLength, TextRule
from pressroom.service.db.models import File
from pressroom.service.db.session import transaction
from tests.conftest import AccountHandle, Service
from tests.support.media import make_image, make_video
from tests.support.publish import (
    MEDIA_KIND,
    deliveries,
    error_of,
    post_count,
    publish,
    publish_when_fitted,
    valid_body,
)
from tests.support.rules import patch_rule
from tests.support.uploads import upload_file

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
"""One character (a grapheme) of 25 bytes: a limit in bytes beside a tighter one in
characters (Bluesky's 3,000 bytes and 300 graphemes) is reached only with such."""
FILLERS = ("a", "é", "中", "😀", "e\u0301", FAMILY)
"""Characters a generated text is made of: one or many units each, one character each."""


def _text_of(rule: TextLength, units: int) -> str:
    """A text of exactly ``units`` in the rule's unit, in as few characters as possible
    (so the spec's own limit in characters is reached last)."""
    best: str | None = None
    for filler in FILLERS:
        cost = measure(filler, rule.unit)
        count, rest = divmod(units, cost)
        text = filler * count + "a" * rest
        shorter = best is None or count_characters(text) < count_characters(best)
        if measure(text, rule.unit) == units and shorter:
            best = text
    assert best is not None, rule.id
    return best


def _items(item: Item, count: int) -> str:
    mark = "#" if item is Item.HASHTAGS else "@"
    return " ".join(f"{mark}word{index}" for index in range(count))


@dataclass(frozen=True)
class Case:
    rule: TextRule
    field: str
    inside: str
    outside: str

    @property
    def id(self) -> str:
        return f"{self.rule.id}:{self.field}"


def case_of(rule: TextRule, field: str) -> Case:
    if isinstance(rule, TextLength):
        return Case(rule, field, _text_of(rule, rule.limit), _text_of(rule, rule.limit + 1))
    if isinstance(rule, ForbiddenCharacters):
        return Case(rule, field, "plain words", f"a {rule.characters[0]} b")
    if isinstance(rule, ItemCount):
        return Case(rule, field, _items(rule.item, rule.limit), _items(rule.item, rule.limit + 1))
    raise AssertionError(f"no generated texts for {type(rule).__name__}: add them here")


CASES = [
    case_of(rule, field)
    for rule in all_rules()
    if isinstance(rule, TextRule)
    for field in rule.fields
]


def spec_refuses(case: Case, text: str) -> bool:
    spec = RULES[case.rule.platform].text_rule(case.field)
    assert spec is not None
    return spec.excess(text) is not None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_a_text_just_inside_is_published_and_just_outside_refused_naming_the_rule(
    service: Service, case: Case
) -> None:
    platform, field = case.rule.platform, to_camel(case.field)
    account = service.account()
    if spec_refuses(case, case.outside):
        # The spec's limit is as strict: its own error comes first, the network's rule
        # is never reached.
        over = publish(account, platform, valid_body(account, platform, **{field: case.outside}))
        assert error_of(over)["code"] == "text_too_long" and "rule" not in error_of(over)
        pytest.skip(f"{case.rule.id}: the spec's own limit on {field} is reached first")
    inside = publish(account, platform, valid_body(account, platform, **{field: case.inside}))
    assert inside.status_code == 200, inside.text
    assert deliveries(service)[-1].payload["fields"][field] == case.inside

    outside = publish(account, platform, valid_body(account, platform, **{field: case.outside}))
    assert outside.status_code == 400, outside.text
    error = error_of(outside)
    assert error["code"] == "validation_error"
    assert error["field"] == field
    assert error["rule"] == case.rule.id
    assert error["docUrl"] == case.rule.doc_url
    assert case.rule.network in error["message"]
    assert len(deliveries(service)) == 1 and post_count(service) == 1  # nothing sent


@pytest.fixture(scope="module")
def campaign_media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rules-media")
    make_video(folder / "clip.mp4", 4, width=360, height=640, fps=24)
    make_image(folder / "photo.jpg", size=(100, 100), fmt="JPEG")
    return folder


def campaign_with(case: Case, text: str, tmp_path: Path) -> tuple[Path, int]:
    """A campaign whose one block carries ``text`` in the rule's field; and its line."""
    platform = case.rule.platform
    fields = {case.field: text}
    for spec in RULES[platform].text_fields:
        if spec.required and spec.name not in fields:
            fields[spec.name] = f"{spec.name} for {platform.value}"
    if RULES[platform].requires_board:
        fields["board"] = "board-1"
    body = "".join(
        f"      {name}: {json.dumps(value, ensure_ascii=False)}\n" for name, value in fields.items()
    )
    media_line = ""
    if platform in MEDIA_KIND:
        name = "clip" if MEDIA_KIND[platform] == "video" else "photo"
        media_line = f"    media: {name}\n"
    head = textwrap.dedent(
        """\
        name: rules
        media:
          clip: {path: clip.mp4}
          photo: {path: photo.jpg}
        posts:
          - id: p
        """
    )
    path = tmp_path / "c.yaml"
    text_yaml = head + media_line + f"    {platform.value}:\n" + body
    path.write_text(text_yaml, encoding="utf-8")
    line = next(
        number
        for number, written in enumerate(text_yaml.splitlines(), start=1)
        if written.startswith(f"      {case.field}:")
    )
    return path, line


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_campaign_validate_reports_the_same_rule_at_the_line_of_the_field(
    case: Case, campaign_media: Path, tmp_path: Path
) -> None:
    for name in ("clip.mp4", "photo.jpg"):
        (tmp_path / name).symlink_to(campaign_media / name)
    inside, _ = campaign_with(case, case.inside, tmp_path)
    assert [i for i in validate(inside).issues if i.rule == case.rule.id or i.is_error] == []
    outside, line = campaign_with(case, case.outside, tmp_path)
    errors = [issue for issue in validate(outside).issues if issue.is_error]
    if spec_refuses(case, case.outside):
        assert [issue.rule for issue in errors] == [None]  # the spec's own error alone
        pytest.skip(f"{case.rule.id}: the spec's own limit on {case.field} is reached first")
    assert [(issue.rule, issue.doc_url, issue.line) for issue in errors] == [
        (case.rule.id, case.rule.doc_url, line)
    ]
    assert errors[0].path.endswith(f"{case.rule.platform.value}.{case.field}")
    assert case.rule.id in str(errors[0]) and case.rule.doc_url in str(errors[0])


def test_the_cases_cover_every_text_rule_of_the_table() -> None:
    covered = {case.rule.id for case in CASES}
    assert covered == {rule.id for rule in all_rules() if isinstance(rule, TextRule)}
    assert "microblog.weighted_length" in covered
    x = next(case for case in CASES if case.rule.id == "microblog.weighted_length")
    assert (x.inside, x.outside) == ("中" * 140, "中" * 140 + "a")
    assert Platform.MICROBLOG in {case.rule.platform for case in CASES}


# -- media: the rules conversion cannot meet, on real files through the API ----------


@pytest.fixture(scope="module")
def small_media(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("rules-small-media")
    return {
        "clip": make_video(folder / "clip.mp4", 2, width=320, height=240, fps=24),
        "landscape": make_image(folder / "landscape.png", size=(320, 240)),
        "banner": make_image(folder / "banner.png", size=(320, 100)),
    }


def _ready(service: Service, account: AccountHandle, path: Path) -> str:
    status = upload_file(service.client, account.headers, path)
    assert status["status"] == "ready", status
    return str(status["fileId"])


def test_a_reel_shorter_than_instagram_takes_is_refused_before_sending(
    service: Service, small_media: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Instagram takes reels of 3 s to 15 min: the 2 s clip is refused naming the rule;
    with the rule's minimum lowered (in the table, as a shorter real limit would be) the
    same clip is published."""
    account = service.account()
    clip = _ready(service, account, small_media["clip"])
    platform = Platform.PHOTO_SHARING
    refused = publish(account, platform, valid_body(account, platform, fileId=clip))
    assert refused.status_code == 400, refused.text
    error = error_of(refused)
    assert (error["code"], error["field"], error["rule"]) == (
        "validation_error",
        "fileId",
        "photo_sharing.video_duration",
    )
    assert error["docUrl"] == rule_by_id("photo_sharing.video_duration").doc_url
    assert "lasts 2 s" in error["message"] and post_count(service) == 0

    patch_rule(monkeypatch, "photo_sharing.video_duration", min_seconds=1.5)
    fits = publish(account, platform, valid_body(account, platform, fileId=clip))
    assert fits.status_code == 200, fits.text
    assert len(deliveries(service)) == 1


def test_an_image_instagram_cannot_show_in_its_shape_is_refused(
    service: Service, small_media: dict[str, Path]
) -> None:
    """4:5 to 1.91:1: a 320x100 banner is refused; a 320x240 PNG is published (Instagram
    takes JPEG only, but that conversion is fitting's, not a refusal: a JPEG made from it
    is sent)."""
    account = service.account()
    platform = Platform.PHOTO_SHARING
    banner = _ready(service, account, small_media["banner"])
    refused = publish(account, platform, valid_body(account, platform, fileId=banner))
    error = error_of(refused)
    assert (refused.status_code, error["field"], error["rule"]) == (
        400,
        "fileId",
        "photo_sharing.image_aspect_ratio",
    )
    assert "320x100" in error["message"] and deliveries(service) == []
    landscape = _ready(service, account, small_media["landscape"])
    fits = publish_when_fitted(account, platform, valid_body(account, platform, fileId=landscape))
    assert fits.status_code == 200, fits.text
    assert deliveries(service)[-1].payload["media"]["contentType"] == "image/jpeg"


def test_probing_records_what_the_media_rules_read(
    service: Service, small_media: dict[str, Path]
) -> None:
    account = service.account()
    clip = _ready(service, account, small_media["clip"])
    with transaction(service.sessions, write=False) as db:
        file = db.get(File, clip)
        assert file is not None
        assert (file.video_codec, file.audio_codec, file.frame_rate) == ("h264", None, 24.0)
        assert (file.width, file.height) == (320, 240)
