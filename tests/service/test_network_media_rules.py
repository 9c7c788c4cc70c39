"""Each network's media and count rules on the sandbox, generated from the rule table
itself, so a rule added later is tried without a test written for it.

For every media rule a real file just inside it is published as it is, and what reached
the sandbox meets the rule; a file just outside it is either refused before sending (a
400 naming the field, the rule and its page, nothing sent) or, where conversion meets the
rule, published with a file fitted for the network that meets it. A daily quota publishes
its last post and refuses the next, as the network does. ``campaign validate`` reports
the same media rule at the line the media is given for.

Media stay small (clips of about a second at 320x240, small images). Where a limit is too
large to make real media at (bytes in GB, minutes, 1920 px, 100 posts a day), the rule is
lowered in the table for the case, as a stricter figure in the network's module would be:
every consumer reads the table when it checks, so the case still goes through all of them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pressroom.campaign import validate
from pressroom.platforms import RULES, MediaKind, Platform
from pressroom.probe import IMAGE_TYPES, VIDEO_TYPES, content_type_for, probe
from pressroom.rules import MediaFacts, Subject, all_rules, check_media, rules_of
from pressroom.rules.check import CAROUSELS
from pressroom.rules.model import (
    AspectRatio,
    AudioCodec,
    Dimensions,
    Duration,
    FrameRate,
    ItemsPerPost,
    MaxBytes,
    MediaFormat,
    MediaRule,
    PartsPerThread,
    PostsPerDay,
    Rule,
    TextRule,
    VideoCodec,
)
from tests.conftest import AccountHandle, Service
from tests.support.media import make_clip, make_gif, make_image, make_video
from tests.support.publish import (
    deliveries,
    error_of,
    post_count,
    publish,
    publish_when_fitted,
    valid_body,
)
from tests.support.rules import patch_rule
from tests.support.uploads import upload_file

FPS = 24
SECONDS = 1.0
IMAGE_SIZE = (320, 240)
VIDEO_SIZE = (320, 240)

Maker = Callable[[Path], Path]
"""Writes a file at the path it is given (whose suffix says its type); returns it."""


# -- the files ----------------------------------------------------------------


def image(size: tuple[int, int] = IMAGE_SIZE, fmt: str = "JPEG") -> Maker:
    return lambda path: make_image(path, size=size, fmt=fmt)


def noisy_image(size: tuple[int, int] = IMAGE_SIZE) -> Maker:
    """A JPEG of noise at full quality: far more bytes than any re-encoding needs."""

    def make(path: Path) -> Path:
        noise = random.Random(7).randbytes(size[0] * size[1] * 3)
        Image.frombytes("RGB", size, noise).save(path, format="JPEG", quality=100)
        return path

    return make


def video(
    size: tuple[int, int] = VIDEO_SIZE,
    *,
    fps: int = FPS,
    frames: int = round(SECONDS * FPS),
    options: dict[str, str] | None = None,
    noisy: bool = False,
) -> Maker:
    def paint(index: int, _: int) -> Image.Image:
        return Image.frombytes("RGB", size, random.Random(index).randbytes(size[0] * size[1] * 3))

    return lambda path: make_video(
        path,
        frames / fps,
        width=size[0],
        height=size[1],
        fps=fps,
        encoder_options=options,
        paint=paint if noisy else None,
    )


def clip(size: tuple[int, int], *, codec: str, container: str, sound: str | None = None) -> Maker:
    return lambda path: make_clip(
        path,
        SECONDS,
        codec=codec,
        container=container,
        fps=FPS,
        width=size[0],
        height=size[1],
        sound=sound,
    )


SUFFIX = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "video/mp4": ".mp4",
    "video/webm": ".webm",
    "video/quicktime": ".mov",
}


def facts_of(path: Path) -> MediaFacts:
    content_type = content_type_for(path.name)
    assert content_type is not None, path
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


# -- the cases ----------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One file, with the changes to the rule under test that the case needs: a limit
    lowered to what small media can reach, measured on the file just inside."""

    file: tuple[str, Maker]
    """The file's type (content type) and how to make it."""
    lowered: Callable[[MediaFacts], dict[str, object]] = lambda _: {}
    """The rule's changes, from the facts of the case's file just inside."""


