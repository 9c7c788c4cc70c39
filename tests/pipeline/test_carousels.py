"""Carousels in campaigns end to end: a list under `media:` in a photo_sharing block,
its files uploaded and made ready, sent by the flow to the real service over HTTP as
`fileIds` in order; the result lists the carousel and its items, and a second run of the
edition finds it done without posting again."""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx
import pytest

from pressroom.pipeline.runner import run_campaign_file
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.support.media import make_image

FILES = ("first.jpg", "second.jpg", "third.png")


def file_id(live: LiveService, path: Path) -> str:
    """The service's id of the file uploaded with these bytes."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    answer = httpx.get(
        f"{live.base_url}/api/upload/files",
        params={"sha256": digest},
        headers={"X-API-Key": live.key},
    )
    assert answer.status_code == 200, answer.text
    [found] = [f for f in answer.json()["files"] if f["sha256"] == digest]
    return str(found["fileId"])


def carousel_campaign(folder: Path) -> str:
    make_image(folder / "first.jpg", size=(40, 50), fmt="JPEG")  # 4:5
    make_image(folder / "second.jpg", size=(50, 40), fmt="JPEG")
    make_image(folder / "third.png", size=(40, 40))  # converted to JPEG for Instagram
    return """\
name: looks
retries: {attempts: 3, backoff_seconds: 0.1, max_delay_seconds: 0.2}
media:
  first: {path: first.jpg}
  second: {path: second.jpg}
  third: {path: third.png}
posts:
  - id: looks
    media: first
    photo_sharing:
      caption: "Three looks"
      media: [third, first, second]
    page_social: {message: "One look"}
"""


def test_a_carousel_is_published_with_its_items_and_a_rerun_finds_it_done(
    live_service: LiveService,
    write_campaign: WriteCampaign,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    live_service.connect("photo_sharing", "acme.photos", account_type="business")
    live_service.connect("page_social", "Acme Page")
    campaign = write_campaign(carousel_campaign(tmp_path))

    outcome = run_campaign_file(campaign)
    assert outcome.ok, outcome.message
    rows = {row["platform"]: row for row in outcome.rows}
    carousel = rows["photo_sharing"]
    assert carousel["status"] == "published"
    assert [(p["index"], p["kind"], p["status"]) for p in carousel["parts"]] == [
        (0, "post", "published"),
        (1, "item", "published"),
        (2, "item", "published"),
        (3, "item", "published"),
    ]
    assert carousel["url"] == carousel["parts"][0]["url"]
    [table_row] = [line for line in capsys.readouterr().out.splitlines() if "photo_sharing" in line]
    assert "│ published │ 4/4 " in table_row, "the result table's parts column"
    assert not rows["page_social"]["parts"], "the post's one file elsewhere: one part"

    sent = {d.platform: d for d in live_service.deliveries()}
    assert set(sent) == {"photo_sharing", "page_social"}, "one post each"
    ids = {name: file_id(live_service, tmp_path / name) for name in FILES}
    assert len(set(ids.values())) == 3, "each file uploaded once"
    records = {p.platform: p for p in live_service.posts()}
    assert records["photo_sharing"].request["fileIds"] == [
        ids["third.png"],
        ids["first.jpg"],
        ids["second.jpg"],
    ], "in the list's order"
    assert records["page_social"].request["fileId"] == ids["first.jpg"]
    assert len(sent["photo_sharing"].payload["items"]) == 3

    again = run_campaign_file(campaign)
    assert again.ok, again.message
    assert {row["status"] for row in again.rows} == {"skipped"}
    assert len(live_service.deliveries()) == 2, "no second post"
    [redone] = [row for row in again.rows if row["platform"] == "photo_sharing"]
    assert redone["reason"] == "already published"
