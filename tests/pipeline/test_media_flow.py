"""Campaigns with media: uploads once per content, readiness, final refusals, lost media."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from pressroom.pipeline import progress
from pressroom.pipeline.progress import Stage
from pressroom.pipeline.runner import run_campaign_file
from tests.pipeline import prefect_api
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.support.media import make_image, make_video


class Recorder:
    """What a progress bar would show."""

    def __init__(self) -> None:
        self.totals: dict[Stage, int] = {}
        self.done: Counter[Stage] = Counter()

    def planned(self, stage: Stage, total: int) -> None:
        self.totals[stage] = total

    def advanced(self, stage: Stage) -> None:
        self.done[stage] += 1

    def notice(self, text: str) -> None:
        pass


def media_campaign(folder: Path) -> str:
    make_video(folder / "clip.mp4", 4)
    make_image(folder / "still.png", size=(40, 40))  # Instagram takes 4:5 to 1.91:1
    return """\
name: with-media
retries: {attempts: 3, backoff_seconds: 0.1, max_delay_seconds: 0.2}
media:
  clip: {path: clip.mp4, folder: launch}
  same-clip: {path: clip.mp4}
  still: {path: still.png}
posts:
  - id: words
    microblog: {text: "Coming soon."}
  - id: film
    media: clip
    short_video: {caption: "Four seconds.", privacy_level: SELF_ONLY}
    page_social: {message: "Watch this."}
  - id: film-again
    media: same-clip
    short_video: {caption: "The same four seconds.", privacy_level: SELF_ONLY}
  - id: still
    media: still
    photo_sharing: {caption: "A still."}