@dataclass(frozen=True)
class Case:
    rule: Rule
    bound: str = ""
    """Which bound of a range is tried (``min``, ``max``), when the rule has two."""
    inside: Side | None = None
    outside: Side | None = None
    unreachable: str | None = None
    """Why the rule cannot be tried on the sandbox today; None: it can."""

    @property
    def id(self) -> str:
        return f"{self.rule.id}:{self.bound}" if self.bound else self.rule.id

    @property
    def fitted(self) -> bool:
        """Whether the file just outside is fitted (converted) rather than refused."""
        fix = getattr(self.rule, "fix", None)
        return fix is not None and not fix.needs_fit


def carousel_only(platform: Platform) -> bool:
    """A label whose posts take files only as a carousel (text_thread: the spec makes a
    post text only, our ``fileIds`` extension adds carousels): its media rules are tried
    on a carousel's first item."""
    return RULES[platform].text_only and platform in CAROUSELS


def kinds_of(platform: Platform) -> frozenset[MediaKind]:
    """The kinds of file a post of the label can carry, one file or a carousel's."""
    if carousel_only(platform):
        return CAROUSELS[platform].kinds
    return frozenset(RULES[platform].media_kinds)


def kind_of(rule: MediaRule) -> MediaKind:
    if rule.kind is not None:
        return rule.kind
    return min(kinds_of(rule.platform) or {MediaKind.IMAGE})


def baseline(rule: MediaRule) -> tuple[str, Maker]:
    """A file meeting every rule of the rule's label (once durations are lowered): a
    JPEG image; an H.264 MP4 at 24 fps, 320x240 or the label's least size."""
    if kind_of(rule) is MediaKind.IMAGE:
        return "image/jpeg", image()
    return "video/mp4", video(video_size(rule.platform))


def video_size(platform: Platform) -> tuple[int, int]:
    """320x240, or the label's least size where it is larger (TikTok's 360 px)."""
    width, height = VIDEO_SIZE
    for other in rules_of(platform):
        if isinstance(other, Dimensions) and other.applies_to(MediaKind.VIDEO):
            width = max(width, other.min_width or 0)
            height = max(height, other.min_height or 0)
    return width, height


def _other_type(rule: MediaFormat) -> str | None:
    accepted = IMAGE_TYPES if kind_of(rule) is MediaKind.IMAGE else VIDEO_TYPES
    makeable = ("image/png", "image/gif", "video/webm")
    return next((t for t in makeable if t in accepted and t not in rule.content_types), None)


def _least_width(platform: Platform, kind: MediaKind) -> int:
    """The narrowest file the label's dimension rules let through (Threads: 320 px)."""
    widths = [
        rule.min_width or 0
        for rule in rules_of(platform)
        if isinstance(rule, Dimensions) and rule.applies_to(kind)
    ]
    return max([16, *widths])


def _ratio_size(ratio: float, even: bool, least_width: int = 16) -> tuple[int, int] | None:
    """Small sides whose ratio is exactly ``ratio``, no narrower than ``least_width``."""
    for height in range(2, 401, 2 if even else 1):
        width = ratio * height
        whole = round(width)
        if (
            abs(width - whole) < 1e-9
            and least_width <= whole <= 640
            and (whole % 2 == 0 or not even)
        ):
            return whole, height
    return None


def cases_of(rule: Rule) -> list[Case]:
    platform = rule.platform
    if isinstance(rule, PostsPerDay):
        return [Case(rule)]
    assert isinstance(rule, MediaRule), f"no generated case for {type(rule).__name__}: add it"
    if RULES[platform].text_only and not carousel_only(platform):
        return [Case(rule, unreachable=f"{platform.value} posts text only")]
    if rule.subject is Subject.MEDIA and kind_of(rule) not in kinds_of(platform):
        return [Case(rule, unreachable=f"{platform.value} takes no {kind_of(rule)}")]
    base = Side(baseline(rule))
    video_rule = kind_of(rule) is MediaKind.VIDEO
    size = video_size(platform)
    if isinstance(rule, MediaFormat):
        other = _other_type(rule)
        if other is None:
            return [Case(rule, unreachable="every type pressroom takes is one the network takes")]
        if other == "video/webm":
            maker = clip(size, codec="libvpx", container="webm")
        elif other == "image/gif":
            maker = lambda path: make_gif(path, size=IMAGE_SIZE)  # noqa: E731
        else:
            maker = image(fmt="PNG")
        return [Case(rule, inside=base, outside=Side((other, maker)))]
    if isinstance(rule, MaxBytes):
        heavy = (
            video(size, options={"preset": "ultrafast", "qp": "0"}, noisy=True)
            if video_rule
            else noisy_image()
        )
        kind = base.file[0]
        return [
            Case(
                rule,
                inside=Side((kind, heavy), lambda facts: {"limit": facts.size}),
                outside=Side((kind, heavy), lambda facts: {"limit": (facts.size or 0) - 1}),
            )
        ]
    if isinstance(rule, Dimensions):
        return _dimension_cases(rule, base)
    if isinstance(rule, AspectRatio):
        cases = []
        for bound, ratio in (("min", rule.min_ratio), ("max", rule.max_ratio)):
            least = _least_width(platform, kind_of(rule))
            sides = None if ratio is None else _ratio_size(ratio, video_rule, least)
            if sides is None:
                continue
            width, height = sides
            step = 2 if video_rule else 1
            past = (width, height + step) if bound == "min" else (width + step, height)
            make = video if video_rule else image
            kind = base.file[0]
            cases.append(
                Case(
                    rule,
                    bound,
                    inside=Side((kind, make(sides))),
                    outside=Side((kind, make(past))),
                )
            )
        return cases or [Case(rule, unreachable="no small picture has the bounds' ratio")]
    if isinstance(rule, Duration):
        cases = []
        frames = round(SECONDS * FPS)
        for bound, present in (("min", rule.min_seconds), ("max", rule.max_seconds)):
            if present is None:
                continue
            beyond = frames - 1 if bound == "min" else frames + 1
            name = f"{bound}_seconds"

            def to_the_clip(facts: MediaFacts, name: str = name) -> dict[str, object]:
                return {name: facts.duration_seconds}

            cases.append(
                Case(
                    rule,
                    bound,
                    inside=Side(("video/mp4", video(size, frames=frames)), to_the_clip),
                    outside=Side(("video/mp4", video(size, frames=beyond)), to_the_clip),
                )
            )
        return cases
    if isinstance(rule, FrameRate):
        cases = []
        for bound, fps in (("min", rule.min_fps), ("max", rule.max_fps)):
            if fps is None or fps != int(fps):
                continue
            beyond = int(fps) - 1 if bound == "min" else int(fps) + 1
            cases.append(
                Case(
                    rule,
                    bound,
                    inside=Side(("video/mp4", video(size, fps=int(fps), frames=int(fps)))),
                    outside=Side(("video/mp4", video(size, fps=beyond, frames=beyond))),
                )
            )
        return cases
    if isinstance(rule, VideoCodec):
        return [
            Case(
                rule,
                inside=base,
                outside=Side(("video/mp4", clip(size, codec="mpeg4", container="mp4"))),
            )
        ]
    if isinstance(rule, AudioCodec):
        return [
            Case(
                rule,
                inside=Side(
                    ("video/mp4", clip(size, codec="libx264", container="mp4", sound="aac"))
                ),
                outside=Side(
                    ("video/mp4", clip(size, codec="libx264", container="mp4", sound="libopus"))
                ),
            )
        ]
    raise AssertionError(f"no generated case for {type(rule).__name__}: add it here")