"""


def connect(live: LiveService, *, photo_account_type: str = "business") -> None:
    live.connect("microblog", "@acme")
    live.connect("short_video", "@acme.clips")
    live.connect("page_social", "Acme Page")
    live.connect("photo_sharing", "acme.photos", account_type=photo_account_type)


def test_media_are_uploaded_once_per_content_and_posts_follow_readiness(
    live_service: LiveService, write_campaign: WriteCampaign, tmp_path: Path
) -> None:
    connect(live_service)
    campaign = write_campaign(media_campaign(tmp_path))
    recorder = Recorder()
    progress.listen(recorder)
    try:
        outcome = run_campaign_file(campaign)
    finally:
        progress.listen(None)
    assert outcome.ok, outcome.message
    expected = {Stage.UPLOAD: 2, Stage.READY: 2, Stage.POST: 5}
    assert recorder.totals == expected and recorder.done == expected
    assert outcome.message == "5 posts: 5 published", "the summary counts what the bar counts"
    assert Counter(r["status"] for r in outcome.rows) == {"published": 5}
    with_media = [d for d in live_service.deliveries() if d.payload["media"]]
    assert len({d.payload["media"]["fileId"] for d in with_media}) == 2, "one upload per content"
    # Fitted for each network that would refuse the file as it is, once per profile: the
    # PNG goes to photo_sharing as a JPEG, the 10 fps clip to short_video at 24 fps and
    # 360 px high; page_social (no confirmed rules) gets the clip as it is.
    sent = {d.platform: d.payload["media"] for d in with_media}
    assert sent["photo_sharing"]["contentType"] == "image/jpeg"
    with Image.open(live_service.stored_path(sent["photo_sharing"]["storageKey"])) as jpeg:
        assert (jpeg.format, jpeg.size) == ("JPEG", (40, 40))
    assert sent["short_video"]["storageKey"].startswith("derived/")
    assert sent["page_social"]["storageKey"].startswith("files/")
    short = {d.payload["media"]["storageKey"] for d in with_media if d.platform == "short_video"}
    assert len(short) == 1, "both short_video posts of the clip send the one file made"

    runs = prefect_api.task_runs(outcome.flow_run_id or "", expected=8)
    assert {"upload · clip", "upload · still", "ready · clip"} <= {r.name for r in runs}

    # The next edition reuses the uploads it remembers: no presigned URL is spent.
    listed = live_service.posts()
    again = run_campaign_file(campaign, edition="next")
    assert again.ok
    file_ids = {p.file_id for p in live_service.posts() if p.file_id}
    assert len(file_ids) == 2 and len(live_service.posts()) == len(listed) + 5


def test_a_refused_post_is_final_and_does_not_stop_the_others(
    live_service: LiveService, write_campaign: WriteCampaign, tmp_path: Path
) -> None:
    connect(live_service, photo_account_type="personal")
    outcome = run_campaign_file(write_campaign(media_campaign(tmp_path)))

    assert outcome.state == "FAILED"
    [refused] = [r for r in outcome.rows if r["status"] == "failed"]
    assert refused["platform"] == "photo_sharing" and refused["attempts"] == 1
    assert "403 account_type_not_allowed" in refused["error"]
    assert Counter(r["status"] for r in outcome.rows)["published"] == 4
    assert prefect_api.flow_run(outcome.flow_run_id or "").state.type.value == "FAILED"


def test_a_post_whose_media_never_gets_ready_fails_alone(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    connect(live_service)
    live_service.settings.processing_delay_ms = 60_000
    monkeypatch.setenv("PRESSROOM_PIPELINE_READY_TIMEOUT_SECONDS", "1")
    outcome = run_campaign_file(write_campaign(media_campaign(tmp_path)))

    assert outcome.state == "FAILED"
    by_post = {(r["post"], r["platform"]): r for r in outcome.rows}
    assert by_post[("words", "microblog")]["status"] == "published"
    for key in [("film", "short_video"), ("film", "page_social"), ("still", "photo_sharing")]:
        assert by_post[key]["status"] == "failed"
        assert "not ready" in by_post[key]["error"]
    assert len(live_service.deliveries()) == 1


def test_a_rerun_from_another_directory_uploads_nothing_and_posts_nothing_twice(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The state is in the user's state dir, not the working directory."""
    connect(live_service)
    monkeypatch.delenv("PRESSROOM_PIPELINE_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    campaign = write_campaign(media_campaign(tmp_path))
    for folder in ("first", "second"):
        (tmp_path / folder).mkdir()
    monkeypatch.chdir(tmp_path / "first")
    assert run_campaign_file(campaign).ok
    uploads = files_of(live_service)
    assert len(uploads) == 2
    delivered = len(live_service.deliveries())

    monkeypatch.chdir(tmp_path / "second")
    again = run_campaign_file(campaign)

    assert again.ok, again.message
    assert {r["status"] for r in again.rows} == {"skipped"}
    assert len(live_service.deliveries()) == delivered
    assert files_of(live_service) == uploads, "uploaded again"
    assert not (tmp_path / "first" / ".pressroom").exists()


def files_of(live: LiveService) -> set[str]:
    from sqlalchemy import select

    from pressroom.service.db.models import File
    from pressroom.service.db.session import transaction

    with transaction(live.sessions, write=False) as db:
        return set(db.scalars(select(File.id)))


def test_a_rerun_with_the_local_state_lost_finds_its_media_on_the_service(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another machine, or a lost state folder: the service is the truth. The media are
    found by content (no upload, no quota spent) and every post is a replay of its key."""
    connect(live_service)
    campaign = write_campaign(media_campaign(tmp_path))
    monkeypatch.setenv("PRESSROOM_PIPELINE_STATE_DIR", str(tmp_path / "machine-a"))
    assert run_campaign_file(campaign).ok
    uploads = files_of(live_service)
    delivered = len(live_service.deliveries())

    monkeypatch.setenv("PRESSROOM_PIPELINE_STATE_DIR", str(tmp_path / "machine-b"))
    again = run_campaign_file(campaign)

    assert again.ok, again.message
    assert {r["status"] for r in again.rows} == {"skipped"}, again.rows
    assert len(live_service.deliveries()) == delivered
    assert files_of(live_service) == uploads, "uploaded again"