def _dimension_cases(rule: Dimensions, base: Side) -> list[Case]:
    """Each side's bounds: a minimum small media can meet is kept (TikTok's 360 px), a
    maximum is lowered to the file's own size; just outside is two pixels beyond."""
    kind, _ = base.file
    make = video if kind_of(rule) is MediaKind.VIDEO else image
    width, height = VIDEO_SIZE if kind_of(rule) is MediaKind.VIDEO else IMAGE_SIZE
    width, height = max(width, rule.min_width or 0), max(height, rule.min_height or 0)
    cases = []
    for bound, present in (
        ("min_width", rule.min_width),
        ("max_width", rule.max_width),
        ("min_height", rule.min_height),
        ("max_height", rule.max_height),
    ):
        if present is None:
            continue

        def lowered(facts: MediaFacts, bound: str = bound) -> dict[str, object]:
            if bound.startswith("min"):
                return {}  # small media meet the real minimum (TikTok's 360 px)
            return {bound: facts.width if bound.endswith("width") else facts.height}

        # A maximum is lowered to a size above every minimum, so that scaling down to it
        # keeps the other side within its own bounds.
        at = (width, height) if bound.startswith("min") else (width + 40, height + 40)
        step = -2 if bound.startswith("min") else 2
        beyond = (at[0] + step, at[1]) if bound.endswith("width") else (at[0], at[1] + step)
        cases.append(
            Case(
                rule,
                bound,
                inside=Side((kind, make(at)), lowered),
                outside=Side((kind, make(beyond)), lowered),
            )
        )
    return cases


def _media_and_count_rules() -> list[Rule]:
    """Every rule but the text rules (``test_network_rules.py``), the parts of a thread
    (``test_threads.py``) and the items of a carousel (``test_carousels.py``), each at a
    limit lowered in the test."""
    return [
        rule
        for rule in all_rules()
        if not isinstance(rule, TextRule | PartsPerThread | ItemsPerPost)
    ]


CASES = [case for rule in _media_and_count_rules() for case in cases_of(rule)]


# -- publishing on the sandbox --------------------------------------------------


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Side], Path]:
    """Each case's files, made once per module (both databases share them)."""
    folder = tmp_path_factory.mktemp("network-media-rules")
    made: dict[str, Path] = {}

    def make(name: str, side: Side) -> Path:
        if name not in made:
            content_type, maker = side.file
            made[name] = maker(folder / f"{name}{SUFFIX[content_type]}")
        return made[name]

    return make


def small_media_allowed(monkeypatch: pytest.MonkeyPatch, platform: Platform) -> None:
    """Clips of a second are below the shortest video some labels take (the spec's 3 s
    for short_video, Instagram's 3 s): those minimums are lowered for the media rules'
    cases, which are about other rules."""
    spec = RULES[platform]
    if spec.min_video_seconds is not None:
        monkeypatch.setitem(RULES, platform, replace(spec, min_video_seconds=0.5))
    for rule in rules_of(platform):
        if isinstance(rule, Duration) and rule.min_seconds is not None:
            patch_rule(monkeypatch, rule.id, min_seconds=0.5)


def apply(monkeypatch: pytest.MonkeyPatch, case: Case, side: Side, inside: MediaFacts) -> None:
    small_media_allowed(monkeypatch, case.rule.platform)
    changes = side.lowered(inside)
    if changes:
        patch_rule(monkeypatch, case.rule.id, **changes)


def _ready(account: AccountHandle, path: Path) -> str:
    status = upload_file(account.service.client, account.headers, path)
    assert status["status"] == "ready", status
    return str(status["fileId"])


def send(account: AccountHandle, case: Case, path: Path) -> tuple[Any, str, str]:
    """Publish ``path`` as the rule's subject (the post's file, or a video's thumbnail);
    the answer, the field the file goes in, and the sandbox's record kind."""
    platform = case.rule.platform
    file_id = _ready(account, path)
    client = account.service.client
    if case.rule.subject is Subject.THUMBNAIL:
        made = publish(account, platform, valid_body(account, platform))
        assert made.status_code == 200, made.text
        route = f"/api/v2/{platform.value}/thumbnail/{made.json()[RULES[platform].id_field]}"

        def set_thumbnail() -> Any:
            return client.post(route, json={"thumbnailFileId": file_id}, headers=account.headers)

        return _until_fitted(set_thumbnail), "thumbnailFileId", "thumbnail"
    if carousel_only(platform):
        # The tried file first, then a second copy of it: every item breaks the rule
        # alike, and a refusal names the first.
        body = valid_body(account, platform, fileIds=[file_id, file_id])
        return publish_when_fitted(account, platform, body), "fileIds[0]", "post"
    body = valid_body(account, platform, fileId=file_id)
    return publish_when_fitted(account, platform, body), "fileId", "post"


def _until_fitted(send_once: Callable[[], Any]) -> Any:
    import time

    deadline = time.monotonic() + 30
    while True:
        answer = send_once()
        if answer.status_code != 409 or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def sent_media(service: Service, kind: str) -> tuple[dict[str, Any], MediaFacts]:
    """What the sandbox received last: its record's media, and the facts of its bytes."""
    record = deliveries(service, kind)[-1].payload
    media = record["media"] if kind == "post" else record
    if media is None:  # a carousel: its first item is the file tried
        media = record["items"][0]
    storage = service.client.app.state.media.storage  # type: ignore[attr-defined]
    with storage.local_copy(media["storageKey"]) as path:
        copy = Path(str(path) + SUFFIX[media["contentType"]])
        copy.write_bytes(Path(path).read_bytes())
    return media, facts_of(copy)


def breaks(case: Case, facts: MediaFacts) -> list[str]:
    verdict = check_media(case.rule.platform, facts, subject=case.rule.subject)
    return [
        v.message for v in (*verdict.refused, *verdict.needs_fitting) if v.rule.id == case.rule.id
    ]


MEDIA_CASES = [case for case in CASES if not isinstance(case.rule, PostsPerDay)]


@pytest.mark.parametrize("case", MEDIA_CASES, ids=lambda c: c.id)
def test_a_file_just_inside_is_published_and_just_outside_refused_or_fitted(
    service: Service,
    case: Case,
    files: Callable[[str, Side], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if case.unreachable is not None:
        pytest.skip(f"{case.rule.id}: {case.unreachable}")
    assert case.inside is not None and case.outside is not None
    inside_path = files(f"{case.id}-inside", case.inside)
    outside_path = files(f"{case.id}-outside", case.outside)
    inside_facts = facts_of(inside_path)
    account = service.account()

    apply(monkeypatch, case, case.inside, inside_facts)
    assert breaks(case, inside_facts) == []
    inside, _, kind = send(account, case, inside_path)
    assert inside.status_code == 200, inside.text
    media, facts = sent_media(service, kind)
    assert media["storageKey"].startswith("files/"), facts  # sent as it is, not converted
    assert breaks(case, facts) == []
    sent, posts = len(deliveries(service, kind)), post_count(service)

    monkeypatch.undo()
    apply(monkeypatch, case, case.outside, inside_facts)
    assert breaks(case, facts_of(outside_path)) != []  # the file is just outside the rule
    outside, field_name, kind = send(account, case, outside_path)
    if case.fitted:
        assert outside.status_code == 200, outside.text
        media, facts = sent_media(service, kind)
        assert media["storageKey"].startswith("derived/")  # a file fitted for the network
        assert breaks(case, facts) == [], facts
        return
    assert outside.status_code == 400, outside.text
    error = error_of(outside)
    assert error["code"] == "validation_error"
    assert error["field"] == field_name
    assert error["rule"] == case.rule.id
    assert error["docUrl"] == case.rule.doc_url
    assert case.rule.network in error["message"]
    assert len(deliveries(service, kind)) == sent and post_count(service) == posts


@pytest.mark.parametrize(
    "case", [case for case in CASES if isinstance(case.rule, PostsPerDay)], ids=lambda c: c.id
)
def test_the_last_post_of_a_day_is_published_and_the_next_refused_by_the_network(
    service: Service, case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily quota lowered to 2 (100 and 250 posts would make the suite slow): the
    second post of the day is published, the third is the network's 429."""
    patch_rule(monkeypatch, case.rule.id, limit=2)
    platform = case.rule.platform
    account = service.account()
    body = valid_body(account, platform)
    for _ in range(2):
        published = publish(account, platform, body)
        assert published.status_code == 200, published.text
    refused = publish(account, platform, body)
    assert refused.status_code == 429, refused.text
    assert error_of(refused)["code"] == "rate_limited" and "Retry-After" in refused.headers
    assert len(deliveries(service)) == 2


def test_the_cases_cover_every_media_and_count_rule_of_the_table() -> None:
    assert {case.rule.id for case in CASES} == {rule.id for rule in _media_and_count_rules()}
    tried = {case.rule.id for case in CASES if case.unreachable is None}
    assert "photo_sharing.image_aspect_ratio" in tried
    assert "video_sharing.thumbnail_format" in tried
    assert "short_video.video_frame_rate" in tried
    # What the sandbox cannot be sent today, and why; a new rule of a label that takes
    # media is tried, never added here silently.
    unreachable = {case.rule.id: case.unreachable for case in CASES if case.unreachable}
    for rule_id, reason in unreachable.items():
        platform = rule_id.split(".")[0]
        assert reason is not None
        assert (
            RULES[Platform(platform)].text_only
            or rule_id.endswith(("_items", "_per_post"))
            or rule_id == "short_video.video_container"
        ), (rule_id, reason)


# -- campaign validate ------------------------------------------------------------


def campaign_for(case: Case, media: Path, folder: Path) -> tuple[Path, int]:
    """A campaign whose one post gives ``media`` for the rule's subject (the post's
    media, or the video's thumbnail); and the line the rule is reported at: the
    label's block for the post's media, the ``thumbnail`` field for a thumbnail."""
    platform = case.rule.platform
    fields = {
        spec.name: f"{spec.name} for {platform.value}" for spec in RULES[platform].text_fields
    }
    if RULES[platform].requires_board:
        fields["board"] = "board-1"
    lines = ["name: rules", "media:", f"  tried: {{path: {media.name}}}"]
    if case.rule.subject is Subject.THUMBNAIL:
        base = folder / "base.mp4"
        if not base.exists():
            video(video_size(platform))(base)
        lines += ["  clip: {path: base.mp4}", "posts:", "  - id: p", "    media: clip"]
        fields["thumbnail"] = "tried"
        marker = "      thumbnail:"
    elif carousel_only(platform):
        lines += ["posts:", "  - id: p"]
        marker = "        - tried"
    else:
        lines += ["posts:", "  - id: p", "    media: tried"]
        marker = f"    {platform.value}:"
    lines.append(f"    {platform.value}:")
    lines += [f"      {name}: {value}" for name, value in fields.items()]
    if carousel_only(platform):  # the tried file twice: each item reported at its line
        lines += ["      media:", marker, marker]
    path = folder / "c.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    line = next(n for n, text in enumerate(lines, start=1) if text.startswith(marker))
    return path, line


@pytest.mark.parametrize("case", MEDIA_CASES, ids=lambda c: c.id)
def test_campaign_validate_reports_the_same_media_rule_at_the_line_it_is_about(
    case: Case,
    files: Callable[[str, Side], Path],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Offline, on the file's probed facts: a rule conversion cannot meet is an error, one
    it can meets is a warning (the file will be converted), each naming the rule and its
    page at the line of the post's block for that label (of ``thumbnail`` for one)."""
    if case.unreachable is not None:
        pytest.skip(f"{case.rule.id}: {case.unreachable}")
    assert case.inside is not None and case.outside is not None
    inside_path = files(f"{case.id}-inside", case.inside)
    outside_path = files(f"{case.id}-outside", case.outside)
    inside_facts = facts_of(inside_path)

    apply(monkeypatch, case, case.inside, inside_facts)
    (tmp_path / "in").mkdir()
    local = tmp_path / "in" / inside_path.name
    local.symlink_to(inside_path)
    campaign, _ = campaign_for(case, local, tmp_path / "in")
    issues = validate(campaign).issues
    assert [str(i) for i in issues if i.rule == case.rule.id or i.is_error] == []

    monkeypatch.undo()
    apply(monkeypatch, case, case.outside, inside_facts)
    (tmp_path / "out").mkdir()
    local = tmp_path / "out" / outside_path.name
    local.symlink_to(outside_path)
    campaign, line = campaign_for(case, local, tmp_path / "out")
    found = [i for i in validate(campaign).issues if i.rule == case.rule.id]
    at = [line, line + 1] if carousel_only(case.rule.platform) else [line]
    assert [(i.is_error, i.doc_url, i.line) for i in found] == [
        (not case.fitted, case.rule.doc_url, n) for n in at
    ], [str(i) for i in found]
    assert case.rule.id in str(found[0]) and case.rule.doc_url in str(found[0])
    if not case.fitted:
        errors = [i for i in validate(campaign).issues if i.is_error]
        assert [i.rule for i in errors] == [case.rule.id] * len(at), [str(i) for i in errors]
